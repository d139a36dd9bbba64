// Host-side entry to the batched copy kernel (copy_kernel.cu): one kernel for
// capture (regions -> arena) and restore (arena -> regions) that consumes a
// work stream (core/snapshot/work_stream.h) resident in device memory.
//
// One warp copies one item, and the grid covers the whole stream: block b
// takes items [8b, 8b + 8), one per warp, with no grid-stride loop, so the
// hardware block scheduler hands blocks, and with them items, out in stream
// order as earlier blocks retire, as for a memcpy kernel's grid: the window of
// addresses in flight stays about the resident blocks' items (528 x 32 KiB on
// an H200) and the grid ends within one block of the last item. A piece
// moves with 16-byte vectors, eight per lane in flight (a 4 KiB piece is one
// round; warp_copy.cuh); items whose application address and arena address
// differ modulo 16 use the widest vector both allow (8, 4, 2 or 1 bytes, one
// per lane in flight: a slow path planners avoid by keeping arena offsets
// congruent to application addresses), and head and tail bytes go one byte
// per lane (split_piece in core/snapshot/work_stream.h). Each warp loads its item's
// descriptor on the critical path. 64 registers, no spills, 4 blocks of 256
// threads per SM on sm_90 (in_order_*: the names say blocks take items in
// stream order). The schedules it was timed against (a grid-stride
// wave, and the digest kernel's block-per-run loop) are in
// bench/copy_kernel_variants.cuh, for bench/copy_bench.
//
// Users: CopyPlan (cuda/copy_plan.h), for device arenas and for pinned arenas
// copied through their mapped pointers. The kernel has internal linkage; the
// library is built with hidden visibility, so it never collides with an
// application's kernels.
// Thread-safety: the functions are stateless; launches are ordered by stream.
#pragma once

#include <cuda.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "core/base/status.h"
#include "core/snapshot/work_stream.h"

namespace rangereplay::kernels {

enum class CopyDirection : std::uint8_t {
  kCapture,  // application regions -> arena
  kRestore,  // arena -> application regions
};

/// Threads per block of the copy kernel.
inline constexpr int kCopyBlockThreads = 256;
/// Warps per block.
inline constexpr int kCopyBlockWarps = kCopyBlockThreads / 32;

/// The kernel's arguments (passed by value as its one parameter).
struct CopyKernelArgs {
  CUdeviceptr items = 0;  // item_count WorkItems in device memory, 16-byte aligned
  std::uint64_t item_count = 0;
  /// Device-visible address of byte 0 of each arena slot's arena (device
  /// memory, or the device pointer of mapped pinned host memory).
  CUdeviceptr arena_base[kMaxArenaSlots] = {};
  CopyDirection direction = CopyDirection::kRestore;
};

/// Blocks covering `item_count` items, one item per warp:
/// ceil(item_count / kCopyBlockWarps) (0 for 0 items).
constexpr std::uint64_t in_order_blocks(std::uint64_t item_count) {
  return item_count / kCopyBlockWarps + (item_count % kCopyBlockWarps != 0 ? 1 : 0);
}

/// Grid size in blocks, in_order_blocks(item_count), at least 1.
/// Errors: kInvalidArgument when the grid exceeds 2^31 - 1 blocks (over 2^34 items).
inline StatusOr<int> in_order_grid(std::uint64_t item_count) {
  const std::uint64_t blocks = in_order_blocks(item_count);
  if (blocks > static_cast<std::uint64_t>(INT_MAX)) {
    return invalid_argument("copy_in_order_kernel grid of " + std::to_string(blocks) + " blocks exceeds 2^31 - 1");
  }
  return static_cast<int>(std::max<std::uint64_t>(1, blocks));
}

/// Launches the kernel on `stream` (asynchronous; returns after the launch is
/// queued), grid from in_order_grid(args.item_count). `streaming_cache_hints`
/// selects the kernel whose loads and stores are marked evict-first
/// (ld.global.cs / st.global.cs). A launch with item_count == 0 does nothing.
/// Preconditions: the stream's context is current; items and arenas are
/// device-accessible in it; no application region overlaps an arena.
/// Errors: kInvalidArgument for grid_blocks other than in_order_grid's (or a
/// stream too long for one grid); kInternal naming the runtime error if the
/// launch is rejected.
Status launch_copy_kernel_in_order(const CopyKernelArgs& args, bool streaming_cache_hints, int grid_blocks,
                                   CUstream stream);

}  // namespace rangereplay::kernels
