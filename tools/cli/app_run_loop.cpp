// The loop over application range replay's later runs (see app_run_loop.h).
#include "cli/app_run_loop.h"

namespace rangereplay::cli {

AppRunLoopResult run_app_runs(const AppRunPlan& plan, const AppRunner& runner, const std::atomic<bool>& stop,
                              const std::function<void(const std::string&)>& progress) {
  AppRunLoopResult result;
  if (!plan.uses_app_runs()) return result;
  const std::string of_runs = " of " + std::to_string(plan.total_runs);
  for (std::uint32_t run = 2; run <= plan.total_runs; ++run) {
    if (stop.load()) {
      result.stopped_because = "stopped by the user after run " + std::to_string(run - 1) + of_runs;
      return result;
    }
    const std::uint32_t pass = *plan.pass_of_run(run);
    progress("run " + std::to_string(run) + of_runs + ": collecting pass " + std::to_string(pass + 1) + " of " +
             std::to_string(plan.pass_count));
    AppRunOutcome outcome = runner(run, pass);
    ++result.runs_made;
    if (outcome.exit_code != 0) {
      result.stopped_because = "run " + std::to_string(run) + of_runs + " exited with " +
                               std::to_string(outcome.exit_code) + " (the first run's exit code is the one returned)";
      return result;
    }
    if (!outcome.report) {
      result.stopped_because = "run " + std::to_string(run) + of_runs + " wrote no report" +
                               (outcome.report_error.empty() ? "" : ": " + outcome.report_error);
      return result;
    }
    result.reports.push_back({run, std::move(*outcome.report)});
  }
  return result;
}

}  // namespace rangereplay::cli
