// The launcher's top level (see launcher.h).
#include "cli/launcher.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "cli/app_range_runs.h"
#include "cli/application_path.h"
#include "cli/child_process.h"
#include "cli/gpu_probe.h"
#include "cli/library_lookup.h"
#include "cli/output_path.h"
#include "cli/process_reports.h"
#include "cli/process_tree.h"
#include "cli/report_output.h"
#include "core/base/ascii.h"
#include "core/base/closest_names.h"
#include "core/base/elapsed.h"
#include "core/base/environment.h"
#include "core/config/metric_sets.h"
#include "core/config/profile_config.h"
#include "core/interprocess/launcher_gate.h"
#include "core/interprocess/rendezvous_endpoint.h"
#include "report/app_range_merge.h"
#include "report/report_table.h"

namespace rangereplay::cli {
namespace fs = std::filesystem;
namespace {

// One line on standard error, "rangereplay: " first. Names in it (the
// application's arguments, ranges, kernels, hosts) may hold control bytes:
// they are escaped (core/base/ascii.h), so none reaches the terminal.
void say(const std::string& line) {
  std::cerr << "rangereplay: " << escape_controls(line, LineBreaks::kKeep) << std::endl;
}

int fail(const Status& status, int exit_code) {
  say(status.message());
  return exit_code;
}

// Warnings print even with --quiet, which silences progress only.
void warn(const std::string& line) { say("warning: " + line); }

void progress(const ProfileRequest& request, const std::string& line) {
  if (!request.config.quiet) say(line);
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// A private folder for the configuration and the report; removed on scope exit.
class TempFolder {
 public:
  static StatusOr<std::unique_ptr<TempFolder>> create() {
    std::string base = process_env("TMPDIR").value_or("/tmp");
    if (base.empty()) base = "/tmp";
    std::string templ = (fs::path(base) / "rangereplay-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) {
      return failed_precondition("cannot create a temporary folder in " + base + "; set TMPDIR to a writable folder");
    }
    return std::unique_ptr<TempFolder>(new TempFolder(templ));
  }
  ~TempFolder() {
    if (keep_) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  /// Leaves the folder in place (a report that could not be saved is in it).
  void keep() { keep_ = true; }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  explicit TempFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
  bool keep_ = false;
};

struct MetricModule {
  std::unique_ptr<MetricQueries> queries;
  Status load_error;
};

MetricModule load_metric_module(const char* module_name = kMetricsModuleName) {
  MetricModule m;
  StatusOr<std::string> dir = executable_dir();
  if (!dir.ok()) {
    m.load_error = dir.status();
    return m;
  }
  StatusOr<std::string> path = find_metrics_module(*dir, module_name);
  if (!path.ok()) {
    m.load_error = path.status();
    return m;
  }
  StatusOr<std::unique_ptr<MetricQueries>> q = load_metric_queries(*path);
  if (!q.ok()) {
    m.load_error = q.status();
    return m;
  }
  m.queries = std::move(q).value();
  return m;
}

// Prints `text` on standard output: exit 0, or 1 with the cause when it
// could not be written.
int print(std::string_view text) {
  const Status written = write_stdout(text);
  return written.ok() ? 0 : fail(written, kExitFailure);
}

// The text of `diff` or `merge` on standard output (print), or its error (an
// unreadable report, an unwritable output) with exit 2, as `report` has.
int print_result(const StatusOr<std::string>& text) {
  if (!text.ok()) return fail(text.status(), kExitUsage);
  return print(*text);
}

// The chip of device 0 and a module to resolve the sets on it, when there is
// a GPU; nullopt otherwise (the listing then names the sets' roles only).
struct ListingChip {
  MetricModule module;
  std::string chip;
};
std::optional<ListingChip> listing_chip() {
  if (!probe_cuda_devices().ok()) return std::nullopt;
  ListingChip out{load_metric_module(), ""};
  if (!out.module.queries) return std::nullopt;
  StatusOr<std::string> chip = out.module.queries->chip_name(0);
  if (!chip.ok()) return std::nullopt;
  out.chip = *chip;
  return out;
}

int list_sets() {
  // The sets are plain data (src/core/config/metric_sets.h): no GPU or driver needed
  // to list them. With a GPU, each is also resolved on its chip: the metrics
  // it collects there, those the chip lacks, and the passes.
  const std::vector<MetricSet>& sets = metric_sets();
  if (sets.empty()) return fail(unavailable("this build has no metric sets"), kExitFailure);
  std::optional<ListingChip> on = listing_chip();
  std::size_t width = 4;
  for (const MetricSet& s : sets) width = std::max(width, s.name.size());
  std::string text;
  std::vector<std::string> missing;  // on the chip, over all sets, each once
  for (const MetricSet& s : sets) {
    text += fmt::format("{:<{}}  {:>4} metrics  {}\n", s.name, width, s.metrics.size(), s.description);
    std::string sections;
    for (const std::string& name : s.sections) {
      const MetricSection* section = find_metric_section(name);
      sections += (sections.empty() ? "" : ", ") + (section != nullptr ? section->title : name);
    }
    text += fmt::format("{:<{}}  sections: {}\n", "", width, sections);
    if (!on) continue;
    StatusOr<ResolvedMetrics> resolved = on->module.queries->resolve(on->chip, "", s.name);
    if (!resolved.ok()) return fail(resolved.status(), kExitFailure);
    StatusOr<std::uint32_t> passes = on->module.queries->pass_count(on->chip, resolved->metrics);
    text += fmt::format("{:<{}}  on {}: {} metrics, {} missing, {} passes\n", "", width, on->chip,
                        resolved->metrics.size(), resolved->missing.size(),
                        passes.ok() ? std::to_string(*passes) : "unknown (" + passes.status().message() + ")");
    for (const std::string& role : resolved->missing)
      if (std::find(missing.begin(), missing.end(), role) == missing.end()) missing.push_back(role);
  }
  if (on && !missing.empty()) {
    text += fmt::format("\nmetrics of the sets that {} does not have ({}):\n", on->chip, missing.size());
    for (const std::string& role : missing) text += "  " + role + "\n";
  } else if (!on) {
    text +=
        "\nno GPU found, or its chip could not be read: the metrics are named as on GH100; `rangereplay-metrics-probe "
        "--chip CHIP --sets` "
        "resolves the sets for another chip\n";
  }
  return print(text);
}

int list_metrics() {
  MetricModule module = load_metric_module();
  StatusOr<int> devices = probe_cuda_devices();
  if (!devices.ok()) return fail(list_metrics_no_device_error(devices.status()), kExitFailure);
  if (!module.queries) return fail(module.load_error, kExitFailure);
  StatusOr<std::string> chip = module.queries->chip_name(0);
  if (!chip.ok()) return fail(chip.status(), kExitFailure);
  StatusOr<std::vector<std::string>> names = module.queries->list_metrics(*chip);
  if (!names.ok()) return fail(names.status(), kExitFailure);
  std::string text;
  for (const std::string& n : *names) text += n + "\n";
  return print(text);
}

// RANGEREPLAY_DEBUG: where the launcher's time goes, step by step.
class DebugSteps {
 public:
  explicit DebugSteps(std::chrono::steady_clock::time_point start) : debug_(environment::debug()), step_start_(start) {}
  void done(const char* step) {
    const auto now = std::chrono::steady_clock::now();
    if (debug_)
      std::cerr << "rangereplay[debug] launcher: " << step << " "
                << std::chrono::duration<double, std::milli>(now - step_start_).count() << " ms" << std::endl;
    step_start_ = now;
  }

 private:
  bool debug_;
  std::chrono::steady_clock::time_point step_start_;
};

// The checks that need the device: a device (cuInit), then the metric names
// on its chip and their passes. Prints the error, warnings and the passes
// progress line; returns the exit code when profiling must stop, nullopt to
// go on. `selected` is select_metrics' result (its usage errors were already
// reported); its other errors are reported after the device check, which
// explains most of them.
std::optional<int> check_device(const ProfileRequest& request, const MetricModule& module,
                                const StatusOr<std::vector<std::string>>& selected, DebugSteps& steps,
                                std::uint32_t* passes_out = nullptr) {
  StatusOr<int> devices = probe_cuda_devices();
  steps.done("device probe (cuInit)");
  if (!devices.ok()) {
    // Still check the names the user typed, against kOfflineChip, with a
    // module that needs no libcuda when the full one could not load.
    MetricModule host;
    if (!module.queries && !request.metrics_csv.empty()) host = load_metric_module(kHostMetricsModuleName);
    MetricQueries* offline = module.queries ? module.queries.get() : host.queries.get();
    Status why = no_device_error(request, offline, devices.status());
    return fail(why, exit_code_for(why));
  }
  if (!selected.ok()) return fail(selected.status(), exit_code_for(selected.status()));

  // A GPU the profiler cannot serve (before Ampere, or a chip this CUPTI
  // does not know) stops here, before the application's first range. A
  // device that cannot be asked is left to the profiled process's checks.
  if (Status supported = module.queries->check_supported(0); supported.code() == StatusCode::kFailedPrecondition) {
    return fail(supported, kExitFailure);
  }
  // The metric list on this chip: the set's roles in the chip's names. Only a
  // wrong name stops here; if the catalog itself cannot answer, the profiled
  // process reports the problem.
  if (StatusOr<std::string> chip = module.queries->chip_name(0); chip.ok()) {
    StatusOr<ResolvedMetrics> resolved = module.queries->resolve(*chip, request.metrics_csv, request.set_name);
    Status valid = resolved.ok() ? module.queries->validate(*chip, resolved->metrics) : resolved.status();
    if (!valid.ok()) {
      if (valid.code() == StatusCode::kInvalidArgument || valid.code() == StatusCode::kNotFound) {
        return fail(valid, kExitUsage);
      }
      warn("cannot check metric names here (" + valid.message() + "); the profiled process checks them");
    } else if (StatusOr<std::uint32_t> passes = module.queries->pass_count(*chip, resolved->metrics); passes.ok()) {
      if (passes_out != nullptr) *passes_out = *passes;
      // --set triage's metrics are sampled by PM sampling, not counted in
      // the range profiler's passes.
      std::string line = std::to_string(resolved->metrics.size()) + " metrics on " + *chip + ": " +
                         (request.set_name == kTriageSetName
                              ? std::string("sampled in the application's run by PM sampling, no replay")
                              : std::to_string(*passes) + " passes per range");
      if (!resolved->missing.empty())
        line += "; " + std::to_string(resolved->missing.size()) + " of set " + request.set_name +
                "'s metrics do not exist on " + *chip + " (the report's missing_metrics lists them)";
      progress(request, line);
    }
  } else {
    warn("cannot check metric names here (" + chip.status().message() + "); the profiled process checks them");
  }
  steps.done("chip name, metric names and passes");
  return std::nullopt;
}

// What starting the application needs that no device check does: the
// configuration file in its folder, the gate, the child's command line and
// environment.
struct Launch {
  std::unique_ptr<TempFolder> temp;
  LauncherGate gate;
  ChildSpec spec;
  ProfileConfig config;  // as written for the application (metrics expanded)
};

// Errors: CUPTI library not found, temporary folder, configuration file or
// pipe (all exit kExitFailure).
StatusOr<Launch> prepare_launch(const ProfileRequest& request, const std::string& app, const std::string& inject_lib,
                                MetricQueries& queries, const std::string& rendezvous_token) {
  std::string loaded_cupti = queries.cupti_library_path();
  RR_ASSIGN_OR_RETURN(std::string cupti,
                      find_cupti_library(loaded_cupti.empty() ? std::nullopt : std::optional<std::string>(loaded_cupti),
                                         process_env("LD_LIBRARY_PATH"), default_cupti_dirs()));
  RR_ASSIGN_OR_RETURN(std::unique_ptr<TempFolder> temp, TempFolder::create());
  const std::string config_path = temp->path() + "/config.json";
  ProfileConfig config = request.config;
  // The --set is resolved on the device's chip in the profiled process.
  config.metrics = split_metric_csv(request.metrics_csv);
  config.metric_set = request.set_name;
  config.rendezvous_token = rendezvous_token;
  // Each injected process writes report.<its pid>.json.
  config.report_path = temp->path() + "/" + kProcessReportPattern;
  config.report_environment = output_variables(request.output_pattern);
  if (profiles_in_the_application_run(request)) {
    // The first run collects pass 1 of every range; the ranges' counter
    // data is carried to the later runs in the folder. --set triage's PM
    // sampling has one pass: its first run is its only one (its replay mode
    // stays range, so finish_profile makes no later run).
    RR_ASSIGN_OR_RETURN(std::string state_dir, create_app_range_state_dir(temp->path()));
    config.app_range = AppRangeRun{0, std::move(state_dir), true, {}};
    // A range's values come from its own execution in each run, one counter
    // range per pass: whole-range values, as Nsight Compute's app-range gives.
    config.range_metrics = RangeMetrics::kWholeRange;
  }
  RR_RETURN_IF_ERROR(write_profile_config(config, config_path));
  RR_ASSIGN_OR_RETURN(LauncherGate gate, LauncherGate::create());
  ChildSpec spec;
  spec.path = app;
  spec.argv = config.command;
  spec.env = merge_environment(current_environment(),
                               application_environment(inject_lib, cupti, config_path, gate.variable_value()));
  spec.inherited_fds = {gate.read_fd()};
  return Launch{std::move(temp), std::move(gate), std::move(spec), std::move(config)};
}

// What the user typed, checked before anything starts: the application's
// path, the injection library and, for --collectives replay, the job's
// rendezvous token.
struct CheckedInput {
  std::string app;
  std::string inject_lib;
  std::string rendezvous_token;  // empty unless --collectives replay
};

// The output pattern, checked up front so a report is not lost after a long
// profiled run. Prints the error and returns the exit code when it cannot be
// written; warns of each rank variable not set here.
std::optional<int> check_output_pattern(const std::string& output_pattern) {
  if (output_pattern.empty()) return std::nullopt;
  // A rank's variable is set by the job's launcher (torchrun, mpirun, srun)
  // in each rank, not here: a stand-in value checks the name.
  if (Status s = check_output_writable(output_pattern, host_name(), process_env); !s.ok()) {
    return fail(s, kExitUsage);
  }
  for (const std::string& name : output_variables(output_pattern)) {
    if (!process_env(name))
      warn(
          fmt::format("{0} is not set here: each process's own {0} names its report, and a process without one "
                      "keeps its report in a temporary folder",
                      name));
  }
  return std::nullopt;
}

// Step 1 of profile: what the user typed. Prints the error and returns the
// exit code when profiling cannot start; fills `input` otherwise.
std::optional<int> check_input(const ProfileRequest& request, CheckedInput& input) {
  StatusOr<std::string> app = resolve_application(request.config.command.front(), process_env("PATH"));
  if (!app.ok()) return fail(app.status(), kExitUsage);
  input.app = std::move(*app);
  if (std::optional<int> stop = check_output_pattern(request.output_pattern)) return stop;
  StatusOr<std::string> exe_dir = executable_dir();
  if (!exe_dir.ok()) return fail(exe_dir.status(), kExitFailure);
  StatusOr<std::string> inject_lib = find_injection_library(*exe_dir, process_env);
  if (!inject_lib.ok()) {
    // A RANGEREPLAY_INJECT_LIB naming no file is the user's input; a library
    // missing from the build or install is the profiler's failure.
    return fail(inject_lib.status(),
                inject_lib.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure);
  }
  input.inject_lib = std::move(*inject_lib);
  // --collectives replay: the token every rank of the job gives rank 0,
  // passed to every process through the configuration file (mode 0600).
  if (request.config.collectives == CollectivesMode::kReplay) {
    StatusOr<RendezvousToken> token = rendezvous_job_token(process_environment);
    if (!token.ok()) {
      return fail(token.status(), token.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure);
    }
    input.rendezvous_token = std::move(token->value);
    if (environment::debug())
      std::cerr << "rangereplay[debug] launcher: rendezvous token from " << token->source << std::endl;
  }
  return std::nullopt;
}

// Points of the launcher's run on the monotonic clock (monotonic_ms, ms) and
// the time before the spawn (ms), which complete each report's time budget.
struct RunClock {
  double launcher_start_ms = 0;
  double pre_spawn_ms = 0;
  double spawn_ms = 0;
  double end_ms = 0;
};

// Ends the application's whole tree before its first range is profiled (at
// the gate, or before it), with the process group left as it is; warns of
// processes still ending.
void end_application_tree(pid_t pid, const std::string& app_name) {
  const TreeKill killed = kill_child(pid);
  if (killed.left > 0) {
    warn(std::to_string(killed.left) + " processes started by '" + app_name +
         "' were still ending after SIGKILL when the launcher stopped waiting for them");
  }
}

// Step 3 of profile: the application starts while the device checks run
// here; it waits at the gate only if its first range begins before they end.
// Prints the error and returns the exit code when profiling must stop (the
// application's tree is then ended); otherwise opens the gate and sets `pid`,
// `clock.spawn_ms` and `passes` (the passes per range, 0 when unknown).
std::optional<int> start_application(const ProfileRequest& request, Launch& launch, const MetricModule& module,
                                     const StatusOr<std::vector<std::string>>& selected, DebugSteps& steps,
                                     RunClock& clock, pid_t& pid, std::uint32_t& passes) {
  // Until the checks pass, a process of the application's tree whose parent
  // ends is re-parented to the launcher, not init, so a failed check ends it
  // too. Only until then: during the run, orphans go to init as without the
  // launcher, not to a launcher that waits for its one child only (an orphan
  // adopted during the checks and still running then ends as a zombie of the
  // launcher, reaped when the launcher exits).
  ChildSubreaper adopt_orphans;
  clock.spawn_ms = monotonic_ms();
  StatusOr<pid_t> spawned = spawn_child(launch.spec);
  // The launcher's own writes to a closed pipe (`| head`) fail with EPIPE
  // and are said, instead of ending it before it passes the application's
  // exit code through. Set after the spawn: the application keeps the
  // default disposition.
  std::signal(SIGPIPE, SIG_IGN);
  launch.gate.close_read_end();
  steps.done("application started");
  std::optional<int> stop = check_device(request, module, selected, steps, &passes);
  if (!stop && request.replay_mode == ReplayMode::kAppRange && passes > 0) {
    // The runs --max-app-runs allows, known before any range is profiled.
    if (StatusOr<AppRunPlan> plan = plan_app_runs(request.replay_mode, request.fallback, passes, request.max_app_runs);
        !plan.ok())
      stop = fail(plan.status(), kExitUsage);
  }
  if (!spawned.ok()) return stop ? *stop : fail(spawned.status(), exit_code_for(spawned.status()));
  if (stop) {
    end_application_tree(*spawned, request.config.command.front());
    return *stop;
  }
  pid = *spawned;
  adopt_orphans.release();
  reap_ended_children_except(pid);  // orphans adopted during the checks that have ended
  launch.gate.open();
  progress(request, "profiling " + join(request.config.command, " ") + " (pid " + std::to_string(pid) + ")");
  return std::nullopt;
}

// Every process's report in `files`, its launcher time and time budget
// completed: one that cannot be read is said and kept in the temporary
// folder (and `unsaved` set), and the others are still returned.
std::vector<report::Report> load_process_reports(const std::vector<std::string>& files, TempFolder& temp, pid_t pid,
                                                 const RunClock& clock, bool& unsaved) {
  std::vector<report::Report> reports;
  for (const std::string& file : files) {
    StatusOr<report::Report> rep = load_report(file);
    if (!rep.ok()) {
      temp.keep();
      unsaved = true;
      say("cannot read the report: " + rep.status().message() + "; it is kept at " + file);
      continue;
    }
    if (is_journal_file(file)) {
      warn("process " + std::to_string(rep->process_id) +
           " ended before writing its report; its finished ranges were recovered from its journal");
    }
    rep->launcher_ms = clock.pre_spawn_ms + rep->gate_wait_ms.value_or(0);
    if (rep->process_id == 0 || static_cast<pid_t>(rep->process_id) == pid) {
      complete_time_budget(*rep, clock.launcher_start_ms, clock.pre_spawn_ms, clock.spawn_ms, clock.end_ms);
    } else {
      // Another process of the job (a rank torchrun started): its own span,
      // from its tool's start to its report's write; no launcher rows.
      const double start = rep->time_budget ? rep->time_budget->tool_start_clock_ms : clock.spawn_ms;
      const double written = written_clock_ms(file);
      complete_time_budget(*rep, start, 0, start, written > start ? written : clock.end_ms);
    }
    reports.push_back(std::move(*rep));
  }
  return reports;
}

// Step 5 of profile: application range replay's later runs, merged into the
// first run's report; with several processes' reports, none is made and the
// unmeasured ranges are declined. A run stopped by the user sets `exit_code`
// as the shell's would.
void run_later_app_runs(const ProfileRequest& request, Launch& launch, std::vector<report::Report>& reports,
                        int& exit_code, std::uint32_t passes) {
  if (reports.size() != 1) {
    const std::string why = "application range replay measures one process's ranges; " +
                            std::to_string(reports.size()) + " processes wrote reports, so no further run was made";
    warn(why);
    if (request.replay_mode == ReplayMode::kAppRange)
      for (report::Report& rep : reports) report::decline_unmeasured_app_ranges(rep, why);
    return;
  }
  ChildSpec child = launch.spec;
  // In the private temporary folder: removed with it, unless it explains a
  // failure.
  const AppRangeRuns runs{std::move(child), launch.config, launch.temp->path(), app_runs_log_path(launch.temp->path())};
  AppRangeReplay replayed = run_app_range_replay(
      request, runs, std::move(reports.front()), exit_code, passes,
      [&](const std::string& line) { progress(request, line); }, warn);
  reports.front() = std::move(replayed.report);
  if (!replayed.kept_log.empty()) {
    launch.temp->keep();
    warn("the later application runs' output is kept at " + replayed.kept_log);
  }
  // Stopped by the user: the exit code says so, as the shell's would.
  if (replayed.stop_signal != 0 && exit_code == 0) exit_code = 128 + replayed.stop_signal;
}

// A report that could not be saved where asked (disk full, folder removed, a
// %q{VAR} set nowhere...): kept in the temporary folder, and where is said.
void keep_unsaved_report(const ProfileRequest& request, const report::Report& rep, bool several,
                         const std::vector<std::string>& files, TempFolder& temp, const Status& why) {
  temp.keep();
  std::string kept = files.size() == 1 ? files.front() : temp.path();
  if (request.output_format == OutputFormat::kCsv) {
    const std::string csv = temp.path() + "/report." + std::to_string(rep.process_id) + ".csv";
    if (save_report(rep, csv, OutputFormat::kCsv).ok()) kept = csv;
  }
  say("report" + (several ? " of " + process_label(rep) : std::string()) + " not saved: " + why.message() +
      "; it is kept at " + kept);
}

// Saves each report where -o names it, before anything is printed, so a
// terminal that goes away (a closed pipe, a full disk) cannot lose one.
// Returns the path each was saved to (empty when not saved); a report that
// could not be saved is kept (keep_unsaved_report) and sets `unsaved`.
std::vector<std::string> save_reports(const ProfileRequest& request, const std::vector<report::Report>& reports,
                                      pid_t pid, const std::vector<std::string>& files, TempFolder& temp,
                                      bool& unsaved) {
  std::vector<std::string> saved_to(reports.size());
  if (request.output_pattern.empty()) return saved_to;
  const bool several = reports.size() > 1;
  std::vector<std::string> warnings;
  std::vector<StatusOr<std::string>> paths =
      output_paths(request.output_pattern, reports, pid, host_name(), process_env, warnings);
  for (const std::string& w : warnings) warn(w);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    Status saved =
        paths[i].ok() ? save_report(reports[i], *paths[i], request.output_format, request.csv_page) : paths[i].status();
    if (saved.ok()) {
      saved_to[i] = *paths[i];
      if (!several) progress(request, "report written to " + *paths[i]);
      continue;
    }
    // Checked before the run, yet it failed: kept, and where is said.
    unsaved = true;
    keep_unsaved_report(request, reports[i], several, files, temp, saved);
  }
  return saved_to;
}

// The tables, then one line per process: what each profiled and where it
// went (`saved_to`, as save_reports returns it). Every name in it is escaped
// where it was written (the tables, the paths); process labels and summaries
// are numbers.
std::string reports_text(const ProfileRequest& request, const std::vector<report::Report>& reports,
                         const std::vector<std::string>& saved_to) {
  const bool several = reports.size() > 1;
  std::string text;
  for (const report::Report& rep : reports) {
    if (several) text += "\n==== " + process_label(rep) + " ====\n";
    text += report_table(rep);
  }
  if (several) {
    text += "\n" + std::to_string(reports.size()) + " processes profiled:\n";
    for (std::size_t i = 0; i < reports.size(); ++i) {
      text += "  " + process_label(reports[i]) + ": " + report::render_report_summary(reports[i]) +
              (saved_to[i].empty() ? std::string() : " -> " + escape_controls(saved_to[i])) + "\n";
    }
    if (request.output_pattern.empty())
      text += "  (the reports are not kept: -o run_%q{RANK}.json or run_%p.json saves one per process)\n";
  }
  return text;
}

// Steps 4 and 5 of profile: waits for the application, then reads, completes,
// saves and prints every process's report. Returns the exit code: the
// application's, never 0 when a report was not saved or the output was cut
// short.
int finish_profile(const ProfileRequest& request, Launch& launch, pid_t pid, std::uint32_t passes, RunClock& clock) {
  const std::string& app_name = request.config.command.front();
  StatusOr<int> wait_status = wait_child(pid);
  clock.end_ms = monotonic_ms();
  if (!wait_status.ok()) return fail(wait_status.status(), kExitFailure);
  int exit_code = exit_code_from_wait_status(*wait_status);
  const std::vector<std::string> files = process_report_files(launch.temp->path());
  if (files.empty()) {
    say("no report: '" + app_name + "' ended (exit code " + std::to_string(exit_code) +
        ") before the profiler wrote one; it never initialized CUDA, or it crashed");
    return exit_code;
  }
  bool unsaved = false;
  std::vector<report::Report> reports = load_process_reports(files, *launch.temp, pid, clock, unsaved);
  if (reports.empty()) return unsaved ? exit_code_after_unsaved_report(exit_code) : exit_code;
  order_by_rank(reports);
  if (request.replay_mode == ReplayMode::kAppRange || request.fallback == Fallback::kAppRange) {
    run_later_app_runs(request, launch, reports, exit_code, passes);
  }
  const std::vector<std::string> saved_to = save_reports(request, reports, pid, files, *launch.temp, unsaved);
  // Output cut short is said, and the exit code is then never 0, as for a
  // report that could not be saved.
  if (Status written = write_stdout(reports_text(request, reports, saved_to)); !written.ok()) {
    fail(written, kExitFailure);
    unsaved = true;
  }
  if (unsaved) return exit_code_after_unsaved_report(exit_code);
  return exit_code;
}

int profile(const ProfileRequest& request) {
  // The checks before the spawn delay the application's start, and so does
  // its wait at the gate while the device checks run (the report's
  // gate_wait_ms): launcher_ms is the sum.
  const auto launcher_start = std::chrono::steady_clock::now();
  RunClock clock;
  clock.launcher_start_ms = monotonic_ms();
  DebugSteps steps(launcher_start);

  // 1. What the user typed.
  CheckedInput input;
  if (std::optional<int> stop = check_input(request, input)) return *stop;
  for (const std::string& line : nvtx_expression_warnings(request.config)) warn(line);
  MetricModule module = load_metric_module();
  steps.done("metric module loaded");
  StatusOr<std::vector<std::string>> selected =
      module.queries ? select_metrics(request, *module.queries) : StatusOr<std::vector<std::string>>(module.load_error);
  // A mistyped set stops here; a module that cannot answer at all is
  // reported after the device check, which explains most such failures.
  if (module.queries && !selected.ok() && exit_code_for(selected.status()) == kExitUsage) {
    return fail(selected.status(), kExitUsage);
  }

  // 2. Everything but the device checks: libcuda loadable, the CUPTI library,
  // the configuration, the gate.
  const Status libcuda = load_libcuda();
  StatusOr<Launch> launch =
      libcuda.ok() && selected.ok()
          ? prepare_launch(request, input.app, input.inject_lib, *module.queries, input.rendezvous_token)
          : StatusOr<Launch>(libcuda.ok() ? selected.status() : libcuda);
  steps.done("libcuda, CUPTI library, configuration");
  if (!launch.ok()) {
    // Profiling cannot start: the device checks run first, as their errors
    // (no device, a wrong metric name) are the ones to report.
    if (std::optional<int> stop = check_device(request, module, selected, steps)) return *stop;
    return fail(launch.status(), kExitFailure);
  }

  // 3. The application starts while the device checks run.
  clock.pre_spawn_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launcher_start).count();
  pid_t pid = 0;
  std::uint32_t passes = 0;
  if (std::optional<int> stop = start_application(request, *launch, module, selected, steps, clock, pid, passes)) {
    return *stop;
  }

  // 4. Wait, report, pass the exit code through; 5. application range
  // replay's later runs.
  return finish_profile(request, *launch, pid, passes, clock);
}

}  // namespace

bool profiles_in_the_application_run(const ProfileRequest& request) {
  return request.replay_mode == ReplayMode::kAppRange || request.set_name == kTriageSetName;
}

std::map<std::string, std::string> application_environment(const std::string& injection_library,
                                                           const std::string& cupti_library,
                                                           const std::string& config_path, const std::string& gate) {
  return {{environment::kCudaInjection, injection_library},
          {environment::kNvtxInjection, cupti_library},
          {environment::kConfig, config_path},
          {environment::kGate, gate}};
}

double written_clock_ms(const std::string& path) {
  struct stat st {};
  timespec real{}, mono{};
  if (::stat(path.c_str(), &st) != 0 || ::clock_gettime(CLOCK_REALTIME, &real) != 0 ||
      ::clock_gettime(CLOCK_MONOTONIC, &mono) != 0)
    return 0;
  const auto ms = [](const timespec& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
  };
  return ms(mono) - (ms(real) - ms(st.st_mtim));
}

Status write_stdout(std::string_view text, std::FILE* stream) {
  errno = 0;
  const bool written = std::fwrite(text.data(), 1, text.size(), stream) == text.size();
  if (std::fflush(stream) == 0 && written && !std::ferror(stream)) return ok_status();
  const int error = errno;
  std::clearerr(stream);
  return unavailable(std::string("cannot write to standard output: ") +
                     (error != 0 ? std::strerror(error) : "the write failed") +
                     "; redirect it to a file or pipe that can take it");
}

int exit_code_for(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kOutOfRange:
    case StatusCode::kPermissionDenied: return kExitUsage;
    default: return kExitFailure;
  }
}

StatusOr<std::vector<std::string>> select_metrics(const ProfileRequest& request, MetricQueries& queries) {
  if (!request.set_name.empty()) {
    std::vector<std::string> names;
    for (const MetricSetInfo& s : queries.metric_sets()) names.push_back(s.name);
    // No sets to compare against: the expansion decides.
    RR_RETURN_IF_ERROR(check_set_name(request.set_name, names));
  }
  RR_ASSIGN_OR_RETURN(std::vector<std::string> metrics, queries.expand(request.metrics_csv, request.set_name));
  if (metrics.empty()) {
    return invalid_argument("--metrics '" + request.metrics_csv +
                            "' names no metric; give names like dram__bytes_read.sum, or --set NAME");
  }
  return metrics;
}

int exit_code_after_unsaved_report(int application_exit_code) {
  return application_exit_code != 0 ? application_exit_code : kExitFailure;
}

Status list_metrics_no_device_error(const Status& no_device) {
  return Status(no_device.code(), no_device.message() + "; without a GPU, `rangereplay-metrics-probe --chip " +
                                      kOfflineChip + " --list-all` lists " + kOfflineChip +
                                      "'s names (in a build folder: tools/metrics-probe/metrics-probe)");
}

Status no_device_error(const ProfileRequest& request, MetricQueries* offline, const Status& no_device) {
  if (request.metrics_csv.empty()) return no_device;  // set names were checked when parsing
  const std::string unchecked = no_device.message() + "; the --metrics names could not be checked without a GPU";
  if (offline == nullptr) return Status(no_device.code(), unchecked);
  StatusOr<std::vector<std::string>> names = select_metrics(request, *offline);
  if (!names.ok()) {
    if (exit_code_for(names.status()) == kExitUsage) return names.status();
    return Status(no_device.code(), unchecked);
  }
  Status valid = offline->validate(kOfflineChip, *names);
  if (valid.ok()) return no_device;
  if (valid.code() == StatusCode::kInvalidArgument || valid.code() == StatusCode::kNotFound) {
    return Status(valid.code(), valid.message() + " (checked against " + kOfflineChip + "; no GPU found)");
  }
  return Status(no_device.code(), unchecked);
}

int run_launcher(const std::vector<std::string>& args) {
  StatusOr<CommandLine> parsed = parse_command_line(args, process_env);
  if (!parsed.ok()) return fail(parsed.status(), kExitUsage);
  switch (parsed->action) {
    case Action::kHelp:
      if (parsed->help_is_error) {
        std::cerr << parsed->text << std::flush;
        return kExitUsage;
      }
      return print(parsed->text);
    // The driver is looked for only now: parsing touches no GPU.
    case Action::kVersion: return print(parsed->text + "driver: " + driver_version_text() + "\n");
    case Action::kListSets: return list_sets();
    case Action::kListMetrics: return list_metrics();
    case Action::kProfile: return profile(parsed->profile);
    case Action::kReport: {
      StatusOr<std::string> text = report_command(parsed->report);
      if (!text.ok()) return fail(text.status(), kExitUsage);
      return text->empty() ? 0 : print(*text);
    }
    case Action::kDiff: {
      // Nothing paired is the comparison's failure, not a usage error.
      StatusOr<std::string> text = diff_report_files(parsed->diff);
      if (!text.ok() && text.status().code() == StatusCode::kFailedPrecondition)
        return fail(text.status(), kExitFailure);
      return print_result(text);
    }
    case Action::kMerge: return print_result(merge_report_files(parsed->merge));
  }
  return kExitFailure;
}

}  // namespace rangereplay::cli
