// StateLayout: a two-state plan from the real planner (over fake backings)
// splits into its entry and exit pieces, with exact addresses; the exit
// state's exclusive arena span; plans out of the documented order are
// rejected.
#include "core/snapshot/storage/state_layout.h"

#include <gtest/gtest.h>

#include <vector>

#include "unit/core/snapshot/storage/planner_test_support.h"

namespace rangereplay::storage::testing {
namespace {

// Requests as the Snapshot makes them: every non-empty region once per state,
// earlier states at higher priority.
std::vector<Request> two_state_requests(const std::vector<MemoryRange>& regions) {
  std::vector<Request> requests;
  for (std::int32_t priority : {1, 0}) {
    for (const MemoryRange& r : regions) {
      if (!r.empty()) requests.push_back(Request{r, 0, priority});
    }
  }
  return requests;
}

StoragePlan planned(StatusOr<StoragePlan> plan) {
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  return plan.ok() ? std::move(plan).value() : StoragePlan{};
}

TEST(StateLayout, both_states_on_one_tier_give_each_state_its_own_pieces_and_span) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 1 << 20, 256), NullAllocator{});
  const std::vector<MemoryRange> regions = {region(0x1000, 100), region(0x5000, 0), region(0x9000, 1)};
  const StoragePlan plan = planned(chain.plan_and_commit(two_state_requests(regions)));
  const std::uint64_t base = plan.tiers[0].arena_address;

  auto layout = StateLayout::build(plan, regions, 2);
  ASSERT_TRUE(layout.ok()) << layout.status().to_string();
  ASSERT_EQ(layout->state_count(), 2u);
  // Bump allocation at 256 bytes: entry 100 B at 0, 1 B at 256; exit at 512, 768.
  const std::vector<StatePiece> entry = {{region(0x1000, 100), 0, 0, base, 0},
                                         {region(0x9000, 1), 0, 256, base + 256, 2}};
  const std::vector<StatePiece> exit = {{region(0x1000, 100), 0, 512, base + 512, 0},
                                        {region(0x9000, 1), 0, 768, base + 768, 2}};
  EXPECT_EQ(std::vector<StatePiece>(layout->pieces(0).begin(), layout->pieces(0).end()), entry);
  EXPECT_EQ(std::vector<StatePiece>(layout->pieces(1).begin(), layout->pieces(1).end()), exit);
  EXPECT_EQ(layout->exclusive_span(1), (ArenaSpan{0, base + 512, 257}));
  // Rounded to 256 only within the arena the plan holds.
  const std::uint64_t arena_bytes = plan.tiers[0].arena_bytes;
  EXPECT_EQ(layout->exclusive_span(1, 256), (ArenaSpan{0, base + 512, arena_bytes >= 1024 ? 512u : 257u}));
  EXPECT_EQ(layout->exclusive_span(0), (ArenaSpan{0, base, 257}));
}

TEST(StateLayout, a_region_split_over_two_tiers_gives_two_pieces_and_the_larger_span_wins) {
  FakeLedger ledger;
  FallbackAllocator<ChunkTier, WholeTier, NullAllocator> chain(
      chunk_tier(ledger, "device", 3000, 1024, 256), whole_tier(ledger, "pinned", 1 << 20, 256), NullAllocator{});
  const std::vector<MemoryRange> regions = {region(0x100000, 5000)};
  const StoragePlan plan = planned(chain.plan_and_commit(two_state_requests(regions)));
  auto layout = StateLayout::build(plan, regions, 2);
  ASSERT_TRUE(layout.ok()) << layout.status().to_string();

  // Entry: the device tier takes whole granules (2048 of its 3000 bytes), the
  // rest goes to pinned; the exit state finds less than a granule left on the
  // device and lands on pinned whole.
  ASSERT_EQ(layout->pieces(0).size(), 2u);
  EXPECT_EQ(layout->pieces(0)[0].app, region(0x100000, 2048));
  EXPECT_EQ(layout->pieces(0)[0].tier, 0u);
  EXPECT_EQ(layout->pieces(0)[1].app, region(0x100000 + 2048, 2952));
  EXPECT_EQ(layout->pieces(0)[1].tier, 1u);
  ASSERT_EQ(layout->pieces(1).size(), 1u);
  EXPECT_EQ(layout->pieces(1)[0].app, region(0x100000, 5000));
  EXPECT_EQ(layout->pieces(1)[0].tier, 1u);
  EXPECT_EQ(layout->pieces(1)[0].copy, plan.destination(plan.placements[2]));
  EXPECT_EQ(layout->exclusive_span(1), (ArenaSpan{1, layout->pieces(1)[0].copy, 5000}));
  // The entry state has 2048 bytes on the device and 2952 pinned (before the
  // exit piece there): the larger one wins.
  EXPECT_EQ(layout->exclusive_span(0), (ArenaSpan{1, layout->pieces(0)[1].copy, 2952}));
}

TEST(StateLayout, a_span_with_another_states_piece_inside_is_not_exclusive) {
  const MemoryRange a = region(0x1000, 100), b = region(0x2000, 100);
  StoragePlan plan;
  plan.tiers.resize(1);
  plan.tiers[0].arena_address = 0x70000000;
  // Entry of b sits between the two exit pieces.
  plan.placements = {{0, a, 0, 100, 0}, {0, b, 0, 100, 256}, {0, a, 0, 100, 128}, {0, b, 0, 100, 512}};
  auto layout = StateLayout::build(plan, std::vector<MemoryRange>{a, b}, 2);
  ASSERT_TRUE(layout.ok()) << layout.status().to_string();
  EXPECT_EQ(layout->exclusive_span(1), std::nullopt);
}

TEST(StateLayout, a_span_end_rounds_up_only_into_bytes_the_arena_has) {
  const MemoryRange a = region(0x1000, 100);
  StoragePlan plan;
  plan.tiers.resize(1);
  plan.tiers[0].arena_address = 0x70000000;
  plan.placements = {{0, a, 0, 100, 0}, {0, a, 0, 100, 256}};
  plan.tiers[0].arena_bytes = 4096;
  auto layout = StateLayout::build(plan, std::vector<MemoryRange>{a}, 2);
  ASSERT_TRUE(layout.ok()) << layout.status().to_string();
  EXPECT_EQ(layout->exclusive_span(1, 256), (ArenaSpan{0, 0x70000000 + 256, 256}));
  EXPECT_EQ(layout->exclusive_span(1, 1), (ArenaSpan{0, 0x70000000 + 256, 100}));
  plan.tiers[0].arena_bytes = 356;  // the arena ends with the piece
  layout = StateLayout::build(plan, std::vector<MemoryRange>{a}, 2);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->exclusive_span(1, 256), (ArenaSpan{0, 0x70000000 + 256, 100}));
}

TEST(StateLayout, no_regions_give_no_pieces_and_no_span) {
  StoragePlan plan;
  plan.tiers.resize(2);
  auto layout = StateLayout::build(plan, std::vector<MemoryRange>{region(0x1000, 0)}, 2);
  ASSERT_TRUE(layout.ok());
  EXPECT_TRUE(layout->pieces(0).empty());
  EXPECT_TRUE(layout->pieces(1).empty());
  EXPECT_EQ(layout->exclusive_span(1), std::nullopt);
}

TEST(StateLayout, placements_out_of_order_missing_or_left_over_are_internal_errors) {
  const MemoryRange a = region(0x1000, 100);
  StoragePlan plan;
  plan.tiers.resize(1);
  plan.placements = {{0, a, 0, 100, 0}};
  EXPECT_EQ(StateLayout::build(plan, std::vector<MemoryRange>{a}, 2).status().code(), StatusCode::kInternal);
  EXPECT_EQ(StateLayout::build(plan, std::vector<MemoryRange>{}, 1).status().code(), StatusCode::kInternal);
  plan.placements = {{0, a, 50, 50, 0}, {0, a, 0, 50, 64}};
  EXPECT_EQ(StateLayout::build(plan, std::vector<MemoryRange>{a}, 1).status().code(), StatusCode::kInternal);
  plan.placements = {{1, a, 0, 100, 0}};  // a tier the plan does not have
  EXPECT_EQ(StateLayout::build(plan, std::vector<MemoryRange>{a}, 1).status().code(), StatusCode::kInternal);
  EXPECT_EQ(StateLayout::build(plan, std::vector<MemoryRange>{a}, 0).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rangereplay::storage::testing
