// Application range replay's later runs (see app_range_runs.h).
#include "cli/app_range_runs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <utility>

#include "cli/process_reports.h"
#include "cli/report_output.h"
#include "core/base/environment.h"
#include "report/app_range_merge.h"

namespace rangereplay::cli {
namespace fs = std::filesystem;
namespace {

std::atomic<bool> g_stop_runs{false};
volatile sig_atomic_t g_stop_signal = 0;

void stop_runs(int sig) {
  g_stop_signal = sig;
  g_stop_runs.store(true);
}

// SIGINT and SIGTERM set g_stop_runs while the runs are made, between runs,
// through this handler; during a run the launcher forwards SIGINT, SIGTERM,
// SIGHUP and SIGQUIT to the application, and the runner sets g_stop_runs
// after that run (signal_during_child), whatever the application made of it.
class StopOnSignal {
 public:
  StopOnSignal() {
    g_stop_runs.store(false);
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = stop_runs;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &previous_int_);
    ::sigaction(SIGTERM, &sa, &previous_term_);
  }
  ~StopOnSignal() {
    ::sigaction(SIGINT, &previous_int_, nullptr);
    ::sigaction(SIGTERM, &previous_term_, nullptr);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

// `env` ("NAME=value" entries) without `name`.
std::vector<std::string> without(std::vector<std::string> env, const std::string& name) {
  const std::string prefix = name + "=";
  std::erase_if(env, [&](const std::string& e) { return e.starts_with(prefix); });
  return env;
}

AppRunOutcome failed_run(int exit_code, std::string why) {
  AppRunOutcome outcome;
  outcome.exit_code = exit_code;
  outcome.report_error = std::move(why);
  return outcome;
}

void append_line(int fd, const std::string& line) {
  const std::string text = line + "\n";
  ssize_t ignored = ::write(fd, text.data(), text.size());
  (void)ignored;
}

}  // namespace

std::string app_range_state_dir(const std::string& folder) { return (fs::path(folder) / "app_range").string(); }

std::string app_runs_log_path(const std::string& folder) { return (fs::path(folder) / "app-runs.log").string(); }

StatusOr<std::string> create_app_range_state_dir(const std::string& folder) {
  const std::string dir = app_range_state_dir(folder);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return failed_precondition("cannot create " + dir + ": " + ec.message() + "; set TMPDIR to a writable folder");
  return dir;
}

std::vector<std::uint32_t> app_range_indices(const report::Report& first, const AppRunPlan& plan) {
  std::vector<std::uint32_t> out;
  for (const report::RangeRecord& r : first.ranges) {
    if (report::measured_by_app_runs(r, plan)) out.push_back(r.index);
  }
  return out;
}

ProfileConfig app_run_config(const ProfileConfig& base, std::uint32_t pass, const std::string& state_dir,
                             std::vector<std::uint32_t> ranges, const std::string& report_path) {
  ProfileConfig c = base;
  c.app_range = AppRangeRun{pass, state_dir, false, std::move(ranges)};
  c.report_path = report_path;
  c.quiet = true;
  return c;
}

AppRunner app_process_runner(const AppRangeRuns& runs, std::vector<std::uint32_t> ranges) {
  return [&runs, ranges = std::move(ranges)](std::uint32_t run, std::uint32_t pass) -> AppRunOutcome {
    const fs::path dir = fs::path(runs.folder) / ("run_" + std::to_string(run));
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return failed_run(1, "cannot create " + dir.string() + ": " + ec.message());
    const std::string config_path = (dir / "config.json").string();
    const ProfileConfig config = app_run_config(runs.config, pass, app_range_state_dir(runs.folder), ranges,
                                                (dir / kProcessReportPattern).string());
    if (Status s = write_profile_config(config, config_path); !s.ok()) return failed_run(1, s.message());
    const int log = ::open(runs.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (log < 0) return failed_run(1, "cannot open the log " + runs.log_path + ": " + std::strerror(errno));
    append_line(log, "==== rangereplay: application run " + std::to_string(run) + ", counter pass " +
                         std::to_string(pass + 1) + " ====");
    ChildSpec spec = runs.child;
    spec.env = merge_environment(without(spec.env, environment::kGate), {{environment::kConfig, config_path}});
    spec.inherited_fds.clear();
    spec.stdout_fd = log;
    spec.stderr_fd = log;
    const int null_input = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    spec.stdin_fd = null_input;
    StatusOr<pid_t> pid = spawn_child(spec);
    const auto close_files = [&] {
      ::close(log);
      if (null_input >= 0) ::close(null_input);
    };
    if (!pid.ok()) {
      close_files();
      return failed_run(1, pid.status().message());
    }
    StatusOr<int> waited = wait_child(*pid);
    close_files();
    if (const int sig = signal_during_child(); sig != 0) {
      g_stop_signal = sig;
      g_stop_runs.store(true);
    }
    if (!waited.ok()) return failed_run(1, waited.status().message());
    AppRunOutcome outcome;
    outcome.exit_code = exit_code_from_wait_status(*waited);
    const std::vector<std::string> files = process_report_files(dir.string());
    if (files.size() != 1) {
      outcome.report_error = files.empty() ? "no report in " + dir.string()
                                           : std::to_string(files.size()) +
                                                 " processes wrote reports; application range replay runs one "
                                                 "process's ranges";
      return outcome;
    }
    StatusOr<report::Report> rep = load_report(files.front());
    if (rep.ok()) {
      outcome.report = std::move(*rep);
    } else {
      outcome.report_error = rep.status().message();
    }
    return outcome;
  };
}

AppRangeReplay run_app_range_replay(const ProfileRequest& request, const AppRangeRuns& runs, report::Report first,
                                    int first_exit_code, std::uint32_t launcher_passes,
                                    const std::function<void(const std::string&)>& progress,
                                    const std::function<void(const std::string&)>& warn) {
  AppRangeReplay out;
  if (request.replay_mode == ReplayMode::kRange && request.fallback == Fallback::kNone) {
    out.report = std::move(first);
    return out;
  }
  const std::string what =
      request.replay_mode == ReplayMode::kAppRange ? "--replay-mode app-range" : "--fallback app-range";
  // No run can be made: the ranges the first run began to measure have no values.
  const auto none = [&](const std::string& why) {
    warn(what + ": " + why);
    out.report = std::move(first);
    // Under --fallback the ranges keep run 1's outcome (replayed, or its decline).
    if (request.replay_mode == ReplayMode::kAppRange) report::decline_unmeasured_app_ranges(out.report, why);
    return out;
  };
  const std::uint32_t passes = first.pass_count > 0 ? first.pass_count : launcher_passes;
  if (passes == 0)
    return none("the first run set up no counters, so the passes are not known; no further run was made");
  StatusOr<AppRunPlan> plan = plan_app_runs(request.replay_mode, request.fallback, passes, request.max_app_runs);
  if (!plan.ok()) return none(plan.status().message());
  const std::vector<std::uint32_t> ranges = app_range_indices(first, *plan);
  if (ranges.empty()) {
    if (request.fallback == Fallback::kAppRange) {
      progress("--fallback app-range: no declined range it can collect; no further run");
      out.report = std::move(first);
      return out;
    }
    out.report = report::merge_app_runs(first, {}, *plan, runs.log_path);
    return out;
  }
  if (first_exit_code != 0)
    return none("the first run exited with " + std::to_string(first_exit_code) + ", so no further run was made");
  AppRunLoopResult result;
  if (plan->total_runs > 1) {
    if (StatusOr<std::string> dir = create_app_range_state_dir(runs.folder); !dir.ok())
      return none(dir.status().message());
    progress(what + ": " + std::to_string(plan->total_runs - 1) + " more application runs for " +
             std::to_string(ranges.size()) + " ranges; their output goes to " + runs.log_path);
    StopOnSignal stop;
    result = run_app_runs(*plan, app_process_runner(runs, ranges), g_stop_runs, progress);
    out.stop_signal = g_stop_signal;
  }
  if (!result.stopped_because.empty()) warn(what + ": " + result.stopped_because);
  out.report = report::merge_app_runs(first, result.reports, *plan, runs.log_path);
  // The log explains a failure: a run that failed or was stopped, or a range
  // the runs left declined. Otherwise it is removed with the launcher's
  // folder, and the report does not name it.
  bool failed = !result.stopped_because.empty();
  for (const report::RangeRecord& r : out.report.ranges) {
    if (r.declined && std::find(ranges.begin(), ranges.end(), r.index) != ranges.end()) failed = true;
  }
  if (plan->total_runs > 1 && failed) {
    out.kept_log = runs.log_path;
  } else {
    out.report = report::merge_app_runs(first, result.reports, *plan, "");
  }
  return out;
}

}  // namespace rangereplay::cli
