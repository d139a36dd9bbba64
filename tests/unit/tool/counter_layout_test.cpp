// Counter layouts: the one decision of how a range's values sit in the
// counter ranges of its passes, and what follows from it (the image size,
// the backend's mode, the report's name, per-kernel rows, the lead-in flush).
#include "tool/logic/counter_layout.h"

#include <gtest/gtest.h>

#include <vector>

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

TEST(CounterLayout, a_batched_range_is_counted_in_auto_ranges_under_a_flush_else_in_user_ranges) {
  EXPECT_EQ(batched_layout(true, /*user_kernel_ranges=*/false, /*cache_flush=*/true),
            CounterLayout(AutoKernelRanges{}));
  EXPECT_EQ(batched_layout(true, false, /*cache_flush=*/false), CounterLayout(UserKernelRanges{}));
  EXPECT_EQ(batched_layout(true, /*user_kernel_ranges=*/true, true), CounterLayout(UserKernelRanges{}));
  EXPECT_EQ(batched_layout(false, false, true), CounterLayout(WholeRange{}));
  EXPECT_EQ(batched_layout(false, true, false), CounterLayout(WholeRange{}));
}

TEST(CounterLayout, a_batch_image_holds_the_tool_kernels_before_each_member_under_auto_ranges) {
  // A restore's one launch (a copy kernel, or a digest kernel that copies)
  // and the L2 flush.
  EXPECT_EQ(batch_counter_ranges(AutoKernelRanges{}, 5), 7u);
  EXPECT_EQ(batch_counter_ranges(UserKernelRanges{}, 5), 5u);
  EXPECT_EQ(batch_counter_ranges(WholeRange{}, 5), 1u);
}

TEST(CounterLayout, batch_rows_begin_after_each_members_tool_kernels) {
  // Member 0: lead-in-free restore and flush (2 rows), 3 kernels; member 1:
  // a flush only (1 row), 1 kernel; member 2: 3 rows of the tool's, 2 kernels.
  const std::vector<std::size_t> tool{2, 1, 3};
  const std::vector<std::size_t> kernels{3, 1, 2};
  const StatusOr<std::vector<std::size_t>> first = batch_first_rows(tool, kernels, 12);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ(*first, (std::vector<std::size_t>{2, 6, 10}));
}

TEST(CounterLayout, only_the_members_rows_of_a_batch_are_wanted) {
  const std::vector<std::size_t> tool{2, 1, 3};
  const std::vector<std::size_t> kernels{3, 1, 2};
  const std::vector<bool> wanted = batch_rows_wanted(tool, kernels);
  EXPECT_EQ(wanted, (std::vector<bool>{false, false, true, true, true, false, true, false, false, false, true, true}));
  // Where it holds a true, batch_first_rows puts a member's kernel.
  const StatusOr<std::vector<std::size_t>> first = batch_first_rows(tool, kernels, wanted.size());
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  for (std::size_t i = 0; i < kernels.size(); ++i)
    for (std::size_t k = 0; k < kernels[i]; ++k) EXPECT_TRUE(wanted[(*first)[i] + k]) << "member " << i;
  EXPECT_TRUE(batch_rows_wanted(tool, std::vector<std::size_t>{3}).empty()) << "unequal sizes: every row";
}

TEST(CounterLayout, batch_rows_that_do_not_add_up_are_a_counter_range_mismatch) {
  const std::vector<std::size_t> tool{2, 1};
  const std::vector<std::size_t> kernels{3, 1};
  // 7 returned with one dropped: the image was full, and CUPTI opened one
  // range more than the kernels somewhere before its end.
  for (std::size_t returned : {6u, 7u, 8u}) {
    const StatusOr<std::vector<std::size_t>> first = batch_first_rows(tool, kernels, returned, 1);
    ASSERT_FALSE(first.ok());
    EXPECT_EQ(first.status().decline_reason(), DeclineReason::kCounterRangesMismatch);
    EXPECT_NE(first.status().message().find("4 kernels of 2 ranges and 3 of the tool's own"), std::string::npos)
        << first.status().message();
    EXPECT_NE(first.status().message().find("1 dropped"), std::string::npos) << first.status().message();
  }
  EXPECT_FALSE(batch_first_rows(tool, std::vector<std::size_t>{3}, 5).ok()) << "one count per member";
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
