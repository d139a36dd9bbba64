// Placement by the fallback chain: which tier, which region offset, which
// arena offset, for whole-region and chunked admission, alignment, priority
// and tiers left fragmented by earlier placements. Every test asserts the
// exact placements.
#include <gtest/gtest.h>

#include <vector>

#include "unit/core/snapshot/storage/planner_test_support.h"

namespace rangereplay::storage::testing {
namespace {

static_assert(is_fallback_chain_v<NullAllocator>);
static_assert(is_fallback_chain_v<WholeTier, ChunkTier, NullAllocator>);
static_assert(!is_fallback_chain_v<>);
static_assert(!is_fallback_chain_v<WholeTier>);
static_assert(!is_fallback_chain_v<NullAllocator, WholeTier>);
static_assert(!is_fallback_chain_v<WholeTier, NullAllocator, NullAllocator>);
static_assert(!is_fallback_chain_v<WholeTier, int, NullAllocator>);

StoragePlan plan_ok(StatusOr<StoragePlan> plan) {
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  return plan.ok() ? std::move(plan).value() : StoragePlan{};
}

TEST(Planner, whole_region_falls_back_to_next_tier) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, NullAllocator> chain(
      whole_tier(ledger, "device", 1000, 256), whole_tier(ledger, "pinned", 10000, 256), NullAllocator{});
  const MemoryRange a = region(0x1000, 600), b = region(0x2000, 600);
  const std::vector<Request> requests = {{a, 0, 0}, {b, 0, 0}};

  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, a, 0, 600, 0}, {1, b, 0, 600, 0}}));
  EXPECT_EQ(plan.footprint_bytes, 1200u);
  ASSERT_EQ(plan.tiers.size(), 2u);
  EXPECT_EQ(plan.tiers[0].tier, "device");
  EXPECT_EQ(plan.tiers[0].budget_bytes, 1000u);
  EXPECT_EQ(plan.tiers[0].bytes, 600u);
  EXPECT_EQ(plan.tiers[0].planned_bytes, 600u);
  EXPECT_EQ(plan.tiers[0].arena_bytes, 600u);
  EXPECT_TRUE(plan.tiers[0].new_allocation);
  EXPECT_EQ(plan.tiers[1].tier, "pinned");
  EXPECT_EQ(plan.tiers[1].bytes, 600u);
  EXPECT_EQ(plan.destination(plan.placements[1]), plan.tiers[1].arena_address);
  EXPECT_EQ(ledger.events, (std::vector<std::string>{"allocate device 600", "allocate pinned 600"}));
}

TEST(Planner, tiers_that_receive_no_bytes_allocate_nothing) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 1000),
                                                               whole_tier(ledger, "pinned", 1000), NullAllocator{});
  const std::vector<Request> requests = {{region(0x1000, 10), 0, 0}};
  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_EQ(plan.tiers[1].bytes, 0u);
  EXPECT_EQ(plan.tiers[1].arena_bytes, 0u);
  EXPECT_FALSE(plan.tiers[1].new_allocation);
  EXPECT_EQ(ledger.events, (std::vector<std::string>{"allocate device 10"}));
}

TEST(Planner, prefix_chunking_spans_a_region_over_two_tiers) {
  FakeLedger ledger;
  FallbackAllocator<ChunkTier, ChunkTier, NullAllocator> chain(
      chunk_tier(ledger, "device", 1000, 256, 256), chunk_tier(ledger, "pinned", 10000, 256, 256), NullAllocator{});
  const MemoryRange a = region(0x10000, 2500);
  const std::vector<Request> requests = {{a, 0, 0}};

  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  // 1000 bytes hold 3 granules (768); the rest, 1732 bytes, fits the next tier whole.
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, a, 0, 768, 0}, {1, a, 768, 1732, 0}}));
  EXPECT_EQ(ledger.events, (std::vector<std::string>{"allocate device 768", "allocate pinned 1732"}));
}

TEST(Planner, prefix_chunking_spans_a_region_over_three_tiers) {
  FakeLedger ledger;
  FallbackAllocator<ChunkTier, ChunkTier, ChunkTier, NullAllocator> chain(
      chunk_tier(ledger, "device", 1000, 256, 256), chunk_tier(ledger, "pinned", 1000, 256, 256),
      chunk_tier(ledger, "spare", 10000, 256, 256), NullAllocator{});
  const MemoryRange a = region(0x10000, 2500);
  const std::vector<Request> requests = {{a, 0, 0}};

  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, a, 0, 768, 0}, {1, a, 768, 768, 0}, {2, a, 1536, 964, 0}}));
  EXPECT_EQ(plan.tiers[2].bytes, 964u);
}

TEST(Planner, a_request_starts_at_its_region_offset) {
  FakeLedger ledger;
  FallbackAllocator<ChunkTier, ChunkTier, NullAllocator> chain(
      chunk_tier(ledger, "device", 512, 256), chunk_tier(ledger, "pinned", 10000, 256), NullAllocator{});
  const MemoryRange a = region(0x10000, 2000);
  const std::vector<Request> requests = {{a, 1000, 0}};
  StoragePlan plan = plan_ok(chain.plan(requests));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, a, 1000, 512, 0}, {1, a, 1512, 488, 0}}));
  EXPECT_EQ(plan.footprint_bytes, 1000u);
}

TEST(Planner, a_request_past_its_region_end_is_invalid) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 1000), NullAllocator{});
  const std::vector<Request> requests = {{region(0x10000, 100), 101, 0}};
  EXPECT_EQ(chain.plan_and_commit(requests).status().to_string(),
            "invalid argument: snapshot request for region 0x10000 of 100 bytes starts at offset "
            "101, past the region's end");
  EXPECT_TRUE(ledger.events.empty());
}

TEST(Planner, empty_regions_and_requests_place_nothing) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 0), NullAllocator{});
  const std::vector<Request> requests = {{region(0x1000, 0), 0, 0}, {region(0x2000, 64), 64, 0}};
  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_TRUE(plan.placements.empty());
  EXPECT_EQ(plan.footprint_bytes, 0u);
  EXPECT_TRUE(plan_ok(chain.plan_and_commit({})).placements.empty());
  EXPECT_TRUE(ledger.events.empty());
}

TEST(Planner, every_placement_is_aligned) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 1 << 20, 4096), NullAllocator{});
  const MemoryRange a = region(0x1001, 1), b = region(0x3003, 4095), c = region(0x9000, 4097), d = region(0x20000, 3);
  const std::vector<Request> requests = {{a, 0, 0}, {b, 0, 0}, {c, 0, 0}, {d, 0, 0}};
  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{
                                 {0, a, 0, 1, 0}, {0, b, 0, 4095, 4096}, {0, c, 0, 4097, 8192}, {0, d, 0, 3, 16384}}));
  EXPECT_EQ(plan.tiers[0].bytes, 1u + 4095 + 4097 + 3);
  EXPECT_EQ(plan.tiers[0].planned_bytes, 16387u);  // exactly the used bytes, no tail padding
  for (const Placement& p : plan.placements) EXPECT_EQ(plan.destination(p) % 4096, 0u);
}

TEST(Planner, alignment_padding_counts_against_the_budget) {
  FakeLedger ledger;
  FallbackAllocator<ChunkTier, WholeTier, NullAllocator> chain(
      chunk_tier(ledger, "device", 1000, 1, 256), whole_tier(ledger, "pinned", 10000, 256), NullAllocator{});
  const MemoryRange a = region(0x1000, 700), b = region(0x2000, 500);
  const std::vector<Request> requests = {{a, 0, 0}, {b, 0, 0}};
  StoragePlan plan = plan_ok(chain.plan(requests));
  // After a, the next aligned offset is 768: 232 bytes of b fit, the rest spills.
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, a, 0, 700, 0}, {0, b, 0, 232, 768}, {1, b, 232, 268, 0}}));
  EXPECT_EQ(plan.tiers[0].planned_bytes, 1000u);
}

TEST(Planner, higher_priority_requests_are_placed_first) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 1000),
                                                               whole_tier(ledger, "pinned", 10000), NullAllocator{});
  const MemoryRange a = region(0x1000, 500), b = region(0x2000, 600), c = region(0x3000, 400);
  // a comes first but has the lowest priority; b and c tie and keep their order.
  const std::vector<Request> requests = {{a, 0, 0}, {b, 0, 5}, {c, 0, 5}};
  StoragePlan plan = plan_ok(chain.plan(requests));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, b, 0, 600, 0}, {0, c, 0, 400, 600}, {1, a, 0, 500, 0}}));

  const std::vector<Request> same_priority = {{a, 0, 0}, {b, 0, 0}, {c, 0, 0}};
  plan = plan_ok(chain.plan(same_priority));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, a, 0, 500, 0}, {1, b, 0, 600, 0}, {0, c, 0, 400, 500}}));
  const std::vector<Request> negative = {{a, 0, -1}, {b, 0, -3}, {c, 0, 0}};
  plan = plan_ok(chain.plan(negative));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, c, 0, 400, 0}, {0, a, 0, 500, 400}, {1, b, 0, 600, 0}}));
}

TEST(Planner, later_smaller_regions_fill_space_an_earlier_tier_has_left) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, NullAllocator> chain(
      whole_tier(ledger, "device", 1024, 256), whole_tier(ledger, "pinned", 1 << 20, 256), NullAllocator{});
  const MemoryRange a = region(0x1000, 300), b = region(0x2000, 800), c = region(0x3000, 500), d = region(0x4000, 1);
  const std::vector<Request> requests = {{a, 0, 0}, {b, 0, 0}, {c, 0, 0}, {d, 0, 0}};
  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  // device: a at 0 leaves 512 aligned bytes; b (800) spills, c (500) takes them,
  // and d (1 byte) finds the device full once padding is counted.
  EXPECT_EQ(plan.placements,
            (std::vector<Placement>{{0, a, 0, 300, 0}, {1, b, 0, 800, 0}, {0, c, 0, 500, 512}, {1, d, 0, 1, 1024}}));
  EXPECT_EQ(ledger.events, (std::vector<std::string>{"allocate device 1012", "allocate pinned 1025"}));
}

TEST(Planner, admission_is_chosen_per_tier) {
  const MemoryRange a = region(0x10000, 1500);
  const std::vector<Request> requests = {{a, 0, 0}};
  {
    // Whole-region device declines; chunking pinned takes 3 granules; spare the rest.
    FakeLedger ledger;
    FallbackAllocator<WholeTier, ChunkTier, WholeTier, NullAllocator> chain(
        whole_tier(ledger, "device", 1000), chunk_tier(ledger, "pinned", 1000, 256), whole_tier(ledger, "spare", 10000),
        NullAllocator{});
    StoragePlan plan = plan_ok(chain.plan(requests));
    EXPECT_EQ(plan.placements, (std::vector<Placement>{{1, a, 0, 768, 0}, {2, a, 768, 732, 0}}));
  }
  {
    // The same budgets with the policies swapped: chunking device, whole pinned.
    FakeLedger ledger;
    FallbackAllocator<ChunkTier, WholeTier, WholeTier, NullAllocator> chain(
        chunk_tier(ledger, "device", 1000, 256), whole_tier(ledger, "pinned", 1000), whole_tier(ledger, "spare", 10000),
        NullAllocator{});
    StoragePlan plan = plan_ok(chain.plan(requests));
    EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, a, 0, 768, 0}, {1, a, 768, 732, 0}}));
  }
}

TEST(Planner, a_user_limit_lowers_a_tier_budget_and_never_raises_it) {
  FakeLedger ledger;
  using Chain = FallbackAllocator<WholeTier, WholeTier, NullAllocator>;
  Chain chain(
      WholeTier(TierOptions{"device", 500, false}, WholeRegion{}, BumpSuballocator(1), ledger, "device", 10000),
      WholeTier(TierOptions{"pinned", 1 << 30, false}, WholeRegion{}, BumpSuballocator(1), ledger, "pinned", 700),
      NullAllocator{});
  const MemoryRange a = region(0x1000, 600);
  const std::vector<Request> requests = {{a, 0, 0}};
  StoragePlan plan = plan_ok(chain.plan(requests));
  EXPECT_EQ(plan.tiers[0].budget_bytes, 500u);
  EXPECT_EQ(plan.tiers[1].budget_bytes, 700u);
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{1, a, 0, 600, 0}}));
}

TEST(Planner, a_region_no_tier_can_take_fails_the_plan_naming_region_and_shortfall) {
  FakeLedger ledger;
  FallbackAllocator<ChunkTier, WholeTier, NullAllocator> chain(chunk_tier(ledger, "device", 1000, 256),
                                                               whole_tier(ledger, "pinned", 500), NullAllocator{});
  const std::vector<Request> requests = {{region(0x1000, 100), 0, 0}, {region(0x7f0000000000, 2000), 0, 0}};
  // device keeps 100 + 768; pinned (whole region) cannot take the 1232 left.
  EXPECT_EQ(chain.plan_and_commit(requests).status().to_string(),
            "resource exhausted: snapshot storage is 1232 bytes short for region 0x7f0000000000 "
            "of 2000 bytes (tiers: device budget 1000 bytes; pinned budget 500 bytes)");
  EXPECT_TRUE(ledger.events.empty());
  EXPECT_TRUE(ledger.live.empty());
}

TEST(Planner, a_chain_of_only_the_null_allocator_takes_nothing) {
  FallbackAllocator<NullAllocator> chain{NullAllocator{}};
  const std::vector<Request> requests = {{region(0x1000, 1), 0, 0}};
  EXPECT_EQ(chain.plan_and_commit(requests).status().to_string(),
            "resource exhausted: snapshot storage is 1 bytes short for region 0x1000 of 1 bytes "
            "(no tiers)");
  EXPECT_TRUE(chain.plan_and_commit({}).ok());
}

TEST(Planner, sizes_near_2_to_the_64_do_not_overflow) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, NullAllocator> chain(
      whole_tier(ledger, "device", kMaxBytes, 4096), whole_tier(ledger, "pinned", kMaxBytes, 4096), NullAllocator{});
  const MemoryRange huge = region(0x1000, kMaxBytes - 0x1010);  // ends 16 bytes before 2^64 - 1
  const MemoryRange page = region(0, 0x1000);
  const MemoryRange byte = region(kMaxBytes - 0x10, 1);
  const std::vector<Request> requests = {{huge, 0, 0}, {page, 0, 0}, {byte, 0, 0}};
  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  // After `huge`, the device's next aligned offset is 2^64 - 4096: 4095 bytes are left.
  EXPECT_EQ(plan.placements,
            (std::vector<Placement>{
                {0, huge, 0, kMaxBytes - 0x1010, 0}, {1, page, 0, 0x1000, 0}, {0, byte, 0, 1, kMaxBytes - 0xfff}}));
  EXPECT_EQ(plan.footprint_bytes, kMaxBytes - 0xf);
  EXPECT_EQ(plan.tiers[0].budget_bytes, kMaxBytes);
  EXPECT_EQ(plan.tiers[0].planned_bytes, kMaxBytes - 0xffe);
  EXPECT_EQ(plan.tiers[0].arena_bytes, kMaxBytes - 0xffe);
  EXPECT_EQ(ledger.events, (std::vector<std::string>{"allocate device 18446744073709547521", "allocate pinned 4096"}));
}

TEST(Planner, chunking_near_2_to_the_64_splits_at_the_last_byte) {
  FakeLedger ledger;
  FallbackAllocator<ChunkTier, ChunkTier, NullAllocator> chain(chunk_tier(ledger, "device", kMaxBytes, 1, 4096),
                                                               chunk_tier(ledger, "pinned", kMaxBytes, 1, 4096),
                                                               NullAllocator{});
  const MemoryRange huge = region(0x1000, kMaxBytes - 0x1000);
  const MemoryRange page = region(0, 0x1000);
  const std::vector<Request> requests = {{huge, 0, 0}, {page, 0, 0}};
  StoragePlan plan = plan_ok(chain.plan(requests));
  EXPECT_EQ(plan.placements,
            (std::vector<Placement>{
                {0, huge, 0, kMaxBytes - 0x1000, 0}, {0, page, 0, 0xfff, kMaxBytes - 0xfff}, {1, page, 0xfff, 1, 0}}));
  EXPECT_EQ(plan.footprint_bytes, kMaxBytes);
  EXPECT_EQ(plan.tiers[0].planned_bytes, kMaxBytes);
}

}  // namespace
}  // namespace rangereplay::storage::testing
