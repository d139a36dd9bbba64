// Host-side entry to the digest kernel (digest_kernel.cu): one kernel, three
// modes, over a chunk table (core/digest/chunk_table.h) resident in device
// memory:
//   kDigest          digest every chunk of the application's memory;
//   kRestore         digest every chunk, compare with a reference digest
//                    (the entry snapshot's), and copy the chunk back from its
//                    snapshot copy only when they differ (differential restore);
//   kCaptureChanged  digest every chunk, compare with the entry digest, and
//                    copy only the changed chunks into an exit arena.
//
// Layout: one thread-block cluster per chunk (cluster_blocks = 1, 2, 4 or 8
// blocks of 256 threads, chosen by the caller). Block r of a cluster digests
// the r-th of cluster_blocks equal word ranges of the chunk with 16-byte loads,
// six in flight per thread (64 registers, 4 blocks per SM); the blocks' partial sums meet in distributed
// shared memory, every block finishes the same digest, and, when the chunk is
// to be copied, each block copies the bytes it digested. No block ever
// searches for its chunk, every chunk is read once, and the decision to copy
// needs no second launch. Chunk starts that are not 16-byte aligned use the
// widest loads their alignment allows (8, 4, 2 or 1 bytes, slower); the last
// partial word of a chunk is read byte by byte.
//
// Counters: the last cluster to finish a kRestore or kCaptureChanged launch
// moves the launch's totals into DigestCounters and zeroes the accumulators,
// so consecutive launches need no memset between them.
//
// Users: DigestPlan (cuda/digest_plan.h). The kernel has internal linkage; the
// library is built with hidden visibility, so it never collides with an
// application's kernels.
// Thread-safety: the functions are stateless; launches are ordered by stream.
// Two launches sharing one DigestCounterState must not run concurrently.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "core/digest/chunk_table.h"
#include "core/status.h"

namespace rangereplay::kernels {

enum class DigestKernelMode : std::uint8_t {
  kDigest,
  kRestore,
  kCaptureChanged,
};

/// Threads per block of the digest kernel.
inline constexpr int kDigestBlockThreads = 256;
/// Largest cluster (the portable cluster size on sm_90).
inline constexpr std::uint32_t kMaxDigestClusterBlocks = 8;
/// Exit-arena slots are multiples of this many bytes (so a slot starts
/// 256-byte aligned when the arena does).
inline constexpr std::uint64_t kExitSlotAlignment = 256;

/// Totals of the last kRestore and kCaptureChanged launches (device memory,
/// 64 bytes). A kRestore launch writes restored_* and digested_bytes; a
/// kCaptureChanged launch writes captured_*, capture_overflow_chunks and
/// digested_bytes.
struct DigestCounters {
  std::uint64_t restored_bytes = 0;  // bytes copied snapshot -> application
  std::uint64_t restored_chunks = 0;
  std::uint64_t digested_bytes = 0;  // application bytes read to digest
  std::uint64_t captured_bytes = 0;  // bytes copied application -> exit arena
  std::uint64_t captured_chunks = 0;
  std::uint64_t capture_overflow_chunks = 0;  // changed chunks that did not fit the exit arena
  std::uint64_t reserved[2] = {};
};
static_assert(sizeof(DigestCounters) == 64);

/// The kernel's accumulators (device memory, 64 bytes, zero before the first
/// launch; the last cluster of each launch zeroes them again).
struct DigestCounterState {
  unsigned long long bytes = 0;
  unsigned long long chunks = 0;
  unsigned long long digested = 0;
  unsigned long long overflow = 0;
  unsigned long long cursor = 0;  // next free byte of the exit arena
  unsigned int done_clusters = 0;
  unsigned int pad = 0;
  unsigned long long reserved[2] = {};
};
static_assert(sizeof(DigestCounterState) == 64);

/// The kernel's arguments (passed by value). Addresses are device addresses
/// in the current context; 0 means "absent" where allowed.
struct DigestKernelArgs {
  DigestKernelMode mode = DigestKernelMode::kDigest;
  /// chunk_count DigestChunkDescriptors (24 bytes each, 8-byte aligned).
  CUdeviceptr chunks = 0;
  std::uint32_t chunk_count = 0;
  /// kRestore/kCaptureChanged: one uint64 digest per chunk to compare with.
  CUdeviceptr reference = 0;
  /// kRestore only: when set, these digests (one per chunk, e.g. from an
  /// earlier kDigest launch on unchanged memory) are trusted as the current
  /// ones and the application's memory is not read at all.
  CUdeviceptr digests_in = 0;
  /// One uint64 per chunk: the digest computed this launch (kDigest:
  /// required; kRestore: optional, written for digested chunks only;
  /// kCaptureChanged: optional, the exit digests).
  CUdeviceptr digests_out = 0;
  /// kRestore: one uint64 per chunk, the device address to copy a changed
  /// chunk from instead of its snapshot_address when non-zero (the exit
  /// arena slot from kCaptureChanged). 0: always the snapshot address.
  CUdeviceptr source_override = 0;
  /// kRestore/kCaptureChanged: one byte per chunk, set to 1 when the chunk
  /// was copied (or found changed), else 0. With copy_predicted, it is also
  /// read first: chunks flagged 1 are copied without being digested.
  CUdeviceptr dirty = 0;
  bool copy_predicted = false;
  /// kCaptureChanged: one uint64 per chunk, set to the exit-arena address of
  /// the chunk's copy, or 0 when the chunk did not change (or overflowed).
  CUdeviceptr exit_locations = 0;
  CUdeviceptr exit_arena = 0;
  std::uint64_t exit_arena_bytes = 0;
  /// kRestore/kCaptureChanged: a DigestCounters and a DigestCounterState.
  CUdeviceptr counters = 0;
  CUdeviceptr state = 0;
};

/// Launches the kernel on `stream` with one cluster of `cluster_blocks`
/// blocks per chunk (asynchronous; returns once queued). A launch with
/// chunk_count == 0 does nothing.
/// Preconditions: the stream's context is current; every address is
/// device-accessible; a chunk's application bytes overlap no snapshot, slot
/// or other chunk; every chunk's bytes <= 2^31.
/// Errors: kInvalidArgument for a cluster size other than 1, 2, 4, 8, a grid
/// above 2^31 - 1 blocks or a missing required buffer; kInternal naming the
/// runtime error if the launch is rejected.
Status launch_digest_kernel(const DigestKernelArgs& args, std::uint32_t cluster_blocks, CUstream stream);

/// Clusters of `cluster_blocks` blocks that fit on the current device at
/// once (cudaOccupancyMaxActiveClusters), for reports.
/// Errors: kInternal when the runtime cannot query it.
StatusOr<int> digest_kernel_max_active_clusters(std::uint32_t cluster_blocks);

}  // namespace rangereplay::kernels
