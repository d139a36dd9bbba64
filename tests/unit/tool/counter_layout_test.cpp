// Counter layouts: the one decision of how a range's values sit in the
// counter ranges of its passes, and what follows from it (the image size,
// the backend's mode, the report's name, per-kernel rows, the lead-in flush).
#include "tool/logic/counter_layout.h"

#include <gtest/gtest.h>

namespace rangereplay::tool {
namespace {

TEST(CounterLayout, the_configured_layout_is_auto_ranges_per_kernel_or_one_whole_range) {
  EXPECT_EQ(configured_layout(true), CounterLayout(AutoKernelRanges{}));
  EXPECT_EQ(configured_layout(false), CounterLayout(WholeRange{}));
}

TEST(CounterLayout, after_a_recording_pass_0_graph_launches_make_per_kernel_values_whole_range) {
  EXPECT_EQ(
      layout_after_recording_pass0(true, /*graph_launches=*/true, /*user_kernel_ranges=*/true, /*cache_flush=*/true),
      CounterLayout(WholeRange{.graph_launches = true}));
  EXPECT_EQ(layout_after_recording_pass0(true, false, /*user_kernel_ranges=*/true, true),
            CounterLayout(UserKernelRanges{}));
  EXPECT_EQ(layout_after_recording_pass0(true, false, false, /*cache_flush=*/true),
            CounterLayout(AutoKernelRanges{.lead_in_flush = true}));
  EXPECT_EQ(layout_after_recording_pass0(true, false, false, /*cache_flush=*/false), CounterLayout(AutoKernelRanges{}));
  // Whole-range metrics stay whole, graph launches or not.
  EXPECT_EQ(layout_after_recording_pass0(false, true, true, true), CounterLayout(WholeRange{}));
}

TEST(CounterLayout, a_batched_range_gets_a_user_range_per_kernel_or_one) {
  EXPECT_EQ(batched_layout(true), CounterLayout(UserKernelRanges{}));
  EXPECT_EQ(batched_layout(false), CounterLayout(WholeRange{}));
}

TEST(CounterLayout, the_counter_ranges_of_a_pass) {
  EXPECT_EQ(counter_ranges(AutoKernelRanges{}, 7), 7u);
  EXPECT_EQ(counter_ranges(AutoKernelRanges{.lead_in_flush = true}, 7), 8u);  // the lead-in flush's range first
  EXPECT_EQ(counter_ranges(UserKernelRanges{}, 7), 7u);
  EXPECT_EQ(counter_ranges(WholeRange{}, 7), 1u);
  EXPECT_EQ(counter_ranges(WholeRange{.graph_launches = true}, 7), 1u);
  EXPECT_EQ(counter_ranges(StandingRange{3}, 7), 1u);
}

TEST(CounterLayout, the_backend_mode_changes_only_for_user_ranges_and_graph_launches) {
  for (CounterMode configured : {CounterMode::kPerKernel, CounterMode::kWholeRange}) {
    EXPECT_EQ(counter_mode(AutoKernelRanges{.lead_in_flush = true}, configured), configured);
    EXPECT_EQ(counter_mode(WholeRange{}, configured), configured);
    EXPECT_EQ(counter_mode(StandingRange{0}, configured), configured);
    EXPECT_EQ(counter_mode(UserKernelRanges{}, configured), CounterMode::kUserRanges);
    EXPECT_EQ(counter_mode(WholeRange{.graph_launches = true}, configured), CounterMode::kWholeRange);
  }
}

TEST(CounterLayout, names_rows_lead_in_and_standing_index) {
  EXPECT_STREQ(counter_ranges_name(AutoKernelRanges{}), "auto");
  EXPECT_STREQ(counter_ranges_name(UserKernelRanges{}), "user");
  EXPECT_STREQ(counter_ranges_name(WholeRange{.graph_launches = true}), "whole");
  EXPECT_STREQ(counter_ranges_name(StandingRange{2}), "whole");
  EXPECT_TRUE(per_kernel_values(AutoKernelRanges{}));
  EXPECT_TRUE(per_kernel_values(UserKernelRanges{}));
  EXPECT_FALSE(per_kernel_values(WholeRange{.graph_launches = true}));
  EXPECT_FALSE(per_kernel_values(StandingRange{2}));
  EXPECT_TRUE(has_lead_in_flush(AutoKernelRanges{.lead_in_flush = true}));
  EXPECT_FALSE(has_lead_in_flush(AutoKernelRanges{}));
  EXPECT_FALSE(has_lead_in_flush(WholeRange{}));
  ASSERT_NE(standing_counter_range(StandingRange{5}), nullptr);
  EXPECT_EQ(*standing_counter_range(StandingRange{5}), 5u);
  EXPECT_EQ(standing_counter_range(WholeRange{}), nullptr);
}

}  // namespace
}  // namespace rangereplay::tool
