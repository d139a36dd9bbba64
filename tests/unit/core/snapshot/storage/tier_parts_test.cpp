// The parts a tier is made of, each on its own: byte arithmetic, admission
// policies and the bump suballocator (0, 1, unaligned and near-2^64 sizes).
#include <gtest/gtest.h>

#include "core/snapshot/storage/admission.h"
#include "core/snapshot/storage/bump_suballocator.h"
#include "core/snapshot/storage/byte_math.h"

namespace rangereplay::storage {
namespace {

TEST(ByteMath, saturating_add_stops_at_the_largest_size) {
  EXPECT_EQ(saturating_add(0, 0), 0u);
  EXPECT_EQ(saturating_add(1, 2), 3u);
  EXPECT_EQ(saturating_add(kMaxBytes - 1, 1), kMaxBytes);
  EXPECT_EQ(saturating_add(kMaxBytes - 1, 2), kMaxBytes);
  EXPECT_EQ(saturating_add(kMaxBytes, kMaxBytes), kMaxBytes);
}

TEST(ByteMath, align_up_rounds_to_the_next_multiple_or_reports_overflow) {
  EXPECT_EQ(align_up(0, 256), 0u);
  EXPECT_EQ(align_up(1, 256), 256u);
  EXPECT_EQ(align_up(256, 256), 256u);
  EXPECT_EQ(align_up(257, 256), 512u);
  EXPECT_EQ(align_up(7, 1), 7u);
  EXPECT_EQ(align_up(kMaxBytes, 1), kMaxBytes);
  EXPECT_EQ(align_up(kMaxBytes - 4095, 4096), kMaxBytes - 4095);  // already aligned
  EXPECT_EQ(align_up(kMaxBytes - 4094, 4096), std::nullopt);
  EXPECT_EQ(align_up(kMaxBytes, 4096), std::nullopt);
}

TEST(ByteMath, scale_down_is_exact_without_overflow) {
  EXPECT_EQ(scale_down(0, 95, 100), 0u);
  EXPECT_EQ(scale_down(1, 95, 100), 0u);
  EXPECT_EQ(scale_down(100, 95, 100), 95u);
  EXPECT_EQ(scale_down(199, 95, 100), 189u);  // floor(189.05)
  // floor((2^64 - 1) * 95 / 100) = 17524406870024074034
  EXPECT_EQ(scale_down(kMaxBytes, 95, 100), 17524406870024074034ull);
}

TEST(WholeRegion, admits_all_or_nothing) {
  WholeRegion policy;
  EXPECT_EQ(policy.admit(0, 0), 0u);
  EXPECT_EQ(policy.admit(1, 1), 1u);
  EXPECT_EQ(policy.admit(1000, 1000), 1000u);
  EXPECT_EQ(policy.admit(1001, 1000), 0u);
  EXPECT_EQ(policy.admit(kMaxBytes, kMaxBytes), kMaxBytes);
  EXPECT_EQ(policy.admit(kMaxBytes, kMaxBytes - 1), 0u);
}

TEST(PrefixChunking, takes_the_whole_request_when_it_fits_even_off_granule) {
  PrefixChunking policy(256);
  EXPECT_EQ(policy.admit(1, 1000), 1u);
  EXPECT_EQ(policy.admit(1000, 1000), 1000u);
  EXPECT_EQ(policy.admit(300, 300), 300u);
}

TEST(PrefixChunking, takes_whole_granules_when_the_request_does_not_fit) {
  PrefixChunking policy(256);
  EXPECT_EQ(policy.admit(1001, 1000), 768u);
  EXPECT_EQ(policy.admit(1001, 255), 0u);
  EXPECT_EQ(policy.admit(1001, 256), 256u);
  EXPECT_EQ(policy.admit(1001, 0), 0u);
  PrefixChunking odd(1000);  // a granule need not be a power of two
  EXPECT_EQ(odd.admit(5000, 2999), 2000u);
  PrefixChunking byte(1);
  EXPECT_EQ(byte.admit(kMaxBytes, kMaxBytes - 1), kMaxBytes - 1);
  PrefixChunking huge(kMaxBytes);
  EXPECT_EQ(huge.admit(kMaxBytes, kMaxBytes - 1), 0u);
}

TEST(BumpSuballocator, empty_arena_offers_its_whole_capacity) {
  BumpSuballocator sub(256);
  sub.reset(0);
  EXPECT_EQ(sub.available(), 0u);
  EXPECT_EQ(sub.used(), 0u);
  sub.reset(1);
  EXPECT_EQ(sub.available(), 1u);
  sub.reset(kMaxBytes);
  EXPECT_EQ(sub.available(), kMaxBytes);
}

TEST(BumpSuballocator, places_pieces_at_aligned_offsets_and_uses_exact_bytes) {
  BumpSuballocator sub(256);
  sub.reset(1000);
  EXPECT_EQ(sub.reserve(1), 0u);
  EXPECT_EQ(sub.used(), 1u);
  EXPECT_EQ(sub.available(), 744u);  // 1000 - 256
  EXPECT_EQ(sub.reserve(257), 256u);
  EXPECT_EQ(sub.used(), 513u);
  EXPECT_EQ(sub.available(), 232u);  // 1000 - 768
  EXPECT_EQ(sub.reserve(232), 768u);
  EXPECT_EQ(sub.used(), 1000u);
  EXPECT_EQ(sub.available(), 0u);
}

TEST(BumpSuballocator, padding_past_the_capacity_leaves_nothing_available) {
  BumpSuballocator sub(256);
  sub.reset(300);
  EXPECT_EQ(sub.reserve(10), 0u);
  EXPECT_EQ(sub.available(), 44u);
  sub.reset(256);
  EXPECT_EQ(sub.reserve(10), 0u);
  EXPECT_EQ(sub.available(), 0u);  // the next aligned offset is the capacity itself
}

TEST(BumpSuballocator, reset_forgets_earlier_reservations) {
  BumpSuballocator sub(16);
  sub.reset(100);
  EXPECT_EQ(sub.reserve(50), 0u);
  sub.reset(40);
  EXPECT_EQ(sub.used(), 0u);
  EXPECT_EQ(sub.available(), 40u);
  EXPECT_EQ(sub.reserve(40), 0u);
}

TEST(BumpSuballocator, alignment_that_would_pass_2_to_the_64_leaves_nothing_available) {
  BumpSuballocator sub(4096);
  sub.reset(kMaxBytes);
  EXPECT_EQ(sub.reserve(kMaxBytes - 1), 0u);
  EXPECT_EQ(sub.used(), kMaxBytes - 1);
  EXPECT_EQ(sub.available(), 0u);
}

}  // namespace
}  // namespace rangereplay::storage
