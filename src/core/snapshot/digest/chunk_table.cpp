// ChunkTable: chunking of regions and the chunks' GPU descriptors (see chunk_table.h).
#include "core/snapshot/digest/chunk_table.h"

#include <cassert>
#include <limits>
#include <string>

#include "core/snapshot/digest/chunk_digest.h"

namespace rangereplay {

StatusOr<ChunkTable> ChunkTable::build(std::span<const MemoryRange> regions, std::uint64_t chunk_bytes) {
  if (chunk_bytes == 0 || chunk_bytes % kDigestChunkGranule != 0 || chunk_bytes > kMaxDigestChunkBytes) {
    return invalid_argument("digest chunk size " + std::to_string(chunk_bytes) +
                            " is not a multiple of 16 in [16, 2^31] bytes");
  }
  constexpr std::uint64_t kMaxIndex = std::numeric_limits<std::uint32_t>::max();
  if (regions.size() >= kMaxIndex) {
    return out_of_range(std::to_string(regions.size()) + " regions: at most 2^32 - 2 can be chunked");
  }
  std::uint64_t chunk_count = 0;
  for (const MemoryRange& r : regions) chunk_count += (r.size() + chunk_bytes - 1) / chunk_bytes;
  if (chunk_count >= kMaxIndex) {
    return out_of_range(std::to_string(chunk_count) + " digest chunks: at most 2^32 - 2 (use larger chunks)");
  }

  ChunkTable table;
  table.chunk_bytes_ = chunk_bytes;
  table.regions_.assign(regions.begin(), regions.end());
  table.chunks_.reserve(static_cast<std::size_t>(chunk_count));
  table.first_chunk_.clear();
  table.first_chunk_.reserve(regions.size() + 1);
  for (std::size_t r = 0; r < regions.size(); ++r) {
    table.first_chunk_.push_back(static_cast<std::uint32_t>(table.chunks_.size()));
    const std::uint64_t size = regions[r].size();
    for (std::uint64_t offset = 0; offset < size; offset += chunk_bytes) {
      const std::uint64_t bytes = size - offset < chunk_bytes ? size - offset : chunk_bytes;
      table.chunks_.push_back({static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(bytes), offset});
    }
    table.total_bytes_ += size;
  }
  table.first_chunk_.push_back(static_cast<std::uint32_t>(table.chunks_.size()));
  return table;
}

std::span<const DigestChunk> ChunkTable::region_chunks(std::uint32_t region) const {
  assert(region + 1 < first_chunk_.size());
  return std::span<const DigestChunk>(chunks_).subspan(first_chunk_[region],
                                                       first_chunk_[region + 1] - first_chunk_[region]);
}

DevicePtr ChunkTable::app_address(std::size_t c) const {
  const DigestChunk& chunk = chunks_[c];
  return regions_[chunk.region].start() + chunk.offset;
}

StatusOr<std::vector<DigestChunkDescriptor>> ChunkTable::descriptors(std::span<const DevicePtr> snapshot_starts) const {
  if (!snapshot_starts.empty() && snapshot_starts.size() != regions_.size()) {
    return invalid_argument(std::to_string(snapshot_starts.size()) + " snapshot addresses for " +
                            std::to_string(regions_.size()) + " regions");
  }
  std::vector<DigestChunkDescriptor> out;
  out.reserve(chunks_.size());
  for (const DigestChunk& chunk : chunks_) {
    DigestChunkDescriptor d;
    d.app_address = regions_[chunk.region].start().address() + chunk.offset;
    if (!snapshot_starts.empty() && !snapshot_starts[chunk.region].is_null()) {
      d.snapshot_address = snapshot_starts[chunk.region].address() + chunk.offset;
    }
    d.bytes = chunk.bytes;
    d.region = chunk.region;
    out.push_back(d);
  }
  return out;
}

StatusOr<std::vector<ChunkCopyBlock>> ChunkTable::copy_blocks(std::uint32_t block_bytes) const {
  if (block_bytes == 0 || block_bytes % kDigestChunkGranule != 0) {
    return invalid_argument("copy block of " + std::to_string(block_bytes) + " bytes (a positive multiple of 16)");
  }
  std::uint64_t count = 0;
  for (const DigestChunk& chunk : chunks_) count += (std::uint64_t{chunk.bytes} + block_bytes - 1) / block_bytes;
  constexpr std::uint64_t kMaxGrid = std::numeric_limits<std::int32_t>::max();
  if (count > kMaxGrid) {
    return out_of_range(std::to_string(count) + " copy blocks exceed one grid (2^31 - 1; use larger blocks)");
  }
  std::vector<ChunkCopyBlock> out;
  out.reserve(count);
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    // chunk bytes <= 2^31, so every offset fits 32 bits.
    for (std::uint64_t offset = 0; offset < chunks_[c].bytes; offset += block_bytes) {
      out.push_back(ChunkCopyBlock{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(offset)});
    }
  }
  return out;
}

std::vector<std::uint64_t> ChunkTable::region_digests(std::span<const std::uint64_t> chunk_digests) const {
  assert(chunk_digests.size() == chunks_.size());
  std::vector<std::uint64_t> out;
  out.reserve(regions_.size());
  for (std::size_t r = 0; r < regions_.size(); ++r) {
    out.push_back(combine_chunk_digests(chunk_digests.subspan(first_chunk_[r], first_chunk_[r + 1] - first_chunk_[r]),
                                        regions_[r].size()));
  }
  return out;
}

std::vector<std::uint32_t> ChunkTable::differing_regions(std::span<const std::uint64_t> a,
                                                         std::span<const std::uint64_t> b) const {
  assert(a.size() == chunks_.size() && b.size() == chunks_.size());
  std::vector<std::uint32_t> out;
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    if (a[c] == b[c]) continue;
    const std::uint32_t region = chunks_[c].region;
    if (out.empty() || out.back() != region) out.push_back(region);
  }
  return out;
}

}  // namespace rangereplay
