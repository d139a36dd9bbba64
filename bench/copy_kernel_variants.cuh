// The copy kernels copy_bench times beside the library's (kWarpPerItemInOrder,
// cuda/kernels/copy_kernel.h), on the same work stream: the variants it
// replaced. Each copies every item exactly as split_piece() says
// (core/snapshot/work_stream.h); they differ only in schedule and speed. A plan's
// kernel_args() gives them its uploaded work stream and arena bases.
//
// kWarpPerItem: the library kernel's copy loop (one warp per item, eight
// 16-byte vectors per lane in flight) in one resident wave: multiprocessors x
// resident blocks per SM, capped by the number of items; each warp takes items
// grid-stride (item i to warp i mod warps) and loads the next descriptor
// before copying the current piece. Warp w has the fixed items w, w + W, ...
// (W = 4224 warps on an H200), so warps of faster SMs run ahead: the addresses
// in flight spread over a window that widens with the stream's length, and
// the kernel ends when its slowest warp does (the in-order schedule avoids
// both). 64 registers, no spills, 4 blocks of 256 threads per SM on sm_90.
//
// kBlockPerItemRun: the copy loop of the digest kernel (digest_kernel.cu,
// block_copy) on the work stream: each block owns a run of consecutive items
// (about 128 KiB, as one block of an 8-block cluster owns of a 1 MiB digest
// chunk) staged once in shared memory; the whole block copies four items at a
// time, thread t taking 16-byte vector t, t + 256, ... of each, so four
// vectors per thread are in flight and each load instruction of the block
// covers one contiguous piece; full rounds are straight-line, the last one
// predicated; loads are evict-first (ld.global.cs) and stores write-back, as
// in the digest kernel; the grid is one block per run (many waves, no
// grid-stride). Items split exactly as split_piece() says: head and tail
// bytes one per lane (lanes 0..15 and 16..31 of warp k for the group's k-th
// item), narrow bodies with the widest vector both ends allow, one per thread
// in flight. 64 registers, no spills, 4 KiB of shared memory, 4 blocks of 256
// threads per SM on sm_90.
//
// Header-only (kernels with internal linkage); include from one .cu file.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "core/base/status.h"
#include "core/snapshot/work_stream.h"
#include "cuda/kernels/copy_item.cuh"
#include "cuda/kernels/copy_kernel.h"
#include "cuda/kernels/runtime_status.h"
#include "cuda/kernels/warp_copy.cuh"

namespace rangereplay::bench::copy_variants {

using kernels::CopyDirection;
using kernels::CopyKernelArgs;
using kernels::kCopyBlockThreads;
using kernels::kCopyBlockWarps;
using kernels::piece_ends;
using kernels::PieceEnds;
using kernels::runtime_status;
using kernels::warp_copy::copy_head_tail;
using kernels::warp_copy::copy_piece;
using kernels::warp_copy::kWarpLanes;
using kernels::warp_copy::store_vector;

/// kBlockPerItemRun: items a block copies together (vectors in flight per thread).
inline constexpr std::uint32_t kBlockRunGroup = 4;
/// kBlockPerItemRun: bytes a block owns when pieces are full (one block of an
/// 8-block digest cluster over a 1 MiB chunk).
inline constexpr std::uint32_t kBlockRunBytes = 128 * 1024;
/// kBlockPerItemRun: most items a block stages in shared memory (16 bytes each).
inline constexpr std::uint32_t kBlockRunMaxItems = 256;

/// kBlockPerItemRun: items per block for pieces of `piece_bytes` (16..65536):
/// kBlockRunBytes / piece_bytes rounded up to a multiple of kBlockRunGroup,
/// clamped to [kBlockRunGroup, kBlockRunMaxItems]. 4 KiB pieces: 32 items.
constexpr std::uint32_t block_run_items(std::uint32_t piece_bytes) {
  const std::uint32_t piece = piece_bytes == 0 ? 1 : piece_bytes;
  std::uint32_t items = (kBlockRunBytes + piece - 1) / piece;
  items = (items + kBlockRunGroup - 1) / kBlockRunGroup * kBlockRunGroup;
  if (items < kBlockRunGroup) items = kBlockRunGroup;
  if (items > kBlockRunMaxItems) items = kBlockRunMaxItems;
  return items;
}

static_assert(block_run_items(16) == 256);  // 8192 clamped to the shared-memory table
static_assert(block_run_items(1024) == 128);
static_assert(block_run_items(4096) == 32);
static_assert(block_run_items(48 * 1024) == 4);  // 3 rounded up to a group
static_assert(block_run_items(65536) == 4);

namespace detail {

// ---- kWarpPerItem ----

// Grid-stride over items by warp; the next item's descriptor is loaded before
// the current piece is copied, so its latency hides behind the copy.
template <bool kStreaming>
__global__ void __launch_bounds__(kCopyBlockThreads, 4) warp_per_item_kernel(CopyKernelArgs args) {
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
__global__ void __launch_bounds__(kCopyBlockThreads, 4)
    block_run_kernel(CopyKernelArgs args, std::uint32_t items_per_block) {
  __shared__ uint4 s_items[kBlockRunMaxItems];
  const std::uint32_t tid = threadIdx.x;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * items_per_block;
  if (first >= args.item_count) return;  // the whole block
  const std::uint64_t left = args.item_count - first;
  const std::uint32_t count = left < items_per_block ? static_cast<std::uint32_t>(left) : items_per_block;
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

}  // namespace detail

/// kWarpPerItem: resident blocks per multiprocessor, from the occupancy API,
/// for the current context's device. Errors: kInternal when the runtime
/// cannot load the kernel.
inline StatusOr<int> warp_per_item_blocks_per_sm(bool streaming_cache_hints) {
  int blocks = 0;
  const cudaError_t error = streaming_cache_hints
                                ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                      &blocks, detail::warp_per_item_kernel<true>, kCopyBlockThreads, 0)
                                : cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                      &blocks, detail::warp_per_item_kernel<false>, kCopyBlockThreads, 0);
  RR_RETURN_IF_ERROR(runtime_status(error, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(warp_per_item_kernel)"));
  if (blocks < 1) return internal_error("warp_per_item_kernel cannot be resident on this device");
  return blocks;
}

/// kWarpPerItem: grid size in blocks, min(sm_count * blocks_per_sm,
/// ceil(item_count / kCopyBlockWarps)), at least 1.
inline int warp_per_item_grid(std::uint64_t item_count, int sm_count, int blocks_per_sm) {
  const std::uint64_t wave = static_cast<std::uint64_t>(std::max(sm_count, 1)) * std::max(blocks_per_sm, 1);
  const std::uint64_t needed = (item_count + kCopyBlockWarps - 1) / kCopyBlockWarps;
  return static_cast<int>(std::max<std::uint64_t>(1, std::min(wave, needed)));
}

/// kWarpPerItem on `stream` (asynchronous). A launch with item_count == 0
/// does nothing. Errors: kInvalidArgument for a grid under 1 block;
/// kInternal naming the runtime error if the launch is rejected.
inline Status launch_warp_per_item(const CopyKernelArgs& args, bool streaming_cache_hints, int grid_blocks,
                                   CUstream stream) {
  if (args.item_count == 0) return ok_status();
  if (grid_blocks < 1) {
    return invalid_argument("warp_per_item_kernel grid of " + std::to_string(grid_blocks) + " blocks");
  }
  cudaStream_t cuda_stream = stream;  // the same type as CUstream
  if (streaming_cache_hints) {
    detail::warp_per_item_kernel<true><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  } else {
    detail::warp_per_item_kernel<false><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  }
  return runtime_status(cudaGetLastError(), "warp_per_item_kernel launch");
}

/// kBlockPerItemRun: grid size in blocks, ceil(item_count / items_per_block),
/// at least 1. Errors: kInvalidArgument when items_per_block is 0 or not a
/// multiple of kBlockRunGroup or above kBlockRunMaxItems, or the grid
/// exceeds 2^31 - 1 blocks.
inline StatusOr<int> block_run_grid(std::uint64_t item_count, std::uint32_t items_per_block) {
  if (items_per_block == 0 || items_per_block % kBlockRunGroup != 0 || items_per_block > kBlockRunMaxItems) {
    return invalid_argument("block_run_kernel with " + std::to_string(items_per_block) +
                            " items per block (a multiple of " + std::to_string(kBlockRunGroup) + " up to " +
                            std::to_string(kBlockRunMaxItems) + ")");
  }
  const std::uint64_t blocks = (item_count + items_per_block - 1) / items_per_block;
  if (blocks > static_cast<std::uint64_t>(INT_MAX)) {
    return invalid_argument("block_run_kernel grid of " + std::to_string(blocks) + " blocks exceeds 2^31 - 1");
  }
  return static_cast<int>(std::max<std::uint64_t>(1, blocks));
}

/// kBlockPerItemRun on `stream` (asynchronous): block b copies items
/// [b * items_per_block, (b + 1) * items_per_block). Its loads are always
/// evict-first, as in the digest kernel; `streaming_cache_hints` makes its
/// stores evict-first too (st.global.cs; otherwise st.global.wb). A launch
/// with item_count == 0 does nothing. Errors: kInvalidArgument for a bad
/// items_per_block or a grid under block_run_grid's; kInternal naming the
/// runtime error if the launch is rejected.
inline Status launch_block_run(const CopyKernelArgs& args, std::uint32_t items_per_block, bool streaming_cache_hints,
                               int grid_blocks, CUstream stream) {
  if (args.item_count == 0) return ok_status();
  RR_ASSIGN_OR_RETURN(const int needed, block_run_grid(args.item_count, items_per_block));
  if (grid_blocks < needed) {
    return invalid_argument("block_run_kernel grid of " + std::to_string(grid_blocks) + " blocks, " +
                            std::to_string(needed) + " needed");
  }
  cudaStream_t cuda_stream = stream;  // the same type as CUstream
  if (streaming_cache_hints) {
    detail::block_run_kernel<true><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args, items_per_block);
  } else {
    detail::block_run_kernel<false><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args, items_per_block);
  }
  return runtime_status(cudaGetLastError(), "block_run_kernel launch");
}

}  // namespace rangereplay::bench::copy_variants
