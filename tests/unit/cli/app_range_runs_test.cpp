// Application range replay's later runs as the launcher makes them, with a
// stand-in application (a shell script) that writes the report its run
// would: which ranges the runs collect, each run's configuration (its pass,
// the ranges, the state folder, no gate), the log of their output, the
// merge into the first run's report, and the cases where no run is made.
#include "cli/app_range_runs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/environment.h"
#include "report/report_json.h"
#include "temp_tree.h"

namespace rangereplay::cli {
namespace {

using testing::TempTree;

report::KernelRecord kernel(const std::string& name) {
  report::KernelRecord k;
  k.name = name;
  k.grid = {64, 1, 1};
  k.block = {256, 1, 1};
  return k;
}

// Run 1 under --fallback app-range: range 0 replayed, range 1 declined
// allocation_in_range (collectable), range 2 declined stream_capture_active.
report::Report first_run() {
  report::Report r;
  r.pass_count = 2;
  report::RangeRecord replayed;
  replayed.index = 0;
  replayed.name = "warmup";
  replayed.passes = 2;
  report::RangeRecord step;
  step.index = 1;
  step.name = "step";
  step.declined = true;
  step.decline_reason = "allocation_in_range";
  report::RangeRecord capture;
  capture.index = 2;
  capture.name = "capture";
  capture.declined = true;
  capture.decline_reason = "stream_capture_active";
  r.ranges = {replayed, step, capture};
  return r;
}

// The report a later run writes: `step` with one kernel and, in the last
// run, its values.
report::Report later_report(bool last) {
  report::Report r;
  report::RangeRecord step;
  step.index = 1;
  step.name = "step";
  step.kernels = {kernel("scale")};
  step.counter_ranges = "whole";
  if (last) step.range_metrics = {{"smsp__inst_executed.sum", "inst", 4096}};
  r.ranges = {step};
  return r;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A stand-in application: prints its gate variable, then copies the report
// of its pass (report_<pass>.json beside it) to its configuration's report
// path, "%p" replaced by its pid; exits with `exit_code`.
std::string fake_app(const TempTree& t, int exit_code = 0, const std::string& extra = "") {
  const std::string script =
      "#!/bin/sh\n"
      "echo \"gate=${RANGEREPLAY_GATE-unset}\"\n"
      "state=$(sed -n 's/.*\"state_dir\": \"\\(.*\\)\".*/\\1/p' \"$RANGEREPLAY_CONFIG\")\n"
      "test -d \"$state\" || { echo \"no state folder $state\"; exit 9; }\n"
      "read -r line && echo \"stdin: $line\"\n" +
      extra +
      "\n"
      "out=$(sed -n 's/.*\"report_path\": \"\\(.*\\)\".*/\\1/p' \"$RANGEREPLAY_CONFIG\")\n"
      "pass=$(tr -d ' \\n' < \"$RANGEREPLAY_CONFIG\" | sed -n 's/.*\"pass\":\\([0-9]*\\).*/\\1/p')\n"
      "cp \"" +
      t.root() + "/report_$pass.json\" \"$(echo \"$out\" | sed \"s/%p/$$/\")\"\n" + "exit " +
      std::to_string(exit_code) + "\n";
  return t.file("app.sh", 0755, script);
}

struct Runs {
  explicit Runs(int exit_code = 0, const std::string& extra = "") {
    app = fake_app(tree, exit_code, extra);
    EXPECT_TRUE(report::write_report_json(later_report(false), tree.path("report_0.json")).ok());
    EXPECT_TRUE(report::write_report_json(later_report(true), tree.path("report_1.json")).ok());
    runs.child.path = app;
    runs.child.argv = {app};
    runs.child.env = current_environment();
    runs.child.env.push_back(std::string(environment::kGate) + "=7");
    runs.config.metrics = {"smsp__inst_executed.sum"};
    runs.config.command = {app};
    runs.folder = tree.folder("launch");
    runs.log_path = app_runs_log_path(runs.folder);
    request.fallback = Fallback::kAppRange;
  }
  TempTree tree;
  std::string app;
  AppRangeRuns runs;
  ProfileRequest request;
  std::vector<std::string> progress, warnings;
  report::Report replay(report::Report first, int first_exit = 0) {
    AppRangeReplay out = run_app_range_replay(
        request, runs, std::move(first), first_exit, 0, [&](const std::string& l) { progress.push_back(l); },
        [&](const std::string& l) { warnings.push_back(l); });
    stop_signal = out.stop_signal;
    kept_log = out.kept_log;
    return out.report;
  }
  int stop_signal = 0;
  std::string kept_log;
};

TEST(AppRangeRuns, the_fallback_collects_the_collectable_declines_only) {
  const AppRunPlan plan = *plan_app_runs(ReplayMode::kRange, Fallback::kAppRange, 2, 0);
  EXPECT_EQ(app_range_indices(first_run(), plan), std::vector<std::uint32_t>{1});
  const AppRunPlan every = *plan_app_runs(ReplayMode::kAppRange, Fallback::kNone, 2, 0);
  EXPECT_EQ(app_range_indices(first_run(), every), std::vector<std::uint32_t>{0});
}

TEST(AppRangeRuns, a_later_run_configuration_names_its_pass_ranges_and_state) {
  ProfileConfig base;
  base.metrics = {"a"};
  base.report_path = "/run1/report.%p.json";
  const ProfileConfig c = app_run_config(base, 3, "/f/app_range", {1, 4}, "/f/run_5/report.%p.json");
  ASSERT_TRUE(c.app_range.has_value());
  EXPECT_EQ(*c.app_range, (AppRangeRun{3, "/f/app_range", false, {1, 4}}));
  EXPECT_EQ(c.report_path, "/f/run_5/report.%p.json");
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(c.metrics, base.metrics);
  EXPECT_EQ(app_range_state_dir("/f"), "/f/app_range");
}

TEST(AppRangeRuns, the_fallback_runs_the_application_once_per_pass_and_merges_the_last_runs_values) {
  Runs s;
  const report::Report merged = s.replay(first_run());
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  const report::RangeRecord& step = merged.ranges[1];
  EXPECT_FALSE(step.declined) << step.decline_reason << ": " << step.decline_detail;
  ASSERT_EQ(step.range_metrics.size(), 1u);
  EXPECT_EQ(step.range_metrics[0].value, 4096);
  EXPECT_EQ(step.passes, 2u);
  EXPECT_TRUE(merged.ranges[2].declined);
  // Runs 2 and 3 collected passes 1 and 2 of range 1 only, without the gate.
  for (std::uint32_t run : {2u, 3u}) {
    StatusOr<ProfileConfig> c = read_profile_config(s.runs.folder + "/run_" + std::to_string(run) + "/config.json");
    ASSERT_TRUE(c.ok()) << c.status().message();
    ASSERT_TRUE(c->app_range.has_value());
    EXPECT_EQ(c->app_range->pass, run - 2);
    EXPECT_EQ(c->app_range->ranges, std::vector<std::uint32_t>{1});
    EXPECT_EQ(c->app_range->state_dir, s.runs.folder + "/app_range");
  }
  const std::string log = read_file(s.runs.log_path);
  EXPECT_NE(log.find("==== rangereplay: application run 2, counter pass 1 ===="), std::string::npos) << log;
  EXPECT_NE(log.find("==== rangereplay: application run 3, counter pass 2 ===="), std::string::npos) << log;
  EXPECT_EQ(log.find("gate=7"), std::string::npos) << log;
  EXPECT_NE(log.find("gate=unset"), std::string::npos) << log;
  EXPECT_EQ(log.find("stdin:"), std::string::npos) << log;  // read from /dev/null
  EXPECT_EQ(log.find("no state folder"), std::string::npos) << log;
  EXPECT_EQ(s.stop_signal, 0);
  ASSERT_FALSE(s.progress.empty());
  EXPECT_EQ(s.progress.front(),
            "--fallback app-range: 2 more application runs for 1 ranges; their output goes to " + s.runs.log_path);
  // Every run succeeded: the log goes with the launcher's folder, and the
  // report does not name it.
  EXPECT_EQ(s.kept_log, "");
  EXPECT_EQ(step.notes.back().find(s.runs.log_path), std::string::npos) << step.notes.back();
  EXPECT_EQ(step.notes.back().find("output is in"), std::string::npos) << step.notes.back();
}

TEST(AppRangeRuns, the_log_is_private_in_the_launchers_folder) {
  EXPECT_EQ(app_runs_log_path("/tmp/rangereplay-Ab12Cd"), "/tmp/rangereplay-Ab12Cd/app-runs.log");
  Runs s;
  s.replay(first_run());
  struct stat st {};
  ASSERT_EQ(::stat(s.runs.log_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(AppRangeRuns, a_symlink_at_the_log_name_is_not_followed) {
  Runs s;
  const std::string victim = s.tree.file("victim", 0644, "precious");
  std::filesystem::create_symlink(victim, s.runs.log_path);
  const report::Report merged = s.replay(first_run());
  EXPECT_EQ(read_file(victim), "precious");
  EXPECT_TRUE(std::filesystem::is_symlink(s.runs.log_path));
  // The run could not start (its log could not be opened): the runs stop.
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0],
            "--fallback app-range: run 2 of 3 exited with 1 (the first run's exit code is the one returned)");
  EXPECT_TRUE(merged.ranges[1].declined);
}

TEST(AppRangeRuns, a_failing_later_run_stops_the_runs_and_merges_nothing) {
  Runs s(/*exit_code=*/3);
  const report::Report merged = s.replay(first_run());
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0],
            "--fallback app-range: run 2 of 3 exited with 3 (the first run's exit code is the one returned)");
  EXPECT_TRUE(merged.ranges[1].declined);
  EXPECT_EQ(merged.ranges[1].decline_reason, "allocation_in_range");
  // The log explains the failure: kept for the launcher to name.
  EXPECT_EQ(s.kept_log, s.runs.log_path);
  EXPECT_NE(read_file(s.runs.log_path).find("application run 2, counter pass 1"), std::string::npos);
}

TEST(AppRangeRuns, no_run_is_made_without_a_collectable_decline_or_after_a_failed_first_run) {
  Runs s;
  report::Report all_replayed = first_run();
  all_replayed.ranges.erase(all_replayed.ranges.begin() + 1);
  EXPECT_EQ(s.replay(all_replayed), all_replayed);
  EXPECT_EQ(s.progress,
            std::vector<std::string>{"--fallback app-range: no declined range it can collect; no further run"});
  EXPECT_FALSE(std::filesystem::exists(s.runs.log_path));

  const report::Report first = first_run();
  EXPECT_EQ(s.replay(first, 1), first);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "--fallback app-range: the first run exited with 1, so no further run was made");
}

TEST(AppRangeRuns, runs_above_the_cap_are_not_made) {
  Runs s;
  s.request.max_app_runs = 2;
  const report::Report first = first_run();
  EXPECT_EQ(s.replay(first), first);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("--max-app-runs 2"), std::string::npos) << s.warnings[0];
  EXPECT_EQ(s.replay(first).ranges[1].decline_reason, "allocation_in_range");  // keeps run 1's reason
}

TEST(AppRangeRuns, a_signal_during_a_run_stops_the_runs_even_when_the_application_exits_0) {
  // The stand-in sends SIGINT to the launcher (this test), which forwards it.
  Runs s(0, "trap '' INT; kill -INT $PPID; sleep 0.2");
  const report::Report merged = s.replay(first_run());
  EXPECT_EQ(s.stop_signal, SIGINT);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "--fallback app-range: stopped by the user after run 2 of 3");
  EXPECT_TRUE(merged.ranges[1].declined);
  EXPECT_EQ(merged.ranges[1].decline_reason, "allocation_in_range");
}

TEST(AppRangeRuns, under_app_range_mode_a_failed_first_run_declines_its_ranges_incomplete) {
  Runs s;
  s.request.fallback = Fallback::kNone;
  s.request.replay_mode = ReplayMode::kAppRange;
  report::Report first = first_run();
  first.ranges.resize(1);
  first.ranges[0].notes = {"app-range: pass 1 of 2 collected in this run"};
  const report::Report out = s.replay(first, 1);
  EXPECT_EQ(out.ranges[0].decline_reason, "app_range_incomplete");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "--replay-mode app-range: the first run exited with 1, so no further run was made");
}

}  // namespace
}  // namespace rangereplay::cli
