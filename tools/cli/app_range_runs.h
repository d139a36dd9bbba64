// Application range replay's later runs as the launcher makes them: after
// the first run, the application is started again once per counter pass
// still missing (--replay-mode app-range: passes 2..P, run 1 collected pass
// 1; --fallback app-range: passes 1..P for the ranges run 1 declined), each
// run with a configuration that names its pass, the ranges it collects and
// the folder the ranges' counter data is carried in (core/config/profile_config.h,
// AppRangeRun). The later runs' standard output and error go to a log file
// in the launcher's private temporary folder (app_runs_log_path), removed
// with it unless it explains a failure (AppRangeReplay::kept_log); their
// reports are merged into the first run's (report/app_range_merge.h).
//
//   AppRangeRuns runs{child, config, folder, app_runs_log_path(folder)};
//   report::Report merged = run_app_range_replay(request, runs, first, exit_code, passes, progress, warn);
//
// Thread-safety: the launcher's main thread only (it starts one child at a
// time; a SIGINT or SIGTERM during a run, or between runs through a handler
// installed for their duration, stops the runs).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/app_run_loop.h"
#include "cli/child_process.h"
#include "cli/cli_options.h"
#include "core/config/profile_config.h"
#include "core/interprocess/app_runs.h"
#include "report/report_model.h"

namespace rangereplay::cli {

/// What the later runs take from the first one.
struct AppRangeRuns {
  ChildSpec child;       // the application as run 1 was started (its configuration and gate variables are replaced)
  ProfileConfig config;  // run 1's configuration, metrics expanded
  std::string folder;    // the launcher's temporary folder: the counter data, each run's configuration and report
  std::string log_path;  // the later runs' standard output and error, appended run by run (app_runs_log_path)
};

/// `<folder>/app-runs.log`: the later runs' log, in the launcher's private
/// temporary folder (mode 0700, from mkdtemp), so no other user can plant a
/// file or link at its name, and removed with the folder.
std::string app_runs_log_path(const std::string& folder);

/// `<folder>/app_range`: where the ranges' counter data is carried.
std::string app_range_state_dir(const std::string& folder);
/// Creates app_range_state_dir(folder) and returns it. Errors:
/// failed_precondition naming the folder and the fix.
StatusOr<std::string> create_app_range_state_dir(const std::string& folder);

/// The matched-range indices the later runs collect: those of `first`'s
/// records that measured_by_app_runs selects under `plan`.
std::vector<std::uint32_t> app_range_indices(const report::Report& first, const AppRunPlan& plan);

/// The configuration of a later run collecting pass `pass` (from 0) of
/// `ranges`: `base` with that AppRangeRun (its state under `state_dir`), its
/// report written to `report_path` (a "%p" pattern), and quiet (the run's
/// output goes to the log).
ProfileConfig app_run_config(const ProfileConfig& base, std::uint32_t pass, const std::string& state_dir,
                             std::vector<std::uint32_t> ranges, const std::string& report_path);

/// An AppRunner that starts the application of `runs` for run `run`, pass
/// `pass`: its configuration and report in `<folder>/run_<run>/`, no gate
/// (the device checks passed before run 1), standard input from /dev/null
/// (run 1 had the launcher's), standard output and error appended to
/// runs.log_path (created mode 0600, never through a symbolic link) after a
/// header line; it waits for the run and
/// reads the one report it wrote. A run that cannot start, or that writes
/// no report or several (a multi-process application), is an outcome with
/// exit code 1 or the run's own and report_error saying which.
AppRunner app_process_runner(const AppRangeRuns& runs, std::vector<std::uint32_t> ranges);

/// What the later runs gave: the merged report, the signal that stopped
/// them (SIGINT, SIGTERM, ... sent to the launcher during or between the
/// runs; 0 when none did), for the launcher's exit code, and the log when it
/// explains a failure: a run that failed or was stopped, or a range the runs
/// left declined. The launcher then keeps its temporary folder and says
/// where the log is; otherwise the log goes with the folder, and the report
/// names it nowhere.
struct AppRangeReplay {
  report::Report report;
  int stop_signal = 0;
  std::string kept_log;  // runs.log_path when it must be kept, else ""
};

/// After the first run (its report `first`, its exit code `first_exit_code`,
/// `launcher_passes` the metric list's passes as the launcher counted them,
/// 0 when unknown): makes the later runs request's --replay-mode /
/// --fallback call for and returns `first` merged with them; `first`
/// unchanged when no run is needed (no declined range the fallback can
/// collect); when none can be made (the first run failed, the cap of
/// --max-app-runs is below the runs needed), which `warn` says in one line,
/// `first` with the ranges --replay-mode app-range began to measure declined
/// app_range_incomplete. SIGINT or SIGTERM (during a run also SIGHUP or
/// SIGQUIT) stops the runs (the run under way ends as
/// the application handles the signal; no later run starts). `progress`
/// gets a line per run and one naming the log.
AppRangeReplay run_app_range_replay(const ProfileRequest& request, const AppRangeRuns& runs, report::Report first,
                                    int first_exit_code, std::uint32_t launcher_passes,
                                    const std::function<void(const std::string&)>& progress,
                                    const std::function<void(const std::string&)>& warn);

}  // namespace rangereplay::cli
