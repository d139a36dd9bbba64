// Plan, then commit: rollback in reverse order and replanning when a tier's
// allocation fails, the plan error when every tier fails (with nothing
// leaked), retain mode across ranges, and backings built from move-only
// constructor arguments. The fake backings' shared ledger gives the exact
// order of every allocation and release.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "unit/core/snapshot/storage/planner_test_support.h"

namespace rangereplay::storage::testing {
namespace {

using Events = std::vector<std::string>;

StoragePlan plan_ok(StatusOr<StoragePlan> plan) {
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  return plan.ok() ? std::move(plan).value() : StoragePlan{};
}

TEST(Commit, a_failed_commit_rolls_back_in_reverse_order_and_replans_without_that_tier) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, WholeTier, WholeTier, NullAllocator> chain(
      whole_tier(ledger, "t0", 1000, 256), whole_tier(ledger, "t1", 1000, 256), whole_tier(ledger, "t2", 2000, 256),
      whole_tier(ledger, "t3", 4000, 256), NullAllocator{});
  chain.tier<2>().backing().fail_allocations(1);
  const MemoryRange a = region(0x1000, 600), b = region(0x2000, 600), c = region(0x3000, 600);
  const std::vector<Request> requests = {{a, 0, 0}, {b, 0, 0}, {c, 0, 0}};

  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_EQ(ledger.events, (Events{"allocate t0 600", "allocate t1 600", "fail t2 600", "release t1 600",
                                   "release t0 600", "allocate t0 600", "allocate t1 600", "allocate t3 600"}));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, a, 0, 600, 0}, {1, b, 0, 600, 0}, {3, c, 0, 600, 0}}));
  EXPECT_EQ(plan.replans, 1u);
  EXPECT_EQ(plan.notes, (Events{"tier 't2' commit of 600 bytes failed: t2 out of memory; "
                                "replanned without it"}));
  EXPECT_TRUE(plan.tiers[2].disabled);
  EXPECT_EQ(plan.tiers[2].disabled_reason, "commit of 600 bytes failed: t2 out of memory");
  EXPECT_EQ(plan.tiers[2].bytes, 0u);
  EXPECT_EQ(plan.tiers[2].arena_bytes, 0u);
  EXPECT_EQ(ledger.live.size(), 3u);
  chain.release();
  EXPECT_TRUE(ledger.live.empty());
}

TEST(Commit, a_failed_device_commit_spills_everything_to_pinned) {
  FakeLedger ledger;
  FallbackAllocator<ChunkTier, WholeTier, NullAllocator> chain(
      chunk_tier(ledger, "device", 1 << 20, 2 << 20, 256), whole_tier(ledger, "pinned", 1 << 20, 256), NullAllocator{});
  chain.tier<0>().backing().fail_allocations(1);
  const MemoryRange a = region(0x1000, 1000), b = region(0x2000, 3000);
  const std::vector<Request> requests = {{a, 0, 0}, {b, 0, 0}};

  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_EQ(ledger.events, (Events{"fail device 4024", "allocate pinned 4024"}));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{1, a, 0, 1000, 0}, {1, b, 0, 3000, 1024}}));
  EXPECT_EQ(plan.tiers[1].bytes, 4000u);
  EXPECT_EQ(plan.tiers[1].arena_bytes, 4024u);
  EXPECT_TRUE(plan.tiers[1].new_allocation);

  // The next range tries the device again: a failed commit disables a tier for one plan only.
  plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{0, a, 0, 1000, 0}, {0, b, 0, 3000, 1024}}));
  EXPECT_EQ(plan.replans, 0u);
}

TEST(Commit, every_tier_failing_gives_a_clear_error_and_leaks_nothing) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, ChunkTier, NullAllocator> chain(
      whole_tier(ledger, "device", 1000), chunk_tier(ledger, "pinned", 1 << 20, 256), NullAllocator{});
  chain.tier<0>().backing().fail_allocations();
  chain.tier<1>().backing().fail_allocations();
  const std::vector<Request> requests = {{region(0x1000, 600), 0, 0}, {region(0x2000, 1200), 0, 0}};

  StatusOr<StoragePlan> plan = chain.plan_and_commit(requests);
  EXPECT_EQ(plan.status().to_string(),
            "resource exhausted: snapshot storage is 600 bytes short for region 0x1000 of 600 "
            "bytes (tiers: device disabled (commit of 600 bytes failed: device out of memory); "
            "pinned disabled (commit of 1800 bytes failed: pinned out of memory))");
  EXPECT_EQ(ledger.events, (Events{"fail device 600", "fail pinned 1800"}));
  EXPECT_TRUE(ledger.live.empty());
}

TEST(Commit, a_later_failure_releases_every_tier_committed_before_it) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, WholeTier, NullAllocator> chain(
      whole_tier(ledger, "t0", 100), whole_tier(ledger, "t1", 100), whole_tier(ledger, "t2", 100), NullAllocator{});
  chain.tier<2>().backing().fail_allocations(1);
  const std::vector<Request> requests = {
      {region(0x1000, 100), 0, 0}, {region(0x2000, 100), 0, 0}, {region(0x3000, 100), 0, 0}};
  EXPECT_EQ(chain.plan_and_commit(requests).status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ledger.events,
            (Events{"allocate t0 100", "allocate t1 100", "fail t2 100", "release t1 100", "release t0 100"}));
  EXPECT_TRUE(ledger.live.empty());
}

TEST(Commit, a_failed_budget_query_disables_the_tier_with_a_note) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 1000),
                                                               whole_tier(ledger, "pinned", 1000), NullAllocator{});
  chain.tier<0>().backing().fail_budget_query();
  const MemoryRange a = region(0x1000, 10);
  const std::vector<Request> requests = {{a, 0, 0}};
  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_EQ(plan.placements, (std::vector<Placement>{{1, a, 0, 10, 0}}));
  EXPECT_EQ(plan.notes, (Events{"tier 'device' disabled: budget query failed: device budget unknown"}));
  EXPECT_TRUE(plan.tiers[0].disabled);
}

TEST(Commit, a_dry_run_plan_allocates_and_frees_nothing) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 1000), NullAllocator{});
  const std::vector<Request> requests = {{region(0x1000, 10), 0, 0}};
  plan_ok(chain.plan_and_commit(requests));
  StoragePlan plan = plan_ok(chain.plan(requests));
  EXPECT_EQ(plan.tiers[0].planned_bytes, 10u);
  EXPECT_EQ(ledger.events, (Events{"allocate device 10"}));
}

TEST(RetainMode, reuses_a_big_enough_arena_grows_it_and_releases_it) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 10000, 1, /*retain=*/true),
                                                               whole_tier(ledger, "pinned", 1 << 20, 1),
                                                               NullAllocator{});
  const auto range = [&](std::uint64_t bytes) {
    const std::vector<Request> requests = {{region(0x1000, bytes), 0, 0}};
    StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
    chain.end_range();
    return plan;
  };

  StoragePlan first = range(1000);
  EXPECT_TRUE(first.tiers[0].new_allocation);
  EXPECT_EQ(first.tiers[0].arena_bytes, 1000u);
  EXPECT_EQ(ledger.live.size(), 1u);  // kept past end_range

  StoragePlan smaller = range(800);  // reused: no allocation, same arena
  EXPECT_FALSE(smaller.tiers[0].new_allocation);
  EXPECT_EQ(smaller.tiers[0].bytes, 800u);
  EXPECT_EQ(smaller.tiers[0].arena_bytes, 1000u);
  EXPECT_EQ(smaller.tiers[0].arena_address, first.tiers[0].arena_address);
  EXPECT_EQ(ledger.events, (Events{"allocate device 1000"}));

  StoragePlan larger = range(1500);  // grown: the old arena is freed before the larger one
  EXPECT_TRUE(larger.tiers[0].new_allocation);
  EXPECT_EQ(larger.tiers[0].arena_bytes, 1500u);
  EXPECT_EQ(ledger.events, (Events{"allocate device 1000", "release device 1000", "allocate device 1500"}));

  // 8500 bytes are free; the retained 1500 count as available, so 9000 stay on the device.
  StoragePlan counted = range(9000);
  EXPECT_EQ(counted.tiers[0].budget_bytes, 10000u);
  EXPECT_EQ(counted.placements[0].tier, 0u);
  EXPECT_EQ(ledger.events.back(), "allocate device 9000");

  chain.release();
  EXPECT_EQ(ledger.events.back(), "release device 9000");
  EXPECT_TRUE(ledger.live.empty());
}

TEST(RetainMode, a_retained_tier_that_gets_nothing_keeps_its_arena) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 10000, 1, /*retain=*/true),
                                                    NullAllocator{});
  std::vector<Request> requests = {{region(0x1000, 1000), 0, 0}};
  plan_ok(chain.plan_and_commit(requests));
  StoragePlan empty = plan_ok(chain.plan_and_commit({}));
  EXPECT_EQ(empty.tiers[0].bytes, 0u);
  EXPECT_EQ(empty.tiers[0].arena_bytes, 1000u);
  EXPECT_FALSE(empty.tiers[0].new_allocation);
  EXPECT_EQ(ledger.live.size(), 1u);
}

TEST(RetainMode, rollback_keeps_a_reused_arena_and_frees_a_new_one) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, WholeTier, WholeTier, NullAllocator> chain(
      whole_tier(ledger, "t0", 1000, 1, /*retain=*/true), whole_tier(ledger, "t1", 1000, 1, /*retain=*/true),
      whole_tier(ledger, "t2", 1000, 1), NullAllocator{});
  const MemoryRange a = region(0x1000, 1000), b = region(0x2000, 500), c = region(0x3000, 1000);
  const std::vector<Request> first = {{a, 0, 0}};
  plan_ok(chain.plan_and_commit(first));  // t0 retains 1000

  chain.tier<2>().backing().fail_allocations(1);
  const std::vector<Request> second = {{a, 0, 0}, {b, 0, 0}, {c, 0, 0}};
  StatusOr<StoragePlan> plan = chain.plan_and_commit(second);
  EXPECT_EQ(plan.status().code(), StatusCode::kResourceExhausted);
  // t0 reused its arena (kept through the rollback); t1's new arena was freed.
  EXPECT_EQ(ledger.events, (Events{"allocate t0 1000", "allocate t1 500", "fail t2 1000", "release t1 500"}));
  EXPECT_EQ(ledger.live.size(), 1u);
  chain.release();
  EXPECT_TRUE(ledger.live.empty());
}

TEST(NonRetainMode, arenas_are_freed_at_the_end_of_each_range) {
  FakeLedger ledger;
  FallbackAllocator<WholeTier, NullAllocator> chain(whole_tier(ledger, "device", 10000), NullAllocator{});
  const std::vector<Request> requests = {{region(0x1000, 1000), 0, 0}};
  plan_ok(chain.plan_and_commit(requests));
  chain.end_range();
  EXPECT_TRUE(ledger.live.empty());
  plan_ok(chain.plan_and_commit(requests));
  plan_ok(chain.plan_and_commit(requests));  // ends the previous range first
  EXPECT_EQ(ledger.events, (Events{"allocate device 1000", "release device 1000", "allocate device 1000",
                                   "release device 1000", "allocate device 1000"}));
}

TEST(Arena, a_destroyed_chain_frees_what_it_holds) {
  FakeLedger ledger;
  {
    FallbackAllocator<WholeTier, WholeTier, NullAllocator> chain(
        whole_tier(ledger, "device", 100, 1, true), whole_tier(ledger, "pinned", 1000, 1), NullAllocator{});
    const std::vector<Request> requests = {{region(0x1000, 100), 0, 0}, {region(0x2000, 100), 0, 0}};
    plan_ok(chain.plan_and_commit(requests));
    FallbackAllocator<WholeTier, WholeTier, NullAllocator> moved(std::move(chain));
    EXPECT_EQ(ledger.live.size(), 2u);
  }
  EXPECT_EQ(ledger.events,
            (Events{"allocate device 100", "allocate pinned 100", "release pinned 100", "release device 100"}));
}

// A backing whose constructor takes only move-only arguments and which is
// itself move-only.
class MoveOnlyBacking {
 public:
  MoveOnlyBacking(std::unique_ptr<FakeBacking> inner, std::unique_ptr<std::string> label)
      : inner_(std::move(inner)), label_(std::move(label)) {}
  MoveOnlyBacking(MoveOnlyBacking&&) = default;
  MoveOnlyBacking(const MoveOnlyBacking&) = delete;

  StatusOr<BackingBlock> allocate(std::uint64_t bytes) { return inner_->allocate(bytes); }
  void release(const BackingBlock& block) noexcept { inner_->release(block); }
  StatusOr<std::uint64_t> budget(std::uint64_t retained) const { return inner_->budget(retained); }
  const std::string& label() const { return *label_; }

 private:
  std::unique_ptr<FakeBacking> inner_;
  std::unique_ptr<std::string> label_;
};
static_assert(BackingAllocator<MoveOnlyBacking>);
static_assert(!std::is_copy_constructible_v<MoveOnlyBacking>);

TEST(Arena, forwards_move_only_backing_arguments_unchanged) {
  FakeLedger ledger;
  using MoveOnlyTier = Arena<WholeRegion, BumpSuballocator, MoveOnlyBacking>;
  auto inner = std::make_unique<FakeBacking>(ledger, "device", 1000);
  auto label = std::make_unique<std::string>("HBM3e");
  FallbackAllocator<MoveOnlyTier, NullAllocator> chain(
      MoveOnlyTier(TierOptions{"device", std::nullopt, false}, WholeRegion{}, BumpSuballocator(1), std::move(inner),
                   std::move(label)),
      NullAllocator{});
  EXPECT_EQ(chain.tier<0>().backing().label(), "HBM3e");
  const std::vector<Request> requests = {{region(0x1000, 64), 0, 0}};
  StoragePlan plan = plan_ok(chain.plan_and_commit(requests));
  EXPECT_EQ(plan.tiers[0].arena_bytes, 64u);
  EXPECT_EQ(ledger.events, (Events{"allocate device 64"}));
}

TEST(Commit, whole_alignment_rounds_the_arena_up_to_the_alignment_within_the_budget) {
  FakeLedger ledger;
  auto tier = [&](std::string name, std::uint64_t free_bytes) {
    return WholeTier(TierOptions{name, std::nullopt, false, /*commit_whole_alignment=*/true}, WholeRegion{},
                     BumpSuballocator(256), ledger, name, free_bytes);
  };
  // 1000 + 24 padding + 300 = 1324 used, rounded to 1536: the last piece owns whole 256-byte slots.
  FallbackAllocator<WholeTier, NullAllocator> roomy(tier("roomy", 4096), NullAllocator{});
  const std::vector<Request> requests = {{region(0x1000, 1000), 0, 0}, {region(0x2000, 300), 0, 0}};
  StoragePlan plan = plan_ok(roomy.plan_and_commit(requests));
  EXPECT_EQ(plan.tiers[0].bytes, 1300u);
  EXPECT_EQ(plan.tiers[0].arena_bytes, 1536u);
  EXPECT_EQ(ledger.events, (Events{"allocate roomy 1536"}));

  // A budget without room for the rounding commits exactly the used bytes.
  FallbackAllocator<WholeTier, NullAllocator> tight(tier("tight", 1324), NullAllocator{});
  plan = plan_ok(tight.plan_and_commit(requests));
  EXPECT_EQ(plan.tiers[0].arena_bytes, 1324u);
  roomy.release();
  tight.release();
  EXPECT_TRUE(ledger.live.empty());
}

}  // namespace
}  // namespace rangereplay::storage::testing
