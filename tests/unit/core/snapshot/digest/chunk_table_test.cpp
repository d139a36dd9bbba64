// ChunkTable: regions cut into chunks (tails, 1-byte and empty regions,
// unaligned starts), the GPU descriptors with both addresses, and the region
// digests built from chunk digests.
#include "core/snapshot/digest/chunk_table.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/snapshot/digest/chunk_digest.h"

namespace rangereplay {
namespace {

constexpr std::uint64_t kBase = 0x7f1200000000;  // a plausible device address
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

ChunkTable build_or_die(const std::vector<MemoryRange>& regions, std::uint64_t chunk = kDefaultDigestChunkBytes) {
  StatusOr<ChunkTable> table = ChunkTable::build(regions, chunk);
  EXPECT_TRUE(table.ok()) << table.status().to_string();
  return table.ok() ? std::move(table).value() : ChunkTable{};
}

TEST(ChunkTable, no_regions_give_no_chunks) {
  const ChunkTable table = build_or_die({});
  EXPECT_EQ(table.chunk_count(), 0u);
  EXPECT_EQ(table.total_bytes(), 0u);
  EXPECT_EQ(table.first_chunk(0), 0u);
  EXPECT_TRUE(table.region_digests({}).empty());
}

TEST(ChunkTable, default_chunk_is_one_mebibyte) {
  EXPECT_EQ(kDefaultDigestChunkBytes, kMiB);
  const ChunkTable table = build_or_die({MemoryRange(DevicePtr(kBase), 2 * kMiB)});
  EXPECT_EQ(table.chunk_bytes(), kMiB);
  ASSERT_EQ(table.chunk_count(), 2u);
  EXPECT_EQ(table.chunks()[1], (DigestChunk{0, static_cast<std::uint32_t>(kMiB), kMiB}));
}

TEST(ChunkTable, a_region_tail_is_one_short_chunk) {
  const ChunkTable table = build_or_die({MemoryRange(DevicePtr(kBase), 3 * kMiB + 5)});
  const std::vector<DigestChunk> expected = {
      {0, static_cast<std::uint32_t>(kMiB), 0},
      {0, static_cast<std::uint32_t>(kMiB), kMiB},
      {0, static_cast<std::uint32_t>(kMiB), 2 * kMiB},
      {0, 5, 3 * kMiB},
  };
  EXPECT_EQ(table.chunks(), expected);
  EXPECT_EQ(table.total_bytes(), 3 * kMiB + 5);
}

TEST(ChunkTable, a_region_of_exactly_one_chunk_has_no_tail) {
  const ChunkTable table = build_or_die({MemoryRange(DevicePtr(kBase), 4096)}, 4096);
  ASSERT_EQ(table.chunk_count(), 1u);
  EXPECT_EQ(table.chunks()[0], (DigestChunk{0, 4096, 0}));
}

TEST(ChunkTable, one_byte_over_a_chunk_gives_a_one_byte_tail) {
  const ChunkTable table = build_or_die({MemoryRange(DevicePtr(kBase), 4097)}, 4096);
  ASSERT_EQ(table.chunk_count(), 2u);
  EXPECT_EQ(table.chunks()[1], (DigestChunk{0, 1, 4096}));
}

TEST(ChunkTable, one_byte_regions_are_one_byte_chunks_and_empty_regions_are_skipped) {
  const std::vector<MemoryRange> regions = {
      MemoryRange(DevicePtr(kBase + 1), 1),
      MemoryRange(DevicePtr(kBase + 100), 0),
      MemoryRange(DevicePtr(kBase + 200), 1),
      MemoryRange(DevicePtr(kBase + 300), 0),
  };
  const ChunkTable table = build_or_die(regions, 64);
  const std::vector<DigestChunk> expected = {{0, 1, 0}, {2, 1, 0}};
  EXPECT_EQ(table.chunks(), expected);
  EXPECT_EQ(table.first_chunk(0), 0u);
  EXPECT_EQ(table.first_chunk(1), 1u);
  EXPECT_EQ(table.first_chunk(2), 1u);
  EXPECT_EQ(table.first_chunk(3), 2u);
  EXPECT_EQ(table.first_chunk(4), 2u);
  EXPECT_TRUE(table.region_chunks(1).empty());
  EXPECT_EQ(table.region_chunks(2).size(), 1u);
  EXPECT_EQ(table.app_address(1), DevicePtr(kBase + 200));
}

TEST(ChunkTable, chunks_of_an_unaligned_region_start_at_its_first_byte) {
  const ChunkTable table = build_or_die({MemoryRange(DevicePtr(kBase + 3), 100)}, 32);
  const std::vector<DigestChunk> expected = {{0, 32, 0}, {0, 32, 32}, {0, 32, 64}, {0, 4, 96}};
  EXPECT_EQ(table.chunks(), expected);
  EXPECT_EQ(table.app_address(3), DevicePtr(kBase + 3 + 96));
}

TEST(ChunkTable, many_regions_keep_their_chunks_in_order) {
  std::vector<MemoryRange> regions;
  std::uint64_t expected_chunks = 0;
  std::uint64_t expected_bytes = 0;
  for (std::uint64_t r = 0; r < 100; ++r) {
    const std::uint64_t bytes = r * 37 + (r % 3 == 0 ? 0 : 1);
    regions.push_back(MemoryRange(DevicePtr(kBase + r * 10000), bytes));
    expected_chunks += (bytes + 255) / 256;
    expected_bytes += bytes;
  }
  const ChunkTable table = build_or_die(regions, 256);
  EXPECT_EQ(table.chunk_count(), expected_chunks);
  EXPECT_EQ(table.total_bytes(), expected_bytes);
  std::uint64_t sum = 0;
  for (std::uint32_t r = 0; r < 100; ++r) {
    std::uint64_t offset = 0;
    for (const DigestChunk& c : table.region_chunks(r)) {
      EXPECT_EQ(c.region, r);
      EXPECT_EQ(c.offset, offset);
      offset += c.bytes;
      sum += c.bytes;
    }
    EXPECT_EQ(offset, regions[r].size());
  }
  EXPECT_EQ(sum, expected_bytes);
}

TEST(ChunkTable, rejects_chunk_sizes_that_are_zero_unaligned_or_too_large) {
  const std::vector<MemoryRange> regions = {MemoryRange(DevicePtr(kBase), 100)};
  for (std::uint64_t bad : {std::uint64_t{0}, std::uint64_t{8}, std::uint64_t{17}, kMaxDigestChunkBytes + 16}) {
    StatusOr<ChunkTable> table = ChunkTable::build(regions, bad);
    ASSERT_FALSE(table.ok()) << bad;
    EXPECT_EQ(table.status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(ChunkTable::build(regions, 16).ok());
  EXPECT_TRUE(ChunkTable::build(regions, kMaxDigestChunkBytes).ok());
}

TEST(ChunkTable, rejects_more_chunks_than_32_bit_indices_hold) {
  // 2^32 chunks of 16 bytes: 64 GiB of (never touched) address space.
  const std::vector<MemoryRange> regions = {MemoryRange(DevicePtr(kBase), std::uint64_t{1} << 36)};
  StatusOr<ChunkTable> table = ChunkTable::build(regions, 16);
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().code(), StatusCode::kOutOfRange);
}

TEST(ChunkTable, descriptors_carry_the_application_and_snapshot_addresses) {
  const std::vector<MemoryRange> regions = {
      MemoryRange(DevicePtr(kBase), 80),
      MemoryRange(DevicePtr(kBase + 1000), 0),
      MemoryRange(DevicePtr(kBase + 2003), 33),
  };
  const ChunkTable table = build_or_die(regions, 32);
  const std::vector<DevicePtr> snapshots = {DevicePtr(0x5000), DevicePtr(0x6000), DevicePtr(0x7003)};
  StatusOr<std::vector<DigestChunkDescriptor>> d = table.descriptors(snapshots);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  const std::vector<DigestChunkDescriptor> expected = {
      {kBase, 0x5000, 32, 0},        {kBase + 32, 0x5020, 32, 0},  {kBase + 64, 0x5040, 16, 0},
      {kBase + 2003, 0x7003, 32, 2}, {kBase + 2035, 0x7023, 1, 2},
  };
  EXPECT_EQ(*d, expected);
}

TEST(ChunkTable, descriptors_without_a_snapshot_have_a_zero_snapshot_address) {
  const std::vector<MemoryRange> regions = {MemoryRange(DevicePtr(kBase), 40), MemoryRange(DevicePtr(kBase + 64), 8)};
  const ChunkTable table = build_or_die(regions, 32);
  StatusOr<std::vector<DigestChunkDescriptor>> none = table.descriptors({});
  ASSERT_TRUE(none.ok());
  for (const DigestChunkDescriptor& d : *none) EXPECT_EQ(d.snapshot_address, 0u);

  const std::vector<DevicePtr> partial = {DevicePtr(), DevicePtr(0x9000)};
  StatusOr<std::vector<DigestChunkDescriptor>> some = table.descriptors(partial);
  ASSERT_TRUE(some.ok());
  ASSERT_EQ(some->size(), 3u);
  EXPECT_EQ((*some)[0].snapshot_address, 0u);
  EXPECT_EQ((*some)[1].snapshot_address, 0u);
  EXPECT_EQ((*some)[2].snapshot_address, 0x9000u);

  const std::vector<DevicePtr> wrong_size = {DevicePtr(0x9000)};
  StatusOr<std::vector<DigestChunkDescriptor>> bad = table.descriptors(wrong_size);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(ChunkTable, copy_blocks_cut_every_chunk_in_order_and_never_straddle_two) {
  // Chunks of 96 bytes, blocks of 32: a whole chunk is 3 blocks, a 33-byte
  // tail 2 (the second 1 byte long), a 1-byte region 1, an empty region none.
  const std::vector<MemoryRange> regions = {
      MemoryRange(DevicePtr(kBase + 3), 96 + 33),
      MemoryRange(DevicePtr(kBase + 1000), 0),
      MemoryRange(DevicePtr(kBase + 2000), 1),
      MemoryRange(DevicePtr(kBase + 3000), 32),
  };
  const ChunkTable table = build_or_die(regions, 96);
  ASSERT_EQ(table.chunk_count(), 4u);
  StatusOr<std::vector<ChunkCopyBlock>> blocks = table.copy_blocks(32);
  ASSERT_TRUE(blocks.ok()) << blocks.status().to_string();
  const std::vector<ChunkCopyBlock> expected = {{0, 0}, {0, 32}, {0, 64}, {1, 0}, {1, 32}, {2, 0}, {3, 0}};
  EXPECT_EQ(*blocks, expected);
}

TEST(ChunkTable, copy_blocks_of_a_mebibyte_chunk_are_thirty_two_of_thirty_two_kibibytes) {
  const ChunkTable table = build_or_die({MemoryRange(DevicePtr(kBase), 2 * kMiB + 5)});
  StatusOr<std::vector<ChunkCopyBlock>> blocks = table.copy_blocks(32 * 1024);
  ASSERT_TRUE(blocks.ok()) << blocks.status().to_string();
  ASSERT_EQ(blocks->size(), 32u + 32u + 1u);
  EXPECT_EQ((*blocks)[31], (ChunkCopyBlock{0, 31 * 32 * 1024}));
  EXPECT_EQ((*blocks)[32], (ChunkCopyBlock{1, 0}));
  EXPECT_EQ((*blocks)[64], (ChunkCopyBlock{2, 0}));
  // One block as large as the chunk: one block per chunk.
  StatusOr<std::vector<ChunkCopyBlock>> whole = table.copy_blocks(static_cast<std::uint32_t>(kMiB));
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->size(), 3u);
}

TEST(ChunkTable, copy_blocks_of_no_chunks_are_none) {
  StatusOr<std::vector<ChunkCopyBlock>> blocks = build_or_die({}).copy_blocks(32 * 1024);
  ASSERT_TRUE(blocks.ok());
  EXPECT_TRUE(blocks->empty());
}

TEST(ChunkTable, copy_blocks_reject_zero_or_unaligned_sizes_and_more_than_one_grid) {
  const ChunkTable table = build_or_die({MemoryRange(DevicePtr(kBase), 1000)});
  for (std::uint32_t bad : {0u, 8u, 100u}) {
    StatusOr<std::vector<ChunkCopyBlock>> blocks = table.copy_blocks(bad);
    ASSERT_FALSE(blocks.ok()) << bad;
    EXPECT_EQ(blocks.status().code(), StatusCode::kInvalidArgument);
  }
  // 2^31 blocks of 16 bytes: 32 GiB of (never touched) address space.
  const ChunkTable huge = build_or_die({MemoryRange(DevicePtr(kBase), std::uint64_t{1} << 35)}, kMaxDigestChunkBytes);
  StatusOr<std::vector<ChunkCopyBlock>> too_many = huge.copy_blocks(16);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().code(), StatusCode::kOutOfRange);
}

TEST(ChunkTable, region_digests_combine_each_regions_chunk_digests_in_order) {
  const std::vector<MemoryRange> regions = {
      MemoryRange(DevicePtr(kBase), 70),
      MemoryRange(DevicePtr(kBase + 100), 0),
      MemoryRange(DevicePtr(kBase + 200), 10),
  };
  const ChunkTable table = build_or_die(regions, 32);
  ASSERT_EQ(table.chunk_count(), 4u);
  const std::vector<std::uint64_t> chunk = {11, 22, 33, 44};
  const std::vector<std::uint64_t> got = table.region_digests(chunk);
  ASSERT_EQ(got.size(), 3u);
  const std::uint64_t first[] = {11, 22, 33};
  const std::uint64_t last[] = {44};
  EXPECT_EQ(got[0], combine_chunk_digests(first, 70));
  EXPECT_EQ(got[1], combine_chunk_digests({}, 0));
  EXPECT_EQ(got[2], combine_chunk_digests(last, 10));
  // The combination is the documented fold.
  std::uint64_t h = region_digest_begin(70);
  for (std::uint64_t d : first) h = region_digest_step(h, d);
  EXPECT_EQ(got[0], h);
}

TEST(ChunkTable, a_region_digest_changes_when_one_chunk_digest_changes_or_chunks_swap) {
  const std::uint64_t base[] = {1, 2, 3, 4};
  const std::uint64_t one_changed[] = {1, 2, 3, 5};
  const std::uint64_t swapped[] = {2, 1, 3, 4};
  EXPECT_NE(combine_chunk_digests(base, 100), combine_chunk_digests(one_changed, 100));
  EXPECT_NE(combine_chunk_digests(base, 100), combine_chunk_digests(swapped, 100));
  EXPECT_NE(combine_chunk_digests(base, 100), combine_chunk_digests(base, 101));
}

TEST(ChunkTable, differing_regions_names_each_region_with_a_changed_chunk_once) {
  const std::vector<MemoryRange> regions = {
      MemoryRange(DevicePtr(kBase), 64),
      MemoryRange(DevicePtr(kBase + 100), 64),
      MemoryRange(DevicePtr(kBase + 200), 64),
  };
  const ChunkTable table = build_or_die(regions, 32);
  const std::vector<std::uint64_t> a = {1, 2, 3, 4, 5, 6};
  const std::vector<std::uint64_t> b = {1, 9, 3, 4, 9, 9};
  EXPECT_EQ(table.differing_regions(a, b), (std::vector<std::uint32_t>{0, 2}));
  EXPECT_TRUE(table.differing_regions(a, a).empty());
}

}  // namespace
}  // namespace rangereplay
