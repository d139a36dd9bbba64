// Host-side entry to the batched copy kernel (copy_kernel.cu): one kernel for
// capture (regions -> arena) and restore (arena -> regions) that consumes a
// work stream (core/work_stream.h) resident in device memory.
//
// Each warp takes whole items, grid-stride over the stream (item i goes to
// warp i mod warps), so every warp gets the same number of equal pieces and
// no thread searches for its region. A piece moves with 16-byte vectors, eight
// per lane in flight (a 4 KiB piece is one round); items whose application
// address and arena address differ modulo 16 use the widest vector both allow
// (8, 4, 2 or 1 bytes, one per lane in flight: a slow path planners avoid by
// keeping arena offsets congruent to application addresses), and head and
// tail bytes go one byte per lane (split_piece in core/work_stream.h).
// 64 registers, no spills, 4 blocks of 256 threads per SM on sm_90.
// The grid is one resident wave: multiprocessors x resident blocks per SM,
// capped by the number of items.
//
// A second variant, kBlockPerItemRun, ports the copy loop of the digest
// kernel (digest_kernel.cu, block_copy) onto the same work stream, to be
// timed against this one by bench/copy_bench (the "var" columns): each block
// owns a run of consecutive items (about 128 KiB, as one block of an 8-block
// cluster owns of a 1 MiB digest chunk) staged once in shared memory; the
// whole block copies four items at a time, thread t taking 16-byte vector t,
// t + 256, ... of each, so four vectors per thread are in flight and each
// load instruction of the block covers one contiguous piece; full rounds are
// straight-line, the last one predicated; loads are evict-first (ld.global.cs)
// and stores write-back, as in the digest kernel; the grid is one block per
// run (many waves, no grid-stride). Items split exactly as split_piece()
// says: head and tail bytes one per lane (lanes 0..15 and 16..31 of warp k
// for the group's k-th item), narrow bodies with the widest vector both ends
// allow, one per thread in flight. 64 registers, no spills, 4 KiB of shared
// memory, 4 blocks of 256 threads per SM on sm_90.
//
// A third variant, kWarpPerItemInOrder, keeps kWarpPerItem's copy loop (one
// warp per item, the same decoding and copy_piece, eight 16-byte vectors per
// lane in flight) but not its schedule: the grid covers the whole stream,
// block b taking items [8b, 8b + 8), one per warp, with no grid-stride loop.
// kWarpPerItem's one resident wave gives warp w the fixed items w, w + W, ...
// (W = 4224 warps on an H200), so warps of faster SMs can run ahead: the
// addresses in flight then spread over a window of the arena and of the
// application's memory that widens with the stream's length, and the kernel
// ends when its slowest warp does while the others idle (suspected causes of
// restore at 1.06-1.085x the floor, the ratio growing with size). Here the
// hardware block scheduler hands blocks, and with them items, out in stream
// order as earlier blocks retire, as for a memcpy kernel's grid: the window in
// flight stays about the resident blocks' items (528 x 32 KiB on an H200) and
// the grid ends within one block of the last item. The price: one descriptor
// load per item on the critical path (kWarpPerItem prefetches the next one).
// 64 registers, no spills, 4 blocks of 256 threads per SM on sm_90.
//
// Users: CopyPlan (cuda/copy_plan.h). The kernel has internal linkage; the
// library is built with hidden visibility, so it never collides with an
// application's kernels.
// Thread-safety: the functions are stateless; launches are ordered by stream.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "core/status.h"
#include "core/work_stream.h"

namespace rangereplay::kernels {

enum class CopyDirection : std::uint8_t {
  kCapture,  // application regions -> arena
  kRestore,  // arena -> application regions
};

/// Which copy loop consumes the work stream (both copy every item exactly as
/// split_piece() says; they differ only in speed).
enum class CopyKernelVariant : std::uint8_t {
  kWarpPerItem,         // one warp per item, eight vectors per lane in flight, one resident wave
  kBlockPerItemRun,     // the digest kernel's copy loop: a block per run of items, four vectors per thread
  kWarpPerItemInOrder,  // kWarpPerItem's copy loop, grid over the whole stream, items in stream order (the default)
};

/// Threads per block of the copy kernel.
inline constexpr int kCopyBlockThreads = 256;
/// Warps per block.
inline constexpr int kCopyBlockWarps = kCopyBlockThreads / 32;

/// The kernel's arguments (passed by value as its one parameter).
struct CopyKernelArgs {
  CUdeviceptr items = 0;          // item_count WorkItems in device memory, 16-byte aligned
  std::uint64_t item_count = 0;
  /// Device-visible address of byte 0 of each arena slot's arena (device
  /// memory, or the device pointer of mapped pinned host memory).
  CUdeviceptr arena_base[kMaxArenaSlots] = {};
  CopyDirection direction = CopyDirection::kRestore;
  /// kBlockPerItemRun only: items per block, from block_run_items(); block b
  /// copies items [b * items_per_block, (b + 1) * items_per_block).
  std::uint32_t items_per_block = 0;
};

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

/// kBlockPerItemRun: grid size in blocks, ceil(item_count / items_per_block).
/// Errors: kInvalidArgument when items_per_block is 0 or not a multiple of
/// kBlockRunGroup or above kBlockRunMaxItems, or the grid exceeds 2^31 - 1 blocks.
StatusOr<int> block_run_grid(std::uint64_t item_count, std::uint32_t items_per_block);

/// kWarpPerItemInOrder: blocks covering `item_count` items, one item per warp:
/// ceil(item_count / kCopyBlockWarps) (0 for 0 items).
constexpr std::uint64_t in_order_blocks(std::uint64_t item_count) {
  return item_count / kCopyBlockWarps + (item_count % kCopyBlockWarps != 0 ? 1 : 0);
}

/// kWarpPerItemInOrder: grid size in blocks, in_order_blocks(item_count), at least 1.
/// Errors: kInvalidArgument when the grid exceeds 2^31 - 1 blocks (over 2^34 items).
StatusOr<int> in_order_grid(std::uint64_t item_count);

/// Resident blocks per multiprocessor of the kernel variant, from the
/// occupancy API, for the current context's device.
/// Errors: kInternal when the runtime cannot load the kernel (e.g. no sm_90
/// compatible device).
StatusOr<int> copy_kernel_blocks_per_sm(bool streaming_cache_hints);

/// Grid size in blocks: min(sm_count * blocks_per_sm, ceil(item_count /
/// kCopyBlockWarps)), at least 1.
int copy_kernel_grid(std::uint64_t item_count, int sm_count, int blocks_per_sm);

/// Launches the kernel on `stream` (asynchronous; returns after the launch is
/// queued). `streaming_cache_hints` selects the variant whose loads and stores
/// are marked evict-first (ld.global.cs / st.global.cs). A launch with
/// item_count == 0 does nothing.
/// Preconditions: the stream's context is current; items and arenas are
/// device-accessible in it; no application region overlaps an arena.
/// Errors: kInternal naming the runtime error if the launch is rejected.
Status launch_copy_kernel(const CopyKernelArgs& args, bool streaming_cache_hints, int grid_blocks,
                          CUstream stream);

/// Launches the kBlockPerItemRun variant on `stream` (asynchronous), grid from
/// block_run_grid(args.item_count, args.items_per_block). Its loads are always
/// evict-first, as in the digest kernel; `streaming_cache_hints` makes its
/// stores evict-first too (st.global.cs; otherwise st.global.wb). A launch
/// with item_count == 0 does nothing.
/// Preconditions: those of launch_copy_kernel.
/// Errors: kInvalidArgument for a bad items_per_block or grid_blocks other than
/// block_run_grid's; kInternal naming the runtime error if the launch is rejected.
Status launch_copy_kernel_block_run(const CopyKernelArgs& args, bool streaming_cache_hints, int grid_blocks,
                                    CUstream stream);

/// Launches the kWarpPerItemInOrder variant on `stream` (asynchronous), grid
/// from in_order_grid(args.item_count). `streaming_cache_hints` as for
/// launch_copy_kernel. A launch with item_count == 0 does nothing.
/// Preconditions: those of launch_copy_kernel.
/// Errors: kInvalidArgument for grid_blocks other than in_order_grid's (or a
/// stream too long for one grid); kInternal naming the runtime error if the
/// launch is rejected.
Status launch_copy_kernel_in_order(const CopyKernelArgs& args, bool streaming_cache_hints, int grid_blocks,
                                   CUstream stream);

}  // namespace rangereplay::kernels
