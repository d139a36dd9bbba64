// The loop over application range replay's later runs, with a fake runner:
// which run collects which pass, the progress lines, a stop request between
// runs, and a failed run ending the loop.
#include "cli/app_run_loop.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace rangereplay::cli {
namespace {

// A runner that records (run, pass) and answers each run with a report whose
// one range names the run, or with `failing_run`'s exit code 3.
struct FakeRunner {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> calls;
  std::uint32_t failing_run = 0;
  std::uint32_t reportless_run = 0;
  std::atomic<bool>* stop_after_call = nullptr;
  std::uint32_t stop_after_run = 0;

  AppRunner runner() {
    return [this](std::uint32_t run, std::uint32_t pass) {
      calls.emplace_back(run, pass);
      if (stop_after_call != nullptr && run == stop_after_run) stop_after_call->store(true);
      AppRunOutcome out;
      if (run == failing_run) {
        out.exit_code = 3;
        return out;
      }
      if (run == reportless_run) {
        out.report_error = "report.123.json: no such file";
        return out;
      }
      report::Report r;
      report::RangeRecord range;
      range.name = "run" + std::to_string(run);
      r.ranges.push_back(range);
      out.report = r;
      return out;
    };
  }
};

AppRunPlan fallback_plan(std::uint32_t passes) {
  return *plan_app_runs(ReplayMode::kRange, Fallback::kAppRange, passes, 0);
}

TEST(AppRunLoop, each_later_run_collects_its_pass_and_prints_run_k_of_n) {
  FakeRunner fake;
  std::vector<std::string> lines;
  const std::atomic<bool> stop{false};
  const AppRunLoopResult r =
      run_app_runs(fallback_plan(3), fake.runner(), stop, [&](const std::string& l) { lines.push_back(l); });
  EXPECT_EQ(fake.calls, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{2, 0}, {3, 1}, {4, 2}}));
  EXPECT_EQ(lines, (std::vector<std::string>{"run 2 of 4: collecting pass 1 of 3", "run 3 of 4: collecting pass 2 of 3",
                                             "run 4 of 4: collecting pass 3 of 3"}));
  EXPECT_EQ(r.runs_made, 3u);
  EXPECT_EQ(r.stopped_because, "");
  ASSERT_EQ(r.reports.size(), 3u);
  EXPECT_EQ(r.reports[0].run, 2u);
  EXPECT_EQ(r.reports[2].run, 4u);
  EXPECT_EQ(r.reports[2].report.ranges[0].name, "run4");
}

TEST(AppRunLoop, app_range_mode_starts_after_run_one_which_collected_pass_zero) {
  FakeRunner fake;
  const std::atomic<bool> stop{false};
  const AppRunPlan plan = *plan_app_runs(ReplayMode::kAppRange, Fallback::kNone, 3, 0);
  const AppRunLoopResult r = run_app_runs(plan, fake.runner(), stop, [](const std::string&) {});
  EXPECT_EQ(fake.calls, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{2, 1}, {3, 2}}));
  EXPECT_EQ(r.runs_made, 2u);
}

TEST(AppRunLoop, a_stop_request_ends_the_loop_before_the_next_run_and_keeps_what_was_collected) {
  FakeRunner fake;
  std::atomic<bool> stop{false};
  fake.stop_after_call = &stop;
  fake.stop_after_run = 3;
  const AppRunLoopResult r = run_app_runs(fallback_plan(5), fake.runner(), stop, [](const std::string&) {});
  EXPECT_EQ(fake.calls.size(), 2u);
  EXPECT_EQ(r.runs_made, 2u);
  EXPECT_EQ(r.reports.size(), 2u);
  EXPECT_EQ(r.stopped_because, "stopped by the user after run 3 of 6");
}

TEST(AppRunLoop, a_stop_request_before_the_first_later_run_makes_none) {
  FakeRunner fake;
  const std::atomic<bool> stop{true};
  const AppRunLoopResult r = run_app_runs(fallback_plan(2), fake.runner(), stop, [](const std::string&) {});
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_EQ(r.stopped_because, "stopped by the user after run 1 of 3");
}

TEST(AppRunLoop, a_run_that_fails_ends_the_loop_naming_its_exit_code) {
  FakeRunner fake;
  fake.failing_run = 3;
  const std::atomic<bool> stop{false};
  const AppRunLoopResult r = run_app_runs(fallback_plan(4), fake.runner(), stop, [](const std::string&) {});
  EXPECT_EQ(r.runs_made, 2u);
  EXPECT_EQ(r.reports.size(), 1u);
  EXPECT_EQ(r.stopped_because, "run 3 of 5 exited with 3 (the first run's exit code is the one returned)");
}

TEST(AppRunLoop, a_run_without_a_report_ends_the_loop_naming_why) {
  FakeRunner fake;
  fake.reportless_run = 2;
  const std::atomic<bool> stop{false};
  const AppRunLoopResult r = run_app_runs(fallback_plan(4), fake.runner(), stop, [](const std::string&) {});
  EXPECT_EQ(r.runs_made, 1u);
  EXPECT_TRUE(r.reports.empty());
  EXPECT_EQ(r.stopped_because, "run 2 of 5 wrote no report: report.123.json: no such file");
}

TEST(AppRunLoop, a_plan_without_application_runs_makes_none) {
  FakeRunner fake;
  const std::atomic<bool> stop{false};
  const AppRunPlan plan = *plan_app_runs(ReplayMode::kRange, Fallback::kNone, 4, 0);
  const AppRunLoopResult r = run_app_runs(plan, fake.runner(), stop, [](const std::string&) {});
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_EQ(r.runs_made, 0u);
}

}  // namespace
}  // namespace rangereplay::cli
