// The launcher's loop over application range replay's later runs: run 2 (or
// 1) to the plan's last, one application run per counter pass, each handed to
// a runner the launcher supplies (it starts the application with the
// injection configured for that run's pass, sends its output to the log, and
// reads its report back), with a progress line per run and a stop request
// (Ctrl-C) honoured between runs. The loop neither starts processes nor
// handles signals itself, so it is tested with a fake runner:
//
//   std::atomic<bool> stop{false};                      // set by the SIGINT handler
//   AppRunLoopResult r = run_app_runs(plan, runner, stop, [](const std::string& l) { std::cerr << l << "\n"; });
//   Report merged = report::merge_app_runs(first, r.reports, plan, log_path);
//
// The launcher calls it through run_app_range_replay (cli/app_range_runs.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/interprocess/app_runs.h"
#include "report/app_range_merge.h"
#include "report/report_model.h"

namespace rangereplay::cli {

/// What one application run left: its exit code (128+N for signal N) and its
/// report, nullopt when it wrote none or the report could not be read
/// (`report_error` says why, one line).
struct AppRunOutcome {
  int exit_code = 0;
  std::optional<report::Report> report;
  std::string report_error;
};

/// Runs the application once as run `run` (from 1) collecting pass `pass`
/// (from 0). Called on the loop's thread, one run at a time.
using AppRunner = std::function<AppRunOutcome(std::uint32_t run, std::uint32_t pass)>;

/// The runs the loop made: the reports of those that wrote one, in run order,
/// and why it ended before the plan's last run ("" when it made every run).
struct AppRunLoopResult {
  std::vector<report::AppRunReport> reports;
  std::uint32_t runs_made = 0;  // runs started by the loop (run 1 under --fallback is not one of them)
  std::string stopped_because;  // one line, e.g. "stopped by the user after run 3 of 41"
};

/// Makes the plan's application range replay runs after run 1: runs 2 to
/// plan.total_runs (run 1 is the launcher's ordinary first run, under
/// --replay-mode app-range as under --fallback). Before each run it prints
/// `progress` "run <k> of <n>: collecting pass <p> of <P>" and checks `stop`:
/// once set, no further run starts. A run that exits non-zero or writes no
/// report ends the loop too (a later pass of a failed run cannot be merged),
/// named in stopped_because. Nothing for a plan without application range
/// replay runs, or one of a single run. Thread-safety: `stop` may be set from
/// any thread or a signal handler; everything else runs on the caller's thread.
AppRunLoopResult run_app_runs(const AppRunPlan& plan, const AppRunner& runner, const std::atomic<bool>& stop,
                              const std::function<void(const std::string&)>& progress);

}  // namespace rangereplay::cli
