// Randomized properties of the planner over thousands of region sets, tier
// budgets, alignments, granules, priorities, retain modes and injected commit
// failures, each from a fixed seed:
//  - no two placements of a tier overlap, and each is aligned;
//  - every requested byte is placed exactly once, in region order per request;
//  - each tier's placements stay within its budget and its arena;
//  - placements follow priority order;
//  - the live allocations are exactly the tiers' arenas (nothing leaked);
//  - the same seed gives the same plan and the same allocation sequence.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "unit/core/snapshot/storage/planner_test_support.h"

namespace rangereplay::storage::testing {
namespace {

using Chain = FallbackAllocator<ChunkTier, WholeTier, ChunkTier, NullAllocator>;
constexpr std::size_t kTiers = Chain::kTierCount;

struct Scenario {
  std::vector<std::uint64_t> alignment, granule, budget;
  std::vector<bool> retain;
  std::vector<std::vector<Request>> ranges;  // planned one after another on one chain
  std::vector<std::vector<int>> failures;    // per range: allocations each tier fails first
};

std::uint64_t pick(std::mt19937_64& rng, std::initializer_list<std::uint64_t> values) {
  return *(values.begin() + std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng));
}

Scenario make_scenario(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  Scenario s;
  for (std::size_t t = 0; t < kTiers; ++t) {
    s.alignment.push_back(pick(rng, {1, 16, 256, 4096}));
    s.granule.push_back(pick(rng, {1, 100, 256, 1000, 4096}));
    s.budget.push_back(pick(rng, {0, uniform(0, 5000), uniform(0, 40000), uniform(0, 200000), kMaxBytes}));
    s.retain.push_back(uniform(0, 1) == 1);
  }
  const std::size_t range_count = uniform(1, 3);
  for (std::size_t r = 0; r < range_count; ++r) {
    std::vector<Request> requests;
    std::uint64_t address = 0x100000;
    const std::size_t regions = uniform(0, 24);
    for (std::size_t i = 0; i < regions; ++i) {
      const std::uint64_t size = pick(rng, {0, 1, uniform(1, 300), uniform(1, 5000), uniform(1, 30000), 4096});
      const std::uint64_t offset = uniform(0, 3) == 0 ? uniform(0, size) : 0;
      const auto priority = static_cast<std::int32_t>(uniform(0, 4)) - 2;
      requests.push_back(Request{MemoryRange(DevicePtr(address), size), offset, priority});
      address += size + uniform(1, 64);  // distinct starts, even for empty regions
    }
    s.ranges.push_back(std::move(requests));
    std::vector<int> failures;
    for (std::size_t t = 0; t < kTiers; ++t) failures.push_back(uniform(0, 7) == 0 ? 1 : 0);
    s.failures.push_back(std::move(failures));
  }
  return s;
}

Chain make_chain(const Scenario& s, FakeLedger& ledger) {
  return Chain(chunk_tier(ledger, "t0", s.budget[0], s.granule[0], s.alignment[0], s.retain[0]),
               whole_tier(ledger, "t1", s.budget[1], s.alignment[1], s.retain[1]),
               chunk_tier(ledger, "t2", s.budget[2], s.granule[2], s.alignment[2], s.retain[2]), NullAllocator{});
}

void set_failures(Chain& chain, const std::vector<int>& failures) {
  chain.tier<0>().backing().fail_allocations(failures[0]);
  chain.tier<1>().backing().fail_allocations(failures[1]);
  chain.tier<2>().backing().fail_allocations(failures[2]);
}

// Checks one committed plan against its requests and the ledger.
void check_plan(const Scenario& s, const std::vector<Request>& requests, const StoragePlan& plan,
                const FakeLedger& ledger) {
  ASSERT_EQ(plan.tiers.size(), kTiers);
  std::vector<std::vector<Placement>> per_tier(kTiers);
  std::map<std::uint64_t, std::vector<Placement>> per_region;  // keyed by region start
  std::vector<std::uint64_t> placed(kTiers, 0);
  for (const Placement& p : plan.placements) {
    ASSERT_LT(p.tier, kTiers);
    ASSERT_GT(p.bytes, 0u);
    EXPECT_FALSE(plan.tiers[p.tier].disabled);
    EXPECT_EQ(p.arena_offset % s.alignment[p.tier], 0u);
    per_tier[p.tier].push_back(p);
    per_region[p.region.start().address()].push_back(p);
    placed[p.tier] += p.bytes;
  }
  for (std::size_t t = 0; t < kTiers; ++t) {
    auto& pieces = per_tier[t];
    std::sort(pieces.begin(), pieces.end(),
              [](const Placement& a, const Placement& b) { return a.arena_offset < b.arena_offset; });
    std::uint64_t end = 0;
    for (const Placement& p : pieces) {
      EXPECT_GE(p.arena_offset, end) << "overlap in tier " << t;
      end = p.arena_offset + p.bytes;
    }
    const TierOutcome& out = plan.tiers[t];
    EXPECT_EQ(out.bytes, placed[t]);
    EXPECT_EQ(out.planned_bytes, end);
    EXPECT_LE(end, out.budget_bytes);
    EXPECT_LE(end, s.budget[t]);
    if (end > 0) {
      EXPECT_GE(out.arena_bytes, end);
      EXPECT_NE(out.arena_address, 0u);
    }
    if (!s.retain[t]) {
      EXPECT_EQ(out.arena_bytes, end);  // one backing of exactly the used bytes
    }
  }
  // Every byte of every request exactly once, in order, one request per region.
  std::size_t non_empty = 0;
  for (const Request& r : requests) {
    if (r.bytes() == 0) {
      EXPECT_EQ(per_region.count(r.region.start().address()), 0u);
      continue;
    }
    ++non_empty;
    const auto& pieces = per_region[r.region.start().address()];
    std::uint64_t next = r.region_offset;
    for (const Placement& p : pieces) {
      EXPECT_EQ(p.region, r.region);
      EXPECT_EQ(p.region_offset, next);
      next += p.bytes;
    }
    EXPECT_EQ(next, r.region.size());
  }
  EXPECT_LE(per_region.size(), non_empty);
  // Priority order: a request's pieces come before any of a lower priority.
  std::map<std::uint64_t, std::int32_t> priority;
  for (const Request& r : requests) priority[r.region.start().address()] = r.priority;
  for (std::size_t i = 1; i < plan.placements.size(); ++i) {
    EXPECT_GE(priority[plan.placements[i - 1].region.start().address()],
              priority[plan.placements[i].region.start().address()]);
  }
  // The live allocations are exactly the arenas the tiers hold.
  std::map<std::uint64_t, std::uint64_t> arenas;
  for (const TierOutcome& out : plan.tiers) {
    if (out.arena_bytes > 0) arenas[out.arena_address] = out.arena_bytes;
  }
  EXPECT_EQ(ledger.live, arenas);
}

struct ScenarioRun {
  std::vector<StatusOr<StoragePlan>> plans;
  std::vector<std::string> events;
};

ScenarioRun run_scenario(const Scenario& s) {
  FakeLedger ledger;
  ScenarioRun run;
  {
    Chain chain = make_chain(s, ledger);
    for (std::size_t r = 0; r < s.ranges.size(); ++r) {
      set_failures(chain, s.failures[r]);
      StatusOr<StoragePlan> plan = chain.plan_and_commit(s.ranges[r]);
      if (plan.ok()) {
        check_plan(s, s.ranges[r], *plan, ledger);
      } else {
        EXPECT_EQ(plan.status().code(), StatusCode::kResourceExhausted);
        EXPECT_NE(plan.status().message().find(" bytes short for region 0x"), std::string::npos);
        // Nothing allocated by the failed call survives; retained arenas may.
        const bool held[kTiers] = {chain.tier<0>().block().has_value(), chain.tier<1>().block().has_value(),
                                   chain.tier<2>().block().has_value()};
        for (std::size_t t = 0; t < kTiers; ++t) {
          if (!s.retain[t]) {
            EXPECT_FALSE(held[t]) << "tier " << t;
          }
        }
        EXPECT_LE(ledger.live.size(), kTiers);
      }
      run.plans.push_back(std::move(plan));
      chain.end_range();
    }
    chain.release();
    EXPECT_TRUE(ledger.live.empty());
  }
  run.events = ledger.events;
  return run;
}

TEST(PlannerProperty, random_region_sets_are_placed_exactly_once_within_budgets) {
  constexpr std::uint64_t kSeeds = 3000;
  std::size_t ok_plans = 0, failed_plans = 0, replanned = 0, split_regions = 0, reused = 0;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Scenario scenario = make_scenario(seed);
    const ScenarioRun first = run_scenario(scenario);
    const ScenarioRun again = run_scenario(scenario);
    ASSERT_EQ(first.events, again.events);
    ASSERT_EQ(first.plans.size(), again.plans.size());
    for (std::size_t r = 0; r < first.plans.size(); ++r) {
      ASSERT_EQ(first.plans[r].ok(), again.plans[r].ok());
      if (first.plans[r].ok()) {
        EXPECT_EQ(*first.plans[r], *again.plans[r]);
        ++ok_plans;
        replanned += first.plans[r]->replans > 0;
        const std::vector<Placement>& placements = first.plans[r]->placements;
        for (std::size_t i = 1; i < placements.size(); ++i) {
          split_regions += placements[i].region == placements[i - 1].region;
        }
        for (const TierOutcome& tier : first.plans[r]->tiers) {
          reused += tier.bytes > 0 && !tier.new_allocation;
        }
      } else {
        EXPECT_EQ(first.plans[r].status().to_string(), again.plans[r].status().to_string());
        ++failed_plans;
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  // The generator must exercise every path (fitting, failing, replanning,
  // spanning tiers, reusing retained arenas), not only the easy one.
  EXPECT_GT(ok_plans, 3000u);
  EXPECT_GT(failed_plans, 800u);
  EXPECT_GT(replanned, 200u);
  EXPECT_GT(split_regions, 400u);
  EXPECT_GT(reused, 300u);
}

TEST(PlannerProperty, byte_granular_tiers_fit_exactly_when_the_footprint_fits_the_budgets) {
  using ByteChain = FallbackAllocator<ChunkTier, ChunkTier, ChunkTier, NullAllocator>;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    auto uniform = [&](std::uint64_t lo, std::uint64_t hi) {
      return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    };
    FakeLedger ledger;
    const std::uint64_t b0 = uniform(0, 20000), b1 = uniform(0, 20000), b2 = uniform(0, 20000);
    ByteChain chain(chunk_tier(ledger, "t0", b0, 1), chunk_tier(ledger, "t1", b1, 1), chunk_tier(ledger, "t2", b2, 1),
                    NullAllocator{});
    std::vector<Request> requests;
    std::uint64_t footprint = 0;
    for (std::size_t i = uniform(0, 20); i > 0; --i) {
      const std::uint64_t size = uniform(0, 5000);
      requests.push_back(Request{MemoryRange(DevicePtr(0x1000 + i * 0x10000), size), 0, 0});
      footprint += size;
    }
    StatusOr<StoragePlan> plan = chain.plan_and_commit(requests);
    ASSERT_EQ(plan.ok(), footprint <= b0 + b1 + b2) << plan.status().to_string();
    if (plan.ok()) {
      // Tiers fill in order: each takes all it can before the next gets a byte.
      EXPECT_EQ(plan->tiers[0].bytes, std::min(footprint, b0));
      EXPECT_EQ(plan->tiers[1].bytes, std::min(footprint - plan->tiers[0].bytes, b1));
      EXPECT_EQ(plan->tiers[2].bytes, footprint - plan->tiers[0].bytes - plan->tiers[1].bytes);
    } else {
      EXPECT_TRUE(ledger.live.empty());
    }
  }
}

}  // namespace
}  // namespace rangereplay::storage::testing
