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
};

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

}  // namespace rangereplay::kernels
