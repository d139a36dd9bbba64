// Write-set snapshots: byte-span sets, the chunks a prediction covers, the
// changed chunks read off two digest sets, the proof decision, the order in
// which regions switch to write sets, the snapshot layout and the growth of
// predictions.
#include "core/snapshot/write_set.h"

#include <gtest/gtest.h>

#include "core/snapshot/digest/chunk_digest.h"

#include <optional>
#include <vector>

namespace rangereplay {
namespace {

constexpr std::uint64_t kBase = 0x7f1200000000;  // a plausible device address
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

MemoryRange span(std::uint64_t offset, std::uint64_t bytes) { return MemoryRange(DevicePtr(kBase + offset), bytes); }

std::vector<MemoryRange> spans_of(const ByteSpans& set) { return {set.spans().begin(), set.spans().end()}; }

TEST(ByteSpans, adding_overlapping_and_touching_spans_merges_them) {
  ByteSpans set;
  set.add(span(10, 5));  // [10, 15)
  set.add(span(30, 5));  // [30, 35)
  set.add(span(15, 3));  // touches the first: [10, 18)
  set.add(span(0, 0));   // empty: ignored
  EXPECT_EQ(spans_of(set), (std::vector<MemoryRange>{span(10, 8), span(30, 5)}));
  set.add(span(12, 20));  // [12, 32) joins both
  EXPECT_EQ(spans_of(set), (std::vector<MemoryRange>{span(10, 25)}));
  EXPECT_EQ(set.bytes(), 25u);
}

TEST(ByteSpans, spans_added_in_any_order_come_out_sorted) {
  const std::vector<MemoryRange> input = {span(100, 1), span(0, 1), span(50, 1)};
  const ByteSpans set = ByteSpans::of(input);
  EXPECT_EQ(spans_of(set), (std::vector<MemoryRange>{span(0, 1), span(50, 1), span(100, 1)}));
}

TEST(ByteSpans, within_clips_to_the_region_and_bytes_outside_counts_the_rest) {
  const std::vector<MemoryRange> input = {span(0, 10), span(20, 10)};
  const ByteSpans set = ByteSpans::of(input);
  EXPECT_EQ(spans_of(set.within(span(5, 20))), (std::vector<MemoryRange>{span(5, 5), span(20, 5)}));
  const std::vector<MemoryRange> cover = {span(5, 20)};
  EXPECT_EQ(set.bytes_outside(ByteSpans::of(cover)), 10u);  // [0, 5) and [25, 30)
  EXPECT_EQ(set.bytes_outside(set), 0u);
  EXPECT_EQ(set.bytes_outside(ByteSpans{}), 20u);
}

TEST(ByteSpans, bytes_outside_counts_each_gap_when_several_spans_fall_in_one) {
  const std::vector<MemoryRange> whole = {span(0, 100)};
  const std::vector<MemoryRange> holes = {span(10, 10), span(30, 10), span(95, 20)};
  EXPECT_EQ(ByteSpans::of(whole).bytes_outside(ByteSpans::of(holes)), 75u);  // 100 - 10 - 10 - 5
  EXPECT_EQ(ByteSpans::of(holes).bytes_outside(ByteSpans::of(whole)), 15u);  // [100, 115)
}

TEST(ByteSpans, minus_leaves_the_bytes_the_other_set_does_not_hold) {
  const std::vector<MemoryRange> whole = {span(0, 100), span(200, 10)};
  const std::vector<MemoryRange> holes = {span(10, 10), span(30, 10), span(95, 110)};
  EXPECT_EQ(spans_of(ByteSpans::of(whole).minus(ByteSpans::of(holes))),
            (std::vector<MemoryRange>{span(0, 10), span(20, 10), span(40, 55), span(205, 5)}));
  EXPECT_TRUE(ByteSpans::of(whole).minus(ByteSpans::of(whole)).empty());
  EXPECT_EQ(ByteSpans::of(whole).minus(ByteSpans{}), ByteSpans::of(whole));
}

TEST(ChunksTouching, a_byte_of_a_chunk_takes_the_whole_chunk) {
  const MemoryRange region = span(0, 10 * kMiB);
  const std::vector<MemoryRange> written = {span(kMiB + 7, 1), span(3 * kMiB - 1, 2)};  // chunks 1, 2 and 3
  EXPECT_EQ(spans_of(chunks_touching(region, ByteSpans::of(written))),
            (std::vector<MemoryRange>{span(kMiB, 3 * kMiB)}));
}

TEST(ChunksTouching, the_region_tail_is_a_short_chunk_and_bytes_outside_the_region_are_ignored) {
  const MemoryRange region = span(0, 2 * kMiB + 100);
  const std::vector<MemoryRange> written = {span(2 * kMiB + 50, 1), span(5 * kMiB, kMiB)};
  EXPECT_EQ(spans_of(chunks_touching(region, ByteSpans::of(written))), (std::vector<MemoryRange>{span(2 * kMiB, 100)}));
}

TEST(ChunksTouching, chunks_are_cut_from_an_unaligned_region_start) {
  const MemoryRange region = span(16, 4 * kMiB);
  const std::vector<MemoryRange> written = {span(16 + kMiB, 1)};
  EXPECT_EQ(spans_of(chunks_touching(region, ByteSpans::of(written))),
            (std::vector<MemoryRange>{span(16 + kMiB, kMiB)}));
}

TEST(ChangedChunks, chunks_whose_digests_differ_are_the_changed_bytes) {
  const std::vector<MemoryRange> regions = {span(0, 3 * kMiB + 5), span(8 * kMiB, kMiB)};
  StatusOr<ChunkTable> table = ChunkTable::build(regions);
  ASSERT_TRUE(table.ok());
  ASSERT_EQ(table->chunk_count(), 5u);  // 1M, 1M, 1M, 5 B | 1M
  const std::vector<std::uint64_t> entry = {1, 2, 3, 4, 5};
  const std::vector<std::uint64_t> exit = {1, 9, 9, 9, 5};
  EXPECT_EQ(spans_of(changed_chunks(*table, entry, exit)), (std::vector<MemoryRange>{span(kMiB, 2 * kMiB + 5)}));
  EXPECT_TRUE(changed_chunks(*table, entry, entry).empty());
}

TEST(ZeroChunks, chunks_whose_digest_is_that_of_zeros_of_their_length_are_the_zero_bytes) {
  const std::vector<MemoryRange> regions = {span(0, 3 * kMiB + 5), span(8 * kMiB, kMiB)};
  StatusOr<ChunkTable> table = ChunkTable::build(regions);
  ASSERT_TRUE(table.ok());
  ASSERT_EQ(table->chunk_count(), 5u);  // 1M, 1M, 1M, 5 B | 1M
  const std::uint64_t mib = zero_chunk_digest(kMiB);
  // Chunk 3 (5 bytes) digests as 5 zero bytes; chunk 2's digest is 5 zero
  // bytes' too, which is not the zero digest of a 1 MiB chunk.
  const std::vector<std::uint64_t> digests = {mib, 7, zero_chunk_digest(5), zero_chunk_digest(5), mib};
  EXPECT_EQ(spans_of(zero_chunks(*table, digests)),
            (std::vector<MemoryRange>{span(0, kMiB), span(3 * kMiB, 5), span(8 * kMiB, kMiB)}));
  EXPECT_TRUE(zero_chunks(*table, std::vector<std::uint64_t>{1, 2, 3, 4, 5}).empty());
}

TEST(ProveWriteSet, changed_chunks_that_were_zero_at_entry_are_proven_and_restored_by_zeroing) {
  const std::vector<MemoryRange> predicted = {span(0, kMiB)};
  const std::vector<MemoryRange> changed = {span(0, 3 * kMiB)};
  const std::vector<MemoryRange> zero = {span(kMiB, kMiB), span(2 * kMiB, kMiB), span(0, kMiB / 2)};
  const WriteSetProof proof = prove_write_set(ByteSpans::of(changed), ByteSpans::of(predicted), ByteSpans::of(zero));
  EXPECT_EQ(proof.changed_bytes, 3 * kMiB);
  EXPECT_EQ(proof.unpredicted_bytes, 0u);
  // The predicted chunk is restored from the snapshot even where it was zero.
  EXPECT_EQ(spans_of(proof.zeroed), (std::vector<MemoryRange>{span(kMiB, 2 * kMiB)}));
  EXPECT_TRUE(proof.proven());
}

TEST(ProveWriteSet, only_changed_chunks_neither_predicted_nor_zero_at_entry_refute_the_proof) {
  const std::vector<MemoryRange> changed = {span(0, 4 * kMiB)};
  const std::vector<MemoryRange> zero = {span(kMiB, kMiB), span(3 * kMiB, kMiB), span(9 * kMiB, kMiB)};
  const WriteSetProof proof = prove_write_set(ByteSpans::of(changed), ByteSpans{}, ByteSpans::of(zero));
  EXPECT_EQ(proof.unpredicted_bytes, 2 * kMiB);
  EXPECT_EQ(spans_of(proof.zeroed), (std::vector<MemoryRange>{span(kMiB, kMiB), span(3 * kMiB, kMiB)}));
  EXPECT_FALSE(proof.proven());
}

TEST(ProveWriteSet, a_range_that_changed_only_predicted_chunks_is_proven) {
  const std::vector<MemoryRange> predicted = {span(0, 4 * kMiB)};
  const std::vector<MemoryRange> changed = {span(kMiB, kMiB)};
  const WriteSetProof proof = prove_write_set(ByteSpans::of(changed), ByteSpans::of(predicted));
  EXPECT_EQ(proof, (WriteSetProof{kMiB, 0, {}}));
  EXPECT_TRUE(proof.proven());
}

TEST(ProveWriteSet, a_range_that_changed_nothing_is_proven_even_without_a_prediction) {
  EXPECT_TRUE(prove_write_set(ByteSpans{}, ByteSpans{}).proven());
}

TEST(ProveWriteSet, changed_bytes_outside_the_prediction_are_counted_and_not_proven) {
  const std::vector<MemoryRange> predicted = {span(0, 2 * kMiB)};
  const std::vector<MemoryRange> changed = {span(kMiB, 3 * kMiB), span(10 * kMiB, kMiB)};
  const WriteSetProof proof = prove_write_set(ByteSpans::of(changed), ByteSpans::of(predicted));
  EXPECT_EQ(proof.changed_bytes, 4 * kMiB);
  EXPECT_EQ(proof.unpredicted_bytes, 3 * kMiB);
  EXPECT_FALSE(proof.proven());
}

TEST(WriteSetOrder, the_largest_region_switches_first_and_empty_ones_never) {
  const std::vector<MemoryRange> regions = {span(0, 10), span(100, 0), span(200, 1000), span(2000, 10)};
  EXPECT_EQ(write_set_order(regions, /*min_bytes=*/1), (std::vector<std::uint32_t>{2, 0, 3}));
}

TEST(WriteSetOrder, regions_under_64_MiB_never_switch) {
  EXPECT_EQ(kMinWriteSetRegionBytes, 64 * kMiB);
  const std::vector<MemoryRange> regions = {span(0, 64 * kMiB - 16), span(64 * kMiB, 64 * kMiB),
                                            span(256 * kMiB, 100 * kMiB)};
  EXPECT_EQ(write_set_order(regions), (std::vector<std::uint32_t>{2, 1}));
}

TEST(PlanWriteSetSnapshot, whole_regions_stay_whole_and_write_set_regions_hold_their_predicted_chunks) {
  const std::vector<MemoryRange> regions = {span(0, kMiB), span(16 * kMiB, 100 * kMiB), span(200 * kMiB, 64)};
  const bool write_set[] = {false, true, false};
  const std::vector<MemoryRange> prediction = {span(20 * kMiB + 3, 10), span(50 * kMiB, 2 * kMiB),
                                               span(0, 64)};  // the last lies in a whole region: not a chunk
  const WriteSetLayout layout = plan_write_set_snapshot(regions, write_set, ByteSpans::of(prediction));
  EXPECT_EQ(layout.snapshot, (std::vector<MemoryRange>{span(0, kMiB), span(20 * kMiB, kMiB), span(50 * kMiB, 2 * kMiB),
                                                       span(200 * kMiB, 64)}));
  EXPECT_EQ(layout.source, (std::vector<std::uint32_t>{0, 1, 1, 2}));
  EXPECT_EQ(layout.digested, (std::vector<MemoryRange>{regions[1]}));
  EXPECT_EQ(layout.digested_source, (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(layout.digested_bytes, 100 * kMiB);
  EXPECT_EQ(layout.predicted.bytes(), 3 * kMiB);
}

TEST(PlanWriteSetSnapshot, a_write_set_region_without_a_prediction_is_digested_and_not_copied) {
  const std::vector<MemoryRange> regions = {span(0, 8 * kMiB)};
  const bool write_set[] = {true};
  const WriteSetLayout layout = plan_write_set_snapshot(regions, write_set, ByteSpans{});
  EXPECT_TRUE(layout.snapshot.empty());
  EXPECT_EQ(layout.digested, regions);
  EXPECT_TRUE(layout.predicted.empty());
}

// Bytes of a layout's snapshot (what one state of it copies).
std::uint64_t snapshot_bytes(const WriteSetLayout& layout) {
  std::uint64_t bytes = 0;
  for (const MemoryRange& r : layout.snapshot) bytes += r.size();
  return bytes;
}

TEST(TryWriteSetLayouts, the_largest_regions_switch_one_at_a_time_until_a_layout_fits) {
  const std::vector<MemoryRange> regions = {span(0, kMiB), span(16 * kMiB, 200 * kMiB), span(512 * kMiB, 100 * kMiB)};
  const std::vector<MemoryRange> written = {span(20 * kMiB, kMiB), span(600 * kMiB, 2 * kMiB)};
  std::vector<std::vector<std::uint32_t>> tried;
  const std::optional<WriteSetLayout> layout =
      try_write_set_layouts(regions, ByteSpans::of(written), [&](const WriteSetLayout& l) {
        tried.push_back(l.digested_source);
        return snapshot_bytes(l) <= 8 * kMiB;
      });
  // First the 200 MiB region alone (1 + 1 + 100 MiB: too much), then both large ones (1 + 1 + 2 MiB).
  EXPECT_EQ(tried, (std::vector<std::vector<std::uint32_t>>{{1}, {1, 2}}));
  ASSERT_TRUE(layout.has_value());
  EXPECT_EQ(layout->snapshot,
            (std::vector<MemoryRange>{span(0, kMiB), span(20 * kMiB, kMiB), span(600 * kMiB, 2 * kMiB)}));
  EXPECT_EQ(layout->digested_bytes, 300 * kMiB);
}

TEST(TryWriteSetLayouts, nothing_fits_after_the_last_qualifying_region_or_the_cap) {
  const std::vector<MemoryRange> regions = {span(0, 64 * kMiB), span(128 * kMiB, 64 * kMiB),
                                            span(256 * kMiB, 64 * kMiB)};
  std::size_t attempts = 0;
  const auto never = [&](const WriteSetLayout&) {
    ++attempts;
    return false;
  };
  EXPECT_FALSE(try_write_set_layouts(regions, ByteSpans{}, never).has_value());
  EXPECT_EQ(attempts, 3u);
  attempts = 0;
  EXPECT_FALSE(try_write_set_layouts(regions, ByteSpans{}, never, /*max_regions=*/2).has_value());
  EXPECT_EQ(attempts, 2u);
  const std::vector<MemoryRange> small = {span(0, kMiB)};
  attempts = 0;
  EXPECT_FALSE(try_write_set_layouts(small, ByteSpans{}, never).has_value());
  EXPECT_EQ(attempts, 0u);
}

TEST(WriteSetPredictionKey, kernel_windows_of_one_length_share_a_key_and_other_names_keep_theirs) {
  EXPECT_EQ(write_set_prediction_key(true, "kernels 6:12"), "kernel windows of 6 launches");
  EXPECT_EQ(write_set_prediction_key(true, "kernels 100:106"), "kernel windows of 6 launches");
  EXPECT_EQ(write_set_prediction_key(true, "kernels 0:64"), "kernel windows of 64 launches");
  EXPECT_EQ(write_set_prediction_key(false, "kernels 6:12"), "kernels 6:12");  // an NVTX range of that name
  EXPECT_EQ(write_set_prediction_key(false, "step"), "step");
  EXPECT_EQ(write_set_prediction_key(true, "kernels 12:6"), "kernels 12:6");
  EXPECT_EQ(write_set_prediction_key(true, "kernels x:6"), "kernels x:6");
  EXPECT_EQ(write_set_prediction_key(true, "kernels 6:"), "kernels 6:");
}

TEST(WriteSetPredictor, a_name_never_measured_has_no_prediction) {
  WriteSetPredictor predictor;
  EXPECT_EQ(predictor.find("step/"), nullptr);
}

TEST(WriteSetPredictor, predictions_grow_by_the_changed_chunks_and_name_the_instance_that_grew_them) {
  WriteSetPredictor predictor;
  const std::vector<MemoryRange> first = {span(0, kMiB)};
  predictor.learn("step/", ByteSpans::of(first), 1);
  ASSERT_NE(predictor.find("step/"), nullptr);
  EXPECT_EQ(predictor.find("step/")->from_instance, 1u);
  EXPECT_EQ(predictor.find("step/")->measured, 1u);

  predictor.learn("step/", ByteSpans::of(first), 2);  // nothing new: the prediction is still instance 1's
  EXPECT_EQ(predictor.find("step/")->from_instance, 1u);
  EXPECT_EQ(predictor.find("step/")->measured, 2u);

  const std::vector<MemoryRange> third = {span(4 * kMiB, kMiB)};
  predictor.learn("step/", ByteSpans::of(third), 3);  // grows; never shrinks
  EXPECT_EQ(spans_of(predictor.find("step/")->chunks), (std::vector<MemoryRange>{span(0, kMiB), span(4 * kMiB, kMiB)}));
  EXPECT_EQ(predictor.find("step/")->from_instance, 3u);
  EXPECT_EQ(predictor.find("other/"), nullptr);
}

TEST(WriteSetPredictor, a_first_instance_that_changed_nothing_still_counts_as_measured) {
  WriteSetPredictor predictor;
  predictor.learn("step/", ByteSpans{}, 4);
  ASSERT_NE(predictor.find("step/"), nullptr);
  EXPECT_TRUE(predictor.find("step/")->chunks.empty());
  EXPECT_EQ(predictor.find("step/")->from_instance, 4u);
}

}  // namespace
}  // namespace rangereplay
