// The batched copy kernel and its launch (see copy_kernel.h for the design).
#include "cuda/kernels/copy_kernel.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

namespace rangereplay::kernels {
namespace {

constexpr std::uint32_t kWarpLanes = 32;
// 16-byte vectors in flight per lane: 8 x 16 B x 32 lanes = one 4 KiB piece.
constexpr std::uint32_t kUnroll16 = 8;

Status runtime_status(cudaError_t error, const char* call) {
  if (error == cudaSuccess) return ok_status();
  return internal_error(std::string(call) + " failed: " + cudaGetErrorName(error) + " (" +
                        cudaGetErrorString(error) + ")");
}

// Loads and stores name the global space explicitly (the addresses arrive as
// integers, which would otherwise make them generic). Default variant: loads
// through the read-only path (ld.global.nc), ordinary write-back stores.
// Streaming variant: evict-first loads and stores (ld/st.global.cs).
template <bool kStreaming, typename T>
__device__ __forceinline__ T load_vector(const T* p) {
  if constexpr (kStreaming) {
    return __ldcs(p);
  } else {
    return __ldg(p);
  }
}

template <bool kStreaming, typename T>
__device__ __forceinline__ void store_vector(T* p, const T& v) {
  if constexpr (kStreaming) {
    __stcs(p, v);
  } else {
    __stwb(p, v);
  }
}

// Copies n elements of T (src and dst aligned to sizeof(T)). Lane l takes
// elements l, l + 32, ...: each instruction of the warp touches one
// contiguous 32 * sizeof(T) span; all kUnroll loads of a round are issued
// before its stores, so kUnroll vectors per lane are in flight.
template <bool kStreaming, typename T, std::uint32_t kUnroll>
__device__ __forceinline__ void copy_vectors(unsigned char* dst, const unsigned char* src, std::uint32_t n,
                                             std::uint32_t lane) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
#pragma unroll 1
  for (std::uint32_t base = lane; base < n; base += kWarpLanes * kUnroll) {
    const T* sp = s + base;
    T* dp = d + base;
    const std::uint32_t left = n - base;
    T v[kUnroll];
#pragma unroll
    for (std::uint32_t k = 0; k < kUnroll; ++k) {
      if (k * kWarpLanes < left) v[k] = load_vector<kStreaming>(sp + k * kWarpLanes);
    }
#pragma unroll
    for (std::uint32_t k = 0; k < kUnroll; ++k) {
      if (k * kWarpLanes < left) store_vector<kStreaming>(dp + k * kWarpLanes, v[k]);
    }
  }
}

// The body of a piece whose src and dst differ modulo 16: the slow path for
// layouts a planner should avoid. One vector per lane in flight (more costs
// the 16-byte path registers: the kernel must stay within 64 registers, no
// spills, for 4 blocks per SM).
template <bool kStreaming>
__device__ __forceinline__ void copy_narrow(unsigned char* dst, const unsigned char* src, std::uint32_t body,
                                            std::uint32_t width, std::uint32_t lane) {
  switch (width) {
    case 8: copy_vectors<kStreaming, uint2, 1>(dst, src, body / 8, lane); break;
    case 4: copy_vectors<kStreaming, unsigned int, 1>(dst, src, body / 4, lane); break;
    case 2: copy_vectors<kStreaming, unsigned short, 1>(dst, src, body / 2, lane); break;
    default: copy_vectors<kStreaming, unsigned char, 1>(dst, src, body, lane); break;
  }
}

// One warp copies one piece of `len` bytes (1..65536), split as
// split_piece() says (core/work_stream.h): head bytes on lanes 0..15, tail
// bytes on lanes 16..31, the body as the widest vectors src and dst allow.
template <bool kStreaming>
__device__ __forceinline__ void copy_piece(unsigned char* dst, const unsigned char* src, std::uint32_t len,
                                           std::uint32_t lane) {
  const PieceSplit split =
      split_piece(reinterpret_cast<std::uint64_t>(src), reinterpret_cast<std::uint64_t>(dst), len);
  if (lane < split.head) dst[lane] = src[lane];
  if (lane >= 16 && lane - 16 < split.tail) {
    const std::uint32_t at = split.head + split.body + (lane - 16);
    dst[at] = src[at];
  }
  if (split.width == 16) {
    copy_vectors<kStreaming, uint4, kUnroll16>(dst + split.head, src + split.head, split.body / 16, lane);
  } else {
    copy_narrow<kStreaming>(dst + split.head, src + split.head, split.body, split.width, lane);
  }
}

// Grid-stride over items by warp; the next item's descriptor is loaded before
// the current piece is copied, so its latency hides behind the copy.
template <bool kStreaming>
__global__ void __launch_bounds__(kCopyBlockThreads, 4) copy_kernel(CopyKernelArgs args) {
  const std::uint32_t lane = threadIdx.x % kWarpLanes;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) / kWarpLanes;
  std::uint64_t i = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpLanes;
  if (i >= args.item_count) return;
  const uint4* items = reinterpret_cast<const uint4*>(args.items);
  const bool capture = args.direction == CopyDirection::kCapture;
  uint4 raw = __ldg(items + i);
  for (;;) {
    const std::uint64_t next = i + warps;
    const bool has_next = next < args.item_count;
    uint4 next_raw = make_uint4(0, 0, 0, 0);
    if (has_next) next_raw = __ldg(items + next);

    const WorkItem item{raw.x | (static_cast<std::uint64_t>(raw.y) << 32),
                        raw.z | (static_cast<std::uint64_t>(raw.w) << 32)};
    const std::uint32_t slot = item.arena_slot();
    const CUdeviceptr base = slot == 0   ? args.arena_base[0]
                             : slot == 1 ? args.arena_base[1]
                             : slot == 2 ? args.arena_base[2]
                                         : args.arena_base[3];
    auto* app = reinterpret_cast<unsigned char*>(item.app_address());
    auto* arena = reinterpret_cast<unsigned char*>(base + item.arena_offset());
    unsigned char* dst = capture ? arena : app;
    const unsigned char* src = capture ? app : arena;
    copy_piece<kStreaming>(dst, src, item.bytes(), lane);

    if (!has_next) break;
    raw = next_raw;
    i = next;
  }
}

static_assert(kMaxArenaSlots == 4, "copy_kernel selects among exactly four arena bases");

}  // namespace

StatusOr<int> copy_kernel_blocks_per_sm(bool streaming_cache_hints) {
  int blocks = 0;
  const cudaError_t error =
      streaming_cache_hints
          ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, copy_kernel<true>, kCopyBlockThreads, 0)
          : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, copy_kernel<false>, kCopyBlockThreads, 0);
  RR_RETURN_IF_ERROR(runtime_status(error, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(copy_kernel)"));
  if (blocks < 1) return internal_error("copy_kernel cannot be resident on this device");
  return blocks;
}

int copy_kernel_grid(std::uint64_t item_count, int sm_count, int blocks_per_sm) {
  const std::uint64_t wave = static_cast<std::uint64_t>(std::max(sm_count, 1)) * std::max(blocks_per_sm, 1);
  const std::uint64_t needed = (item_count + kCopyBlockWarps - 1) / kCopyBlockWarps;
  return static_cast<int>(std::max<std::uint64_t>(1, std::min(wave, needed)));
}

Status launch_copy_kernel(const CopyKernelArgs& args, bool streaming_cache_hints, int grid_blocks,
                          CUstream stream) {
  if (args.item_count == 0) return ok_status();
  if (grid_blocks < 1) return invalid_argument("copy_kernel grid of " + std::to_string(grid_blocks) + " blocks");
  cudaStream_t cuda_stream = stream;  // the same type as CUstream
  if (streaming_cache_hints) {
    copy_kernel<true><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  } else {
    copy_kernel<false><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  }
  return runtime_status(cudaGetLastError(), "copy_kernel launch");
}

}  // namespace rangereplay::kernels
