// Host-side entry to the L2 flush kernel (cache_flush_kernel.cu): every
// thread reads 16-byte vectors of a buffer larger than the L2 cache with
// grid-stride loads that allocate in L2 (plain global loads), and folds them
// into one word per block, written to `sink` only if it equals a value the
// host passes (so the loads cannot be dropped, and the flush itself leaves
// no dirty line behind unless a block's fold happens to equal it).
// Reading a buffer of twice the L2's size evicts every line the range's data
// held: dirty lines are written back during the flush, and what is left in
// L2 afterwards is the buffer's clean lines, which cause no write-back later.
// The kernel writes at most `sink` (kCacheFlushBlocks words). Lines the
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

#include "core/base/status.h"

namespace rangereplay::kernels {

/// Blocks of the flush launch: the words `sink` must hold.
inline constexpr std::uint32_t kCacheFlushBlocks = 1024;

/// Reads `bytes` (a multiple of 16) at `buffer` (16-byte aligned, device
/// memory) on `stream`, writing kCacheFlushBlocks words to `sink`. Errors:
/// internal with the runtime's error when the launch fails.
Status launch_l2_flush(CUdeviceptr buffer, std::size_t bytes, CUdeviceptr sink, CUstream stream);

}  // namespace rangereplay::kernels
