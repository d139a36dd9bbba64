// The plan of application range replay runs: how many runs a metric list
// needs, which pass each run collects, the --max-app-runs cap, and which
// declined ranges the fallback can collect.
#include "core/interprocess/app_runs.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace rangereplay {
namespace {

TEST(AppRuns, range_replay_without_fallback_is_one_run_that_collects_no_app_range_pass) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kRange, Fallback::kNone, 40, 0);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->total_runs, 1u);
  EXPECT_FALSE(plan->uses_app_runs());
  EXPECT_EQ(plan->pass_of_run(1), std::nullopt);
}

TEST(AppRuns, fallback_adds_one_run_per_pass_after_the_first) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kRange, Fallback::kAppRange, 40, 0);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->total_runs, 41u);
  EXPECT_EQ(plan->first_app_range_run, 2u);
  EXPECT_EQ(plan->pass_count, 40u);
  EXPECT_EQ(plan->pass_of_run(1), std::nullopt);
  EXPECT_EQ(plan->pass_of_run(2), 0u);
  EXPECT_EQ(plan->pass_of_run(3), 1u);
  EXPECT_EQ(plan->pass_of_run(41), 39u);
  EXPECT_EQ(plan->pass_of_run(42), std::nullopt);
  EXPECT_EQ(plan->pass_of_run(0), std::nullopt);
}

TEST(AppRuns, app_range_mode_runs_the_application_once_per_pass_from_run_one) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kAppRange, Fallback::kNone, 3, 0);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->total_runs, 3u);
  EXPECT_EQ(plan->first_app_range_run, 1u);
  EXPECT_EQ(plan->pass_of_run(1), 0u);
  EXPECT_EQ(plan->pass_of_run(2), 1u);
  EXPECT_EQ(plan->pass_of_run(3), 2u);
  EXPECT_EQ(plan->pass_of_run(4), std::nullopt);
}

TEST(AppRuns, a_one_pass_list_in_app_range_mode_is_one_run) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kAppRange, Fallback::kNone, 1, 1);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->total_runs, 1u);
  EXPECT_EQ(plan->pass_of_run(1), 0u);
}

TEST(AppRuns, the_cap_allows_exactly_the_runs_needed) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kRange, Fallback::kAppRange, 4, 5);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->total_runs, 5u);
}

TEST(AppRuns, runs_above_the_cap_are_refused_in_one_line_naming_both_numbers_and_the_fix) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kRange, Fallback::kAppRange, 40, 20);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(plan.status().message(),
            "the metrics need 40 passes, so app-range needs 41 application runs, above --max-app-runs 20; raise "
            "--max-app-runs to 41, or ask for fewer metrics (--metrics, a smaller --set)");
}

TEST(AppRuns, the_cap_counts_a_single_pass_in_the_singular) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kRange, Fallback::kAppRange, 1, 1);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(),
            "the metrics need 1 pass, so app-range needs 2 application runs, above --max-app-runs 1; raise "
            "--max-app-runs to 2, or ask for fewer metrics (--metrics, a smaller --set)");
}

TEST(AppRuns, the_cap_does_not_apply_to_range_replay_alone) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kRange, Fallback::kNone, 40, 1);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->total_runs, 1u);
}

TEST(AppRuns, fallback_with_app_range_mode_is_refused) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kAppRange, Fallback::kAppRange, 2, 0);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("drop --fallback"), std::string::npos);
}

TEST(AppRuns, zero_passes_are_refused) {
  StatusOr<AppRunPlan> plan = plan_app_runs(ReplayMode::kAppRange, Fallback::kNone, 0, 0);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
}

TEST(AppRuns, mode_and_fallback_names_are_nsight_computes) {
  EXPECT_EQ(name_of(kReplayModeNames, ReplayMode::kAppRange), "app-range");
  EXPECT_EQ(name_of(kReplayModeNames, ReplayMode::kRange), "range");
  EXPECT_EQ(value_named(kFallbackNames, "app-range"), Fallback::kAppRange);
  EXPECT_EQ(value_named(kFallbackNames, "none"), Fallback::kNone);
  EXPECT_EQ(value_named(kFallbackNames, "application"), std::nullopt);
}

TEST(AppRuns, the_fallback_collects_snapshot_and_recorder_limits_but_not_uncountable_work) {
  EXPECT_TRUE(fallback_can_collect(DeclineReason::kAllocationInRange));
  EXPECT_TRUE(fallback_can_collect(DeclineReason::kFreeInRange));
  EXPECT_TRUE(fallback_can_collect(DeclineReason::kUnsupportedApi));
  EXPECT_TRUE(fallback_can_collect(DeclineReason::kSnapshotDoesNotFit));
  EXPECT_TRUE(fallback_can_collect(DeclineReason::kHostFunctionInRange));
  EXPECT_FALSE(fallback_can_collect(DeclineReason::kStreamCaptureActive));
  EXPECT_FALSE(fallback_can_collect(DeclineReason::kNoKernelInRange));
  EXPECT_FALSE(fallback_can_collect(DeclineReason::kCountersNotPermitted));
  EXPECT_FALSE(fallback_can_collect(DeclineReason::kMultipleContexts));
  EXPECT_FALSE(fallback_can_collect(DeclineReason::kNondeterministicApplication));
  EXPECT_FALSE(fallback_can_collect(DeclineReason::kPeerDeclined));
  EXPECT_FALSE(fallback_can_collect(DeclineReason::kRendezvousFailed));
  EXPECT_TRUE(fallback_can_collect(DeclineReason::kWriteSetLearned));
  EXPECT_TRUE(fallback_can_collect(DeclineReason::kWriteSetExceeded));
  EXPECT_TRUE(fallback_can_collect(DeclineReason::kCounterRangesMismatch));
  int collectable = 0;
  for (DeclineReason r : all_decline_reasons()) collectable += fallback_can_collect(r) ? 1 : 0;
  EXPECT_EQ(collectable, 15);
}

}  // namespace
}  // namespace rangereplay
