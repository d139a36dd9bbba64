// ChunkTable: regions cut into fixed-size digest chunks, the unit the GPU digest
// kernel hashes, compares and (in differential restore) copies back.
//
// Every region (a MemoryRange of the application's memory) is cut into chunks
// of `chunk_bytes` bytes (1 MiB by default) starting at the region's first
// byte; a region's tail is one short chunk; a 1-byte region is one 1-byte
// chunk; an empty region has no chunks but keeps its index. Chunks never
// straddle regions, so a chunk's bytes are contiguous in the application and
// in the region's snapshot copy alike.
//
//   const MemoryRange regions[] = {{DevicePtr(a), 3 * kMiB + 5}, {DevicePtr(b), 0}, {DevicePtr(c), 1}};
//   RR_ASSIGN_OR_RETURN(ChunkTable table, ChunkTable::build(regions));
//   // chunks: {0, 0, 1M} {0, 1M, 1M} {0, 2M, 1M} {0, 3M, 5} {2, 0, 1}   (region, offset, bytes)
//   RR_ASSIGN_OR_RETURN(auto descriptors, table.descriptors(snapshot_starts));  // for the GPU
//
// Digests are compared only inside one process and never persisted, so the
// chunking (like the hash, core/snapshot/digest/chunk_digest.h) may change freely.
// No CUDA here: tested without a GPU.
// Thread-safety: a built table is an immutable value.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/base/memory_range.h"
#include "core/base/status.h"

namespace rangereplay {

/// Default chunk size: 1 MiB.
inline constexpr std::uint64_t kDefaultDigestChunkBytes = std::uint64_t{1} << 20;
/// Largest chunk size: 2^31 bytes (a chunk's length and word index fit 32 bits).
inline constexpr std::uint64_t kMaxDigestChunkBytes = std::uint64_t{1} << 31;
/// Chunk sizes are multiples of this, so every chunk of a region has the
/// region's alignment modulo 16 (the kernel's 16-byte loads).
inline constexpr std::uint64_t kDigestChunkGranule = 16;

/// One chunk: `bytes` bytes at `offset` in region `region`.
struct DigestChunk {
  std::uint32_t region = 0;
  std::uint32_t bytes = 0;  // 1..chunk_bytes
  std::uint64_t offset = 0;
  friend constexpr bool operator==(const DigestChunk&, const DigestChunk&) = default;
};

/// What the GPU kernels read per chunk (24 bytes, 8-byte aligned, in device
/// memory): both addresses of the chunk's first byte. `snapshot_address` is
/// device-accessible (a device arena, or the device pointer of mapped pinned
/// host memory), 0 when the region has no snapshot (digest-only plans).
struct DigestChunkDescriptor {
  std::uint64_t app_address = 0;
  std::uint64_t snapshot_address = 0;
  std::uint32_t bytes = 0;
  std::uint32_t region = 0;
  friend constexpr bool operator==(const DigestChunkDescriptor&, const DigestChunkDescriptor&) = default;
};
static_assert(sizeof(DigestChunkDescriptor) == 24, "the kernel indexes descriptors in 24-byte steps");

/// One block of the GPU's in-order chunk copy (cuda/kernels/digest_kernel.h,
/// chunk_copy_kernel; 8 bytes, in device memory): the block's bytes start
/// `offset` bytes into chunk `chunk`.
struct ChunkCopyBlock {
  std::uint32_t chunk = 0;
  std::uint32_t offset = 0;  // a multiple of the block size, below the chunk's bytes
  friend constexpr bool operator==(const ChunkCopyBlock&, const ChunkCopyBlock&) = default;
};
static_assert(sizeof(ChunkCopyBlock) == 8, "the kernel indexes blocks in 8-byte steps");

class ChunkTable {
 public:
  ChunkTable() = default;

  /// Cuts `regions` into chunks of `chunk_bytes` bytes.
  /// Errors: kInvalidArgument when chunk_bytes is 0, not a multiple of 16 or
  /// above 2^31; kOutOfRange when there are 2^32 or more regions or chunks.
  static StatusOr<ChunkTable> build(std::span<const MemoryRange> regions,
                                    std::uint64_t chunk_bytes = kDefaultDigestChunkBytes);

  std::uint64_t chunk_bytes() const { return chunk_bytes_; }
  const std::vector<MemoryRange>& regions() const { return regions_; }
  const std::vector<DigestChunk>& chunks() const { return chunks_; }
  std::size_t chunk_count() const { return chunks_.size(); }
  /// Sum of all regions' sizes in bytes (= sum of all chunks' bytes).
  std::uint64_t total_bytes() const { return total_bytes_; }
  /// Index of region `region`'s first chunk; its chunks are
  /// [first_chunk(r), first_chunk(r + 1)). Valid for r in [0, regions].
  std::uint32_t first_chunk(std::uint32_t region) const { return first_chunk_[region]; }
  /// The chunks of one region (empty for an empty region).
  std::span<const DigestChunk> region_chunks(std::uint32_t region) const;
  /// The application address of chunk `c`'s first byte.
  DevicePtr app_address(std::size_t c) const;

  /// The chunks' GPU descriptors. `snapshot_starts` is empty (no snapshot:
  /// snapshot_address 0) or holds, per region, the device-accessible address
  /// of the copy of the region's first byte (a chunk's snapshot address is
  /// that plus the chunk's offset; a null start gives 0 for that region).
  /// A region split over two arenas is passed as two regions.
  /// Errors: kInvalidArgument when snapshot_starts has another size.
  StatusOr<std::vector<DigestChunkDescriptor>> descriptors(std::span<const DevicePtr> snapshot_starts) const;

  /// The chunks cut into blocks of `block_bytes` bytes for the in-order chunk
  /// copy, in chunk order: chunk c gives ceil(bytes / block_bytes) blocks at
  /// offsets 0, block_bytes, ..., the last one short when block_bytes does not
  /// divide its bytes. No block straddles two chunks.
  /// Errors: kInvalidArgument when block_bytes is 0 or not a multiple of 16;
  /// kOutOfRange above 2^31 - 1 blocks (one grid).
  StatusOr<std::vector<ChunkCopyBlock>> copy_blocks(std::uint32_t block_bytes) const;

  /// Per region, combine_chunk_digests() of its chunks' digests (one per chunk,
  /// in chunk order). An empty region's digest is combine_chunk_digests({}, 0).
  /// Precondition (asserted): chunk_digests.size() == chunk_count().
  std::vector<std::uint64_t> region_digests(std::span<const std::uint64_t> chunk_digests) const;
  /// Indices of the regions with at least one chunk whose digest differs
  /// between `a` and `b` (both one per chunk), ascending.
  std::vector<std::uint32_t> differing_regions(std::span<const std::uint64_t> a,
                                               std::span<const std::uint64_t> b) const;

 private:
  std::uint64_t chunk_bytes_ = kDefaultDigestChunkBytes;
  std::uint64_t total_bytes_ = 0;
  std::vector<MemoryRange> regions_;
  std::vector<DigestChunk> chunks_;
  std::vector<std::uint32_t> first_chunk_ = {0};  // regions + 1 entries
};

}  // namespace rangereplay
