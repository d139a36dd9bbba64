// The batched copy kernel and its launch (see copy_kernel.h for the design).
#include "cuda/kernels/copy_kernel.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <string>

#include "cuda/kernels/warp_copy.cuh"

namespace rangereplay::kernels {
namespace {

using warp_copy::copy_head_tail;
using warp_copy::copy_piece;
using warp_copy::kWarpLanes;
using warp_copy::store_vector;

Status runtime_status(cudaError_t error, const char* call) {
  if (error == cudaSuccess) return ok_status();
  return internal_error(std::string(call) + " failed: " + cudaGetErrorName(error) + " (" +
                        cudaGetErrorString(error) + ")");
}

// Where one item's bytes go: `bytes` bytes from src to dst.
struct PieceEnds {
  unsigned char* dst;
  const unsigned char* src;
  std::uint32_t bytes;
};

// Decodes one item (a WorkItem as a 16-byte vector) for the launch's
// direction and arena bases.
__device__ __forceinline__ PieceEnds piece_ends(const uint4& raw, const CopyKernelArgs& args, bool capture) {
  const WorkItem item{raw.x | (static_cast<std::uint64_t>(raw.y) << 32),
                      raw.z | (static_cast<std::uint64_t>(raw.w) << 32)};
  const std::uint32_t slot = item.arena_slot();
  const CUdeviceptr base = slot == 0   ? args.arena_base[0]
                           : slot == 1 ? args.arena_base[1]
                           : slot == 2 ? args.arena_base[2]
                                       : args.arena_base[3];
  auto* app = reinterpret_cast<unsigned char*>(item.app_address());
  auto* arena = reinterpret_cast<unsigned char*>(base + item.arena_offset());
  return PieceEnds{capture ? arena : app, capture ? app : arena, item.bytes()};
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

    const PieceEnds piece = piece_ends(raw, args, capture);
    copy_piece<kStreaming>(piece.dst, piece.src, piece.bytes, lane);

    if (!has_next) break;
    raw = next_raw;
    i = next;
  }
}

static_assert(kMaxArenaSlots == 4, "copy_kernel selects among exactly four arena bases");

// ---- kWarpPerItemInOrder: kWarpPerItem's copy loop, one block per kCopyBlockWarps items ----

// Warp k of block b copies item b * kCopyBlockWarps + k, then exits: the grid
// covers the stream, so blocks (and with them items) start in stream order as
// earlier ones retire. The early return is warp-uniform (i is per warp).
template <bool kStreaming>
__global__ void __launch_bounds__(kCopyBlockThreads, 4) copy_in_order_kernel(CopyKernelArgs args) {
  const std::uint32_t lane = threadIdx.x % kWarpLanes;
  const std::uint64_t i =
      static_cast<std::uint64_t>(blockIdx.x) * kCopyBlockWarps + threadIdx.x / kWarpLanes;
  if (i >= args.item_count) return;
  const uint4 raw = __ldg(reinterpret_cast<const uint4*>(args.items) + i);
  const PieceEnds piece = piece_ends(raw, args, args.direction == CopyDirection::kCapture);
  copy_piece<kStreaming>(piece.dst, piece.src, piece.bytes, lane);
}

static_assert(kCopyBlockThreads % kWarpLanes == 0, "copy_in_order_kernel gives each warp one item");

// ---- kBlockPerItemRun: the digest kernel's copy loop (digest_kernel.cu, block_copy) ----

constexpr std::uint32_t kRunThreads = kCopyBlockThreads;
constexpr std::uint32_t kRunGroup = kBlockRunGroup;
static_assert(kRunGroup <= kCopyBlockWarps, "each item of a group needs its own warp for head and tail bytes");
static_assert(kBlockRunMaxItems % kRunGroup == 0, "a block's run is whole groups");

// n elements of T from src to dst (both aligned to sizeof(T)) by the whole
// block, one per thread in flight: the narrow path (digest_kernel.cu's
// copy_vectors<T, 1>). Loads evict-first, as in the digest kernel.
template <bool kStreaming, typename T>
__device__ __forceinline__ void copy_block_vectors(unsigned char* dst, const unsigned char* src, std::uint32_t n,
                                                   std::uint32_t tid) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
#pragma unroll 1
  for (std::uint32_t i = tid; i < n; i += kRunThreads) store_vector<kStreaming>(d + i, __ldcs(s + i));
}

template <bool kStreaming>
__device__ __forceinline__ void copy_block_narrow(unsigned char* dst, const unsigned char* src, std::uint32_t body,
                                                  std::uint32_t width, std::uint32_t tid) {
  switch (width) {
    case 8: copy_block_vectors<kStreaming, uint2>(dst, src, body / 8, tid); break;
    case 4: copy_block_vectors<kStreaming, unsigned int>(dst, src, body / 4, tid); break;
    case 2: copy_block_vectors<kStreaming, unsigned short>(dst, src, body / 2, tid); break;
    default: copy_block_vectors<kStreaming, unsigned char>(dst, src, body, tid); break;
  }
}

// The 16-byte bodies of up to kRunGroup items: n[k] vectors from src[k] to
// dst[k] (n[k] == 0 for an absent or narrow item). Thread t takes vector
// t, t + 256, ... of every item; each round issues all its loads before its
// stores (kRunGroup vectors per thread in flight). Rounds every item fills are
// straight-line code, the rest predicated (digest_kernel.cu's copy_vectors).
template <bool kStreaming>
__device__ __forceinline__ void copy_group_16(unsigned char* const (&dst)[kRunGroup],
                                              const unsigned char* const (&src)[kRunGroup],
                                              const std::uint32_t (&n)[kRunGroup], std::uint32_t tid) {
  std::uint32_t n_min = n[0];
  std::uint32_t n_max = n[0];
#pragma unroll
  for (std::uint32_t k = 1; k < kRunGroup; ++k) {
    n_min = n[k] < n_min ? n[k] : n_min;
    n_max = n[k] > n_max ? n[k] : n_max;
  }
  std::uint32_t i = tid;
#pragma unroll 1
  for (; i < n_min; i += kRunThreads) {
    uint4 v[kRunGroup];
#pragma unroll
    for (std::uint32_t k = 0; k < kRunGroup; ++k) v[k] = __ldcs(reinterpret_cast<const uint4*>(src[k]) + i);
#pragma unroll
    for (std::uint32_t k = 0; k < kRunGroup; ++k) store_vector<kStreaming>(reinterpret_cast<uint4*>(dst[k]) + i, v[k]);
  }
#pragma unroll 1
  for (; i < n_max; i += kRunThreads) {
    uint4 v[kRunGroup];
#pragma unroll
    for (std::uint32_t k = 0; k < kRunGroup; ++k) {
      if (i < n[k]) v[k] = __ldcs(reinterpret_cast<const uint4*>(src[k]) + i);
    }
#pragma unroll
    for (std::uint32_t k = 0; k < kRunGroup; ++k) {
      if (i < n[k]) store_vector<kStreaming>(reinterpret_cast<uint4*>(dst[k]) + i, v[k]);
    }
  }
}

// Block b copies items [b * items_per_block, ...): it stages their
// descriptors in shared memory once, then copies them kRunGroup at a time.
// Every branch on an item is block-uniform (all threads read the same
// descriptor), except the head/tail bytes, which only warp k of the group
// moves for its k-th item.
template <bool kStreaming>
__global__ void __launch_bounds__(kCopyBlockThreads, 4) copy_block_run_kernel(CopyKernelArgs args) {
  __shared__ uint4 s_items[kBlockRunMaxItems];
  const std::uint32_t tid = threadIdx.x;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * args.items_per_block;
  if (first >= args.item_count) return;  // the whole block
  const std::uint64_t left = args.item_count - first;
  const std::uint32_t count = left < args.items_per_block ? static_cast<std::uint32_t>(left) : args.items_per_block;
  const uint4* items = reinterpret_cast<const uint4*>(args.items) + first;
  for (std::uint32_t k = tid; k < count; k += kRunThreads) s_items[k] = __ldg(items + k);
  __syncthreads();

  const bool capture = args.direction == CopyDirection::kCapture;
  const std::uint32_t warp = tid / kWarpLanes;
  const std::uint32_t lane = tid % kWarpLanes;
#pragma unroll 1
  for (std::uint32_t g = 0; g < count; g += kRunGroup) {
    const unsigned char* src16[kRunGroup];
    unsigned char* dst16[kRunGroup];
    std::uint32_t n16[kRunGroup];
#pragma unroll
    for (std::uint32_t k = 0; k < kRunGroup; ++k) {
      src16[k] = nullptr;
      dst16[k] = nullptr;
      n16[k] = 0;
      if (g + k >= count) continue;
      const PieceEnds piece = piece_ends(s_items[g + k], args, capture);
      unsigned char* dst = piece.dst;
      const unsigned char* src = piece.src;
      const PieceSplit split =
          split_piece(reinterpret_cast<std::uint64_t>(src), reinterpret_cast<std::uint64_t>(dst), piece.bytes);
      if (warp == k) copy_head_tail(dst, src, split, lane);
      if (split.width == 16) {
        src16[k] = src + split.head;
        dst16[k] = dst + split.head;
        n16[k] = split.body / 16;
      } else {
        copy_block_narrow<kStreaming>(dst + split.head, src + split.head, split.body, split.width, tid);
      }
    }
    copy_group_16<kStreaming>(dst16, src16, n16, tid);
  }
}

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

StatusOr<int> block_run_grid(std::uint64_t item_count, std::uint32_t items_per_block) {
  if (items_per_block == 0 || items_per_block % kBlockRunGroup != 0 || items_per_block > kBlockRunMaxItems) {
    return invalid_argument("copy_block_run_kernel with " + std::to_string(items_per_block) +
                            " items per block (a multiple of " + std::to_string(kBlockRunGroup) + " up to " +
                            std::to_string(kBlockRunMaxItems) + ")");
  }
  const std::uint64_t blocks = (item_count + items_per_block - 1) / items_per_block;
  if (blocks > static_cast<std::uint64_t>(INT_MAX)) {
    return invalid_argument("copy_block_run_kernel grid of " + std::to_string(blocks) + " blocks exceeds 2^31 - 1");
  }
  return static_cast<int>(std::max<std::uint64_t>(1, blocks));
}

Status launch_copy_kernel_block_run(const CopyKernelArgs& args, bool streaming_cache_hints, int grid_blocks,
                                    CUstream stream) {
  if (args.item_count == 0) return ok_status();
  RR_ASSIGN_OR_RETURN(const int needed, block_run_grid(args.item_count, args.items_per_block));
  if (grid_blocks < needed) {
    return invalid_argument("copy_block_run_kernel grid of " + std::to_string(grid_blocks) + " blocks, " +
                            std::to_string(needed) + " needed");
  }
  cudaStream_t cuda_stream = stream;  // the same type as CUstream
  if (streaming_cache_hints) {
    copy_block_run_kernel<true><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  } else {
    copy_block_run_kernel<false><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  }
  return runtime_status(cudaGetLastError(), "copy_block_run_kernel launch");
}

StatusOr<int> in_order_grid(std::uint64_t item_count) {
  const std::uint64_t blocks = in_order_blocks(item_count);
  if (blocks > static_cast<std::uint64_t>(INT_MAX)) {
    return invalid_argument("copy_in_order_kernel grid of " + std::to_string(blocks) + " blocks exceeds 2^31 - 1");
  }
  return static_cast<int>(std::max<std::uint64_t>(1, blocks));
}

Status launch_copy_kernel_in_order(const CopyKernelArgs& args, bool streaming_cache_hints, int grid_blocks,
                                   CUstream stream) {
  if (args.item_count == 0) return ok_status();
  RR_ASSIGN_OR_RETURN(const int needed, in_order_grid(args.item_count));
  if (grid_blocks != needed) {
    return invalid_argument("copy_in_order_kernel grid of " + std::to_string(grid_blocks) + " blocks, " +
                            std::to_string(needed) + " needed");
  }
  cudaStream_t cuda_stream = stream;  // the same type as CUstream
  if (streaming_cache_hints) {
    copy_in_order_kernel<true><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  } else {
    copy_in_order_kernel<false><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  }
  return runtime_status(cudaGetLastError(), "copy_in_order_kernel launch");
}

}  // namespace rangereplay::kernels
