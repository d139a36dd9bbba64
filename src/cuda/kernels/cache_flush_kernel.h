// Host-side entry to the L2 flush kernels (cache_flush_kernel.cu): every
// thread reads 16-byte vectors of a buffer larger than the L2 cache with
// grid-stride loads that allocate in L2 (plain global loads), and folds them
// into one word per block, written to `sink` only if it equals a value the
// host passes (so the loads cannot be dropped, and the flush itself leaves
// no dirty line behind unless a block's fold happens to equal it).
// Reading a buffer of (at least) twice the L2's size evicts every line the
// range's data held: dirty lines are written back during the flush, and what is left in
// L2 afterwards is the buffer's clean lines, which cause no write-back later.
// With `discard`, a second kernel then drops those lines (PTX
// discard.global.L2, 128-byte lines, no write-back), so that the L2 is left
// (almost) empty, as a driver's invalidation leaves it: the range's lines
// then fill free ways instead of replacing the buffer's lines, where the
// choice of victims differs from pass to pass. The buffer's contents are
// indeterminate afterwards. Of the application's memory nothing is written;
// the kernels write `sink` (kCacheFlushBlocks words) and, by discarding, the
// buffer. Lines the
// application made persisting (cudaLimitPersistingL2CacheSize with an access
// policy window) are not evicted by normal loads and may survive a flush.
//
// Users: CacheFlush (cuda/cache_flush.h). Internal linkage, hidden
// visibility (as the copy and digest kernels).
// Thread-safety: stateless; launches are ordered by stream.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "core/status.h"

namespace rangereplay::kernels {

/// Blocks of the flush launch: the words `sink` must hold.
inline constexpr std::uint32_t kCacheFlushBlocks = 1024;

/// Reads `bytes` (a multiple of 128) at `buffer` (128-byte aligned, device
/// memory) on `stream`, writing kCacheFlushBlocks words to `sink`, then,
/// with `discard` (devices of compute capability 8.0 and later), discards
/// the buffer's lines from L2: one kernel launch, or two with `discard`.
/// Errors: internal with the runtime's error when a launch fails.
Status launch_l2_flush(CUdeviceptr buffer, std::size_t bytes, CUdeviceptr sink, bool discard, CUstream stream);

}  // namespace rangereplay::kernels
