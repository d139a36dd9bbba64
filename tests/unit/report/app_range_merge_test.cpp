// Application range replay's reports merged: the values of the run that
// collected the last pass, the kernel sequence of every run checked against
// the first application range replay run's, and the ranges range replay
// handled left as they were.
#include "report/app_range_merge.h"

#include "core/base/decline_reason.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rangereplay::report {
namespace {

KernelRecord kernel(const std::string& name, std::uint32_t grid_x, double inst = -1) {
  KernelRecord k;
  k.name = name;
  k.grid = {grid_x, 1, 1};
  k.block = {256, 1, 1};
  if (inst >= 0) k.metrics.push_back({"smsp__inst_executed.sum", "inst", inst});
  return k;
}

RangeRecord range(std::uint32_t index, const std::string& name, std::vector<KernelRecord> kernels) {
  RangeRecord r;
  r.index = index;
  r.name = name;
  r.kernels = std::move(kernels);
  return r;
}

RangeRecord declined(std::uint32_t index, const std::string& name, const std::string& reason) {
  RangeRecord r = range(index, name, {});
  r.declined = true;
  r.decline_reason = reason;
  r.decline_detail = "cuMemAlloc_v2 inside the range; allocate before the range begins";
  r.passes = 1;
  return r;
}

// Run 1 under --fallback app-range: range 0 replayed, range 1 declined
// allocation_in_range, range 2 declined stream_capture_active.
Report first_run() {
  Report r;
  r.pass_count = 3;
  RangeRecord replayed = range(0, "warmup", {kernel("init", 8, 100)});
  replayed.passes = 3;
  r.ranges = {replayed, declined(1, "step", "allocation_in_range"), declined(2, "capture", "stream_capture_active")};
  return r;
}

// A later run's report: every range matched again, `step` with its two
// kernels carrying `inst` (the values decoded from the carried image in the
// last run).
AppRunReport later_run(std::uint32_t run, double inst = -1) {
  AppRunReport r;
  r.run = run;
  r.report.ranges = {range(0, "warmup", {kernel("init", 8)}),
                     range(1, "step", {kernel("scale", 64, inst), kernel("add", 64, inst < 0 ? -1 : inst * 2)}),
                     range(2, "capture", {})};
  // The run of the last pass decodes the range's whole-range values.
  if (inst >= 0) r.report.ranges[1].range_metrics = {{"smsp__inst_executed.sum", "inst", inst * 3}};
  return r;
}

// The detail of a nondeterministic_application decline that found `difference`.
std::string detail_of(const std::string& difference) {
  return decline_report_detail(DeclineReason::kNondeterministicApplication, difference);
}

AppRunPlan fallback_plan() { return *plan_app_runs(ReplayMode::kRange, Fallback::kAppRange, 3, 0); }

TEST(AppRangeMerge, a_declined_range_takes_the_values_of_the_run_that_collected_the_last_pass) {
  const std::vector<AppRunReport> later = {later_run(2), later_run(3), later_run(4, 500)};
  const Report merged = merge_app_runs(first_run(), later, fallback_plan(), "/tmp/rr/app_runs.log");
  const RangeRecord& step = merged.ranges[1];
  EXPECT_FALSE(step.declined);
  EXPECT_EQ(step.decline_reason, "");
  EXPECT_EQ(step.decline_detail, "");
  EXPECT_EQ(step.passes, 3u);
  ASSERT_EQ(step.kernels.size(), 2u);
  ASSERT_EQ(step.kernels[0].metrics.size(), 1u);
  EXPECT_EQ(step.kernels[0].metrics[0].value, 500);
  EXPECT_EQ(step.kernels[1].metrics[0].value, 1000);
  ASSERT_EQ(step.notes.size(), 1u);
  EXPECT_EQ(step.notes[0],
            "app-range: 3 passes collected by application runs 2-4, one pass each, of 4 application runs; range "
            "replay declined it first (allocation_in_range); the later runs' output is in /tmp/rr/app_runs.log");
}

TEST(AppRangeMerge, replayed_ranges_and_ranges_the_fallback_cannot_collect_stay_as_run_one_left_them) {
  const Report first = first_run();
  const std::vector<AppRunReport> later = {later_run(2), later_run(3), later_run(4, 500)};
  const Report merged = merge_app_runs(first, later, fallback_plan(), "log");
  EXPECT_EQ(merged.ranges[0], first.ranges[0]);
  EXPECT_EQ(merged.ranges[2], first.ranges[2]);
}

TEST(AppRangeMerge, a_run_with_another_kernel_sequence_declines_the_range_nondeterministic_and_merges_nothing) {
  std::vector<AppRunReport> later = {later_run(2), later_run(3), later_run(4, 500)};
  later[1].report.ranges[1].kernels.push_back(kernel("add", 64));
  const Report merged = merge_app_runs(first_run(), later, fallback_plan(), "/tmp/rr/app_runs.log");
  const RangeRecord& step = merged.ranges[1];
  EXPECT_TRUE(step.declined);
  EXPECT_EQ(step.decline_reason, "nondeterministic_application");
  EXPECT_EQ(step.decline_detail, detail_of("run 2 ends after 2 kernels; run 3's kernel 2 is 'add (64,1,1)x(256,1,1)'"));
  EXPECT_TRUE(step.kernels.empty());
  EXPECT_TRUE(step.range_metrics.empty());
  ASSERT_EQ(step.notes.size(), 1u);
  EXPECT_EQ(step.notes[0],
            "app-range: not merged; range replay declined it first (allocation_in_range); the later runs' output is "
            "in /tmp/rr/app_runs.log");
}

TEST(AppRangeMerge, a_run_that_declined_the_range_leaves_it_declined_with_that_runs_reason) {
  std::vector<AppRunReport> later = {later_run(2), later_run(3), later_run(4, 500)};
  later[1].report.ranges[1].declined = true;
  later[1].report.ranges[1].decline_reason = "counters_unavailable";
  later[1].report.ranges[1].decline_detail = "cuptiRangeProfilerStart failed";
  const Report merged = merge_app_runs(first_run(), later, fallback_plan(), "log");
  const RangeRecord& step = merged.ranges[1];
  EXPECT_TRUE(step.declined);
  EXPECT_EQ(step.decline_reason, "counters_unavailable");
  EXPECT_EQ(step.decline_detail, "application run 3: cuptiRangeProfilerStart failed");
  EXPECT_TRUE(step.range_metrics.empty());
  for (const KernelRecord& k : step.kernels) EXPECT_TRUE(k.metrics.empty());
  ASSERT_EQ(step.notes.size(), 1u);
  EXPECT_EQ(step.notes[0],
            "app-range: not merged: application run 3 declined it; range replay declined it first "
            "(allocation_in_range); the later runs' output is in log");
}

TEST(AppRangeMerge, a_different_grid_is_named_with_both_runs) {
  std::vector<AppRunReport> later = {later_run(2), later_run(3), later_run(4, 500)};
  later[2].report.ranges[1].kernels[1].grid.x = 65;
  const Report merged = merge_app_runs(first_run(), later, fallback_plan(), "log");
  const RangeRecord& step = merged.ranges[1];
  EXPECT_EQ(step.decline_reason, "nondeterministic_application");
  EXPECT_EQ(step.decline_detail,
            detail_of("kernel 1 is 'add (64,1,1)x(256,1,1)' in run 2 and 'add (65,1,1)x(256,1,1)' in run 4"));
  ASSERT_EQ(step.kernels.size(), 0u);
}

TEST(AppRangeMerge, a_run_that_matched_fewer_ranges_is_nondeterministic_for_the_missing_one) {
  std::vector<AppRunReport> later = {later_run(2), later_run(3), later_run(4, 500)};
  later[0].report.ranges.resize(1);
  const Report merged = merge_app_runs(first_run(), later, fallback_plan(), "log");
  const RangeRecord& step = merged.ranges[1];
  EXPECT_EQ(step.decline_reason, "nondeterministic_application");
  // Run 3 is the earliest run that matched it, so it is the reference.
  EXPECT_EQ(step.decline_detail, detail_of("run 2 matched no range 1 'step'"));
}

TEST(AppRangeMerge, a_range_of_another_name_at_the_same_index_is_nondeterministic) {
  std::vector<AppRunReport> later = {later_run(2), later_run(3), later_run(4, 500)};
  later[2].report.ranges[1].name = "init";
  const Report merged = merge_app_runs(first_run(), later, fallback_plan(), "log");
  EXPECT_EQ(merged.ranges[1].decline_detail, detail_of("range 1 is 'step' in run 2 and 'init' in run 4"));
}

TEST(AppRangeMerge, runs_stopped_before_the_last_pass_leave_the_range_declined_with_a_note) {
  const std::vector<AppRunReport> later = {later_run(2), later_run(3)};
  const Report merged = merge_app_runs(first_run(), later, fallback_plan(), "log");
  const RangeRecord& step = merged.ranges[1];
  EXPECT_TRUE(step.declined);
  EXPECT_EQ(step.decline_reason, "allocation_in_range");
  ASSERT_EQ(step.notes.size(), 1u);
  EXPECT_EQ(step.notes[0],
            "app-range: no values merged: the runs stopped before run 4 (the last pass); the later runs' output is "
            "in log");
}

TEST(AppRangeMerge, under_app_range_mode_ranges_without_their_last_pass_decline_incomplete) {
  const AppRunPlan plan = *plan_app_runs(ReplayMode::kAppRange, Fallback::kNone, 3, 0);
  Report first;
  first.ranges = {range(0, "step", {kernel("scale", 64)})};
  AppRunReport second;
  second.run = 2;
  second.report.ranges = {range(0, "step", {kernel("scale", 64)})};
  const Report stopped = merge_app_runs(first, {&second, 1}, plan, "log");
  EXPECT_EQ(stopped.ranges[0].decline_reason, "app_range_incomplete");
  EXPECT_EQ(stopped.ranges[0].decline_detail,
            decline_report_detail(DeclineReason::kAppRangeIncomplete,
                                  "the runs stopped before run 3 (the last pass); the later runs' output is in log"));
  // The last run came, but decoded nothing.
  AppRunReport third = second;
  third.run = 3;
  const std::vector<AppRunReport> all = {second, third};
  const Report empty = merge_app_runs(first, all, plan, "log");
  EXPECT_EQ(empty.ranges[0].decline_reason, "app_range_incomplete");
  EXPECT_NE(empty.ranges[0].decline_detail.find("decoded no values"), std::string::npos)
      << empty.ranges[0].decline_detail;
  // No run could be made.
  Report none = first;
  decline_unmeasured_app_ranges(none, "the first run exited with 1");
  EXPECT_EQ(none.ranges[0].decline_reason, "app_range_incomplete");
  EXPECT_EQ(none.ranges[0].decline_detail,
            decline_report_detail(DeclineReason::kAppRangeIncomplete, "the first run exited with 1"));
}

TEST(AppRangeMerge, a_run_that_differs_before_a_run_that_declines_gives_nondeterministic_application) {
  // Run 2 matched no `step` at index 1; run 3 then refused the range as out of step.
  std::vector<AppRunReport> later = {later_run(2), later_run(3), later_run(4, 500)};
  later[0].report.ranges.erase(later[0].report.ranges.begin() + 1);
  later[1].report.ranges[1].declined = true;
  later[1].report.ranges[1].decline_reason = "counters_unavailable";
  const Report merged = merge_app_runs(first_run(), later, fallback_plan(), "log");
  EXPECT_EQ(merged.ranges[1].decline_reason, "nondeterministic_application");
  EXPECT_EQ(merged.ranges[1].decline_detail, detail_of("run 2 matched no range 1 'step'"));
}

TEST(AppRangeMerge, no_later_run_leaves_the_range_declined_with_a_note) {
  const Report merged = merge_app_runs(first_run(), {}, fallback_plan(), "log");
  EXPECT_EQ(merged.ranges[1].decline_reason, "allocation_in_range");
  ASSERT_EQ(merged.ranges[1].notes.size(), 1u);
  EXPECT_EQ(merged.ranges[1].notes[0], "app-range: no values merged: the runs stopped before run 2");
}

TEST(AppRangeMerge, app_range_mode_measures_every_range_against_run_one) {
  const AppRunPlan plan = *plan_app_runs(ReplayMode::kAppRange, Fallback::kNone, 2, 0);
  Report first;
  first.ranges = {range(0, "step", {kernel("scale", 64)}), range(1, "step", {kernel("scale", 64)})};
  AppRunReport second;
  second.run = 2;
  second.report.ranges = {range(0, "step", {kernel("scale", 64, 7)}), range(1, "step", {kernel("scale", 32, 9)})};
  second.report.ranges[0].range_metrics = {{"smsp__inst_executed.sum", "inst", 7}};
  const Report merged = merge_app_runs(first, {&second, 1}, plan, "log");
  EXPECT_FALSE(merged.ranges[0].declined);
  EXPECT_EQ(merged.ranges[0].kernels[0].metrics[0].value, 7);
  EXPECT_EQ(merged.ranges[0].passes, 2u);
  EXPECT_EQ(merged.ranges[0].notes[0],
            "app-range: 2 passes collected by application runs 1-2, one pass each, of 2 application runs; the later "
            "runs' output is in log");
  EXPECT_EQ(merged.ranges[1].decline_reason, "nondeterministic_application");
  EXPECT_EQ(merged.ranges[1].decline_detail,
            detail_of("kernel 0 is 'scale (64,1,1)x(256,1,1)' in run 1 and 'scale (32,1,1)x(256,1,1)' in run 2"));
}

TEST(AppRangeMerge, a_plan_without_application_runs_changes_nothing) {
  const Report first = first_run();
  const AppRunPlan plan = *plan_app_runs(ReplayMode::kRange, Fallback::kNone, 3, 0);
  EXPECT_EQ(merge_app_runs(first, {}, plan, "log"), first);
}

TEST(AppRangeMerge, only_collectable_declines_are_measured_under_the_fallback) {
  const AppRunPlan plan = fallback_plan();
  EXPECT_TRUE(measured_by_app_runs(declined(0, "a", "free_in_range"), plan));
  EXPECT_FALSE(measured_by_app_runs(declined(0, "a", "no_kernel_in_range"), plan));
  EXPECT_FALSE(measured_by_app_runs(declined(0, "a", "not_a_reason"), plan));
  EXPECT_FALSE(measured_by_app_runs(range(0, "a", {}), plan));
}

// --set triage's one run: the plan of one pass and one run takes run 1's
// values and samples as they are.
TEST(AppRangeMerge, a_one_run_plan_keeps_run_ones_totals_and_samples) {
  Report first;
  first.pass_count = 1;
  RangeRecord step = range(0, "step", {kernel("scale", 64)});
  step.range_metrics = {{"smsp__inst_executed.sum", "inst", 300}};
  step.samples = std::vector<MetricSample>{{0.0, 0.5, {100}}, {0.5, 1.0, {200}}};
  first.ranges = {step};
  const AppRunPlan plan = *plan_app_runs(ReplayMode::kAppRange, Fallback::kNone, 1, 0);
  ASSERT_EQ(plan.total_runs, 1u);
  const Report merged = merge_app_runs(first, {}, plan, "");
  ASSERT_EQ(merged.ranges.size(), 1u);
  EXPECT_FALSE(merged.ranges[0].declined);
  EXPECT_EQ(merged.ranges[0].range_metrics, step.range_metrics);
  EXPECT_EQ(merged.ranges[0].samples, step.samples);
}

TEST(AppRangeMerge, the_last_runs_samples_are_merged_and_a_decline_drops_them) {
  std::vector<AppRunReport> later = {later_run(2), later_run(3), later_run(4, 10)};
  later[2].report.ranges[1].samples = std::vector<MetricSample>{{0.0, 1.0, {30}}};
  const Report merged = merge_app_runs(first_run(), later, fallback_plan(), "log");
  EXPECT_EQ(merged.ranges[1].samples, later[2].report.ranges[1].samples);
  // A run with other kernels declines the range: nothing of the runs stays.
  Report first = first_run();
  first.ranges[0].samples = std::vector<MetricSample>{{0.0, 1.0, {1}}};
  AppRunPlan plan = *plan_app_runs(ReplayMode::kAppRange, Fallback::kNone, 3, 0);
  std::vector<AppRunReport> differ = {later_run(2), later_run(3, 10)};
  differ[0].report.ranges[0].kernels[0].grid.x = 16;
  const Report declined_range = merge_app_runs(first, differ, plan, "log");
  EXPECT_TRUE(declined_range.ranges[0].declined);
  EXPECT_EQ(declined_range.ranges[0].samples, std::vector<MetricSample>{});
}

}  // namespace
}  // namespace rangereplay::report
