// Host-side entry to the digest kernel (digest_kernel.cu): one kernel, three
// modes, over a chunk table (core/snapshot/digest/chunk_table.h) resident in device
// memory:
//   kDigest          digest every chunk of the application's memory;
//   kRestore         digest every chunk, compare with a reference digest
//                    (the entry snapshot's), and copy the chunk back from its
//                    snapshot copy only when they differ (differential restore);
//   kCaptureChanged  digest every chunk, compare with the entry digest, and
//                    copy only the changed chunks into an exit arena.
//
// Layout: one thread-block cluster per chunk (cluster_blocks = 1, 2, 4 or 8
// blocks of 256 threads, chosen by the caller). Devices before compute
// capability 9.0 have no clusters: there the kernel's sm_8x image gives each
// chunk one block, launched without the cluster attribute
// (core/snapshot/digest/cluster_blocks.h), and the block's own shared memory stands in
// for the cluster's. Block r of a cluster digests
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
// The in-order chunk copy (DigestCopyVariant::kWarpPerPieceInOrder): a second
// kernel, chunk_copy_kernel, copies the chunks a restore moves with the copy
// kernel's in-order warp-per-item schedule (copy_kernel.h) instead of the
// cluster's blocks: the chunks are cut into 4 KiB pieces, block b of the grid
// takes the (up to) 8 consecutive pieces of one chunk that ChunkCopyBlock b
// names, warp k piece k, with warp_copy.cuh's loop (eight 16-byte vectors per
// lane in flight), and exits. No grid-stride: the hardware hands blocks out in
// stream order as earlier ones retire, so the addresses in flight stay within
// the resident blocks' 32 KiB each and the grid ends within one block of the
// last piece. Each warp decides from its chunk's dirty flag (set by a
// kRestore launch with defer_copy just before, which digests, compares, flags
// and counts but copies nothing) or from trusted digests (digests_in !=
// reference, no other launch; the chunk's first block then writes the flag
// and counts, as a cluster does). A block whose chunk is not copied reads its
// entry and its chunk's descriptors and exits. Two dependent loads precede a
// piece's copy (its block's entry, then its chunk's descriptor and flag or
// digests), one more than the copy kernel's. Source loads take the read-only
// path, stores write back (the copy kernel's default).
//
// Users: DigestPlan (cuda/digest_plan.h). The kernel has internal linkage; the
// library is built with hidden visibility, so it never collides with an
// application's kernels.
// Thread-safety: the functions are stateless; launches are ordered by stream.
// Two launches sharing one DigestCounterState must not run concurrently.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "core/base/status.h"
#include "core/snapshot/digest/chunk_table.h"
#include "core/snapshot/digest/cluster_blocks.h"

namespace rangereplay::kernels {

enum class DigestKernelMode : std::uint8_t {
  kDigest,
  kRestore,
  kCaptureChanged,
};

/// How a restore copies the chunks it moves (both copy exactly the same bytes;
/// they differ only in speed).
enum class DigestCopyVariant : std::uint8_t {
  /// Each block of the chunk's cluster copies the slice it digested, four
  /// 16-byte vectors per thread in flight, in the digest launch itself.
  kClusterSlice,
  /// A second launch, chunk_copy_kernel: one warp per 4 KiB piece, one block
  /// per 8 consecutive pieces of a chunk, blocks in stream order (the copy
  /// kernel's in-order warp-per-item schedule).
  kWarpPerPieceInOrder,
};

/// The variant's name in snake case, for tests and benchmarks.
constexpr const char* copy_variant_name(DigestCopyVariant variant) {
  return variant == DigestCopyVariant::kClusterSlice ? "cluster_slice" : "warp_per_piece_in_order";
}

/// Threads per block of the digest kernel (and of chunk_copy_kernel).
inline constexpr int kDigestBlockThreads = 256;
/// chunk_copy_kernel: bytes per piece (one warp's work) and per block.
inline constexpr std::uint32_t kChunkCopyPieceBytes = 4096;
inline constexpr std::uint32_t kChunkCopyBlockPieces = kDigestBlockThreads / 32;
inline constexpr std::uint32_t kChunkCopyBlockBytes = kChunkCopyPieceBytes * kChunkCopyBlockPieces;
/// Largest cluster (the portable cluster size on sm_90).
inline constexpr std::uint32_t kMaxDigestClusterBlocks = ::rangereplay::kMaxDigestClusterBlocks;
/// Exit-arena slots are multiples of this many bytes (so a slot starts
/// 256-byte aligned when the arena does).
inline constexpr std::uint64_t kExitSlotAlignment = 256;

/// Totals of the last kRestore and kCaptureChanged launches (device memory,
/// 64 bytes). A kRestore launch (or a chunk copy launch with digests_in)
/// writes restored_* and digested_bytes; a kCaptureChanged launch writes captured_*,
/// capture_overflow_chunks and digested_bytes.
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
  /// kRestore only: decide, flag (dirty) and count the chunks to copy exactly
  /// as without it, but copy none of them: launch_chunk_copy_kernel (without
  /// digests_in) on the same stream does the copying. The clusters of
  /// predicted chunks (copy_predicted) then only count.
  bool defer_copy = false;
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
/// blocks per chunk (asynchronous; returns once queued). `clusters`: the
/// device has thread-block clusters (digest_uses_clusters of its compute
/// capability); without, cluster_blocks must be 1 and the launch carries no
/// cluster attribute. A launch with chunk_count == 0 does nothing.
/// Preconditions: the stream's context is current; every address is
/// device-accessible; a chunk's application bytes overlap no snapshot, slot
/// or other chunk; every chunk's bytes <= 2^31.
/// Errors: kInvalidArgument for a cluster size other than 1, 2, 4, 8 (other
/// than 1 without clusters), a grid above 2^31 - 1 blocks or a missing
/// required buffer; kInternal naming the runtime error if the launch is
/// rejected.
Status launch_digest_kernel(const DigestKernelArgs& args, std::uint32_t cluster_blocks, bool clusters, CUstream stream);

/// Launches chunk_copy_kernel on `stream` (asynchronous; returns once
/// queued) for the kRestore `args` (chunks, dirty, source_override; with
/// digests_in also reference, counters and state): `block_count` blocks of
/// kDigestBlockThreads threads, block b copying the up to
/// kChunkCopyBlockPieces 4 KiB pieces at blocks[b].offset of chunk
/// blocks[b].chunk, when that chunk is to be copied, from its source
/// (source_override[c] when non-zero, else its snapshot address) to its
/// application address. Chunk c is copied when
///   - digests_in is set: digests_in[c] != reference[c] (trusted digests, no
///     other launch); the launch also sets dirty[c] and publishes
///     DigestCounters as a kRestore launch does (digested_bytes = 0);
///   - else: dirty[c] != 0 (the flags a defer_copy launch just set); the
///     launch writes nothing but the application's memory.
/// `blocks`: block_count ChunkCopyBlocks (8 bytes each) from
/// ChunkTable::copy_blocks(kChunkCopyBlockBytes) of the same chunks. A launch
/// with block_count == 0 does nothing.
/// Preconditions: those of launch_digest_kernel; no launch sharing the
/// DigestCounterState runs concurrently.
/// Errors: kInvalidArgument for a mode other than kRestore, a missing
/// required buffer or more than 2^31 - 1 blocks; kInternal naming the runtime
/// error if the launch is rejected.
Status launch_chunk_copy_kernel(const DigestKernelArgs& args, CUdeviceptr blocks, std::uint32_t block_count,
                                CUstream stream);

/// Clusters of `cluster_blocks` blocks that fit on the current device at
/// once (cudaOccupancyMaxActiveClusters), for reports.
/// Errors: kInternal when the runtime cannot query it (also on a device
/// without thread-block clusters).
StatusOr<int> digest_kernel_max_active_clusters(std::uint32_t cluster_blocks);

}  // namespace rangereplay::kernels
