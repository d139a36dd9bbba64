// Budget formulas, user limits and the /proc/meminfo reader, as decision
// tables with exact byte counts (including inputs near 2^64).
#include <gtest/gtest.h>

#include "core/snapshot/storage/byte_math.h"
#include "core/snapshot/storage/tier_budget.h"

namespace rangereplay::storage {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

TEST(DeviceTierBudget, is_95_percent_of_free_when_that_is_smallest) {
  // H200-like: 141 GiB total, 60 GiB free, nothing retained: 57 GiB < 70.5 GiB.
  EXPECT_EQ(device_tier_budget(
                {.largest_allocation_bytes = 141 * kGiB, .total_bytes = 141 * kGiB, .free_bytes = 60 * kGiB}, 0),
            57 * kGiB);
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1000, 100}, 0), 95u);
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1000, 101}, 0), 95u);  // floor(95.95)
}

TEST(DeviceTierBudget, leaves_the_reserve_free) {
  // The snapshot_spill case on the H200: 3 GiB free, 1 GiB kept for CUPTI.
  EXPECT_EQ(device_tier_budget({.largest_allocation_bytes = 141 * kGiB,
                                .total_bytes = 141 * kGiB,
                                .free_bytes = 3 * kGiB,
                                .reserve_bytes = kDeviceReserveBytes},
                               0),
            2 * kGiB * 95 / 100);
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1000, 100, 100}, 0), 0u);
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1000, 50, 100}, 0), 0u);
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1000, 50, 100}, 40), 40u);  // retained still counts
}

TEST(DeviceTierBudget, counts_the_retained_arena_as_available) {
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1000, 100}, 200), 295u);
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1000, 0}, 300), 300u);
}

TEST(DeviceTierBudget, never_exceeds_half_of_device_memory) {
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1000, 1000}, 0), 500u);
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1001, 1000}, 400), 500u);  // floor(1001 / 2)
  EXPECT_EQ(device_tier_budget({kMaxBytes, 1, 1}, 0), 0u);
}

TEST(DeviceTierBudget, never_exceeds_the_largest_allocation) {
  EXPECT_EQ(device_tier_budget({64, 1000, 1000}, 0), 64u);
  EXPECT_EQ(device_tier_budget({0, 1000, 1000}, 500), 0u);
}

TEST(DeviceTierBudget, saturates_near_2_to_the_64) {
  EXPECT_EQ(device_tier_budget({kMaxBytes, kMaxBytes, kMaxBytes}, kMaxBytes), kMaxBytes / 2);
  EXPECT_EQ(device_tier_budget({kMaxBytes, kMaxBytes, kMaxBytes}, 0), kMaxBytes / 2);
  EXPECT_EQ(device_tier_budget({kMaxBytes, kMaxBytes, 0}, kMaxBytes - 1), kMaxBytes / 2);
  EXPECT_EQ(device_tier_budget({kMaxBytes, 0, kMaxBytes}, kMaxBytes), 0u);
}

TEST(PinnedTierBudget, is_half_of_available_host_memory_plus_retained) {
  EXPECT_EQ(pinned_tier_budget({kMaxBytes, 1000}, 0), 500u);
  EXPECT_EQ(pinned_tier_budget({kMaxBytes, 1001}, 0), 500u);
  EXPECT_EQ(pinned_tier_budget({kMaxBytes, 1000}, 250), 750u);
  EXPECT_EQ(pinned_tier_budget({kMaxBytes, 0}, 0), 0u);
  EXPECT_EQ(pinned_tier_budget({kMaxBytes, 1}, 0), 0u);
}

TEST(PinnedTierBudget, never_exceeds_the_largest_allocation) { EXPECT_EQ(pinned_tier_budget({600, 1000}, 250), 600u); }

TEST(PinnedTierBudget, saturates_near_2_to_the_64) {
  EXPECT_EQ(pinned_tier_budget({kMaxBytes, kMaxBytes}, kMaxBytes), kMaxBytes);
  EXPECT_EQ(pinned_tier_budget({kMaxBytes, kMaxBytes}, kMaxBytes / 2 + 1), kMaxBytes);
  EXPECT_EQ(pinned_tier_budget({kMaxBytes, kMaxBytes}, 0), kMaxBytes / 2);
}

TEST(ApplyLimit, lowers_a_budget_and_never_raises_it) {
  EXPECT_EQ(apply_limit(1000, std::nullopt), 1000u);
  EXPECT_EQ(apply_limit(1000, 512), 512u);
  EXPECT_EQ(apply_limit(1000, 4096), 1000u);
  EXPECT_EQ(apply_limit(1000, 0), 0u);
  EXPECT_EQ(apply_limit(kMaxBytes, kMaxBytes - 1), kMaxBytes - 1);
}

TEST(ParseMeminfoAvailable, reads_mem_available_in_bytes) {
  const char* meminfo =
      "MemTotal:       263921380 kB\n"
      "MemFree:        100000000 kB\n"
      "MemAvailable:   200000000 kB\n"
      "Buffers:           123456 kB\n";
  StatusOr<std::uint64_t> bytes = parse_meminfo_available(meminfo);
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  EXPECT_EQ(*bytes, 200000000ull * 1024);
  EXPECT_EQ(*parse_meminfo_available("MemAvailable: 0 kB"), 0u);
}

TEST(ParseMeminfoAvailable, names_a_missing_or_bad_line) {
  EXPECT_EQ(parse_meminfo_available("MemTotal: 1 kB\n").status().to_string(),
            "not found: /proc/meminfo has no MemAvailable line");
  EXPECT_EQ(parse_meminfo_available("MemAvailable: lots\n").status().to_string(),
            "invalid argument: bad /proc/meminfo line 'MemAvailable: lots': expected "
            "'MemAvailable: <number> kB'");
  EXPECT_FALSE(parse_meminfo_available("MemAvailable: 12 MB").ok());
  EXPECT_FALSE(parse_meminfo_available("MemAvailable: 18014398509481984 kB").ok());  // 2^54 KiB
}

}  // namespace
}  // namespace rangereplay::storage
