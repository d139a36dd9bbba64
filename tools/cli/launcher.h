// The launcher's top level: runs one parsed command line and returns the
// process exit code. Order of a `profile` run:
//   1. option checks (cli_options.h, including --set names), the application
//      path, --output writable (check_output_writable), the metric list
//                                              -> exit 2 on a user error
//   2. libcuda.so.1 loadable, the CUPTI library, configuration file, the gate
//      (core/interprocess/launcher_gate.h), injection environment. When one of these
//      fails, steps 4-5 run first and their error, if any, is the one reported
//      (the order of checks of a launcher that started nothing early).
//   3. start the application: it runs, and waits at the gate only when its
//      first range begins before these end, while here
//   4. a CUDA device is present                -> exit 1 when not; --metrics
//      names are still checked against kOfflineChip first (exit 2 when one
//      is unknown), see no_device_error
//   5. metric names valid on the device's chip  -> exit 2 with closest names
//      A failure in 4-5 kills the application's whole process tree
//      (SIGKILL; the launcher is child subreaper from 3 until here, so orphans
//      of the tree are found too) before its first range is profiled;
//      success opens the gate.
//   6. wait, pass the application's exit code through (128+N for signal N),
//      print the report table, write --output. If --output cannot be written
//      after all, the report stays in the temporary folder (its path is
//      printed) and the exit code is exit_code_after_unsaved_report's.
// The report's launcher_ms is the time before the start (1-3) plus the time
// the application waited at the gate (the report's gate_wait_ms).
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_options.h"
#include "cli/metric_queries.h"
#include "core/base/status.h"

namespace rangereplay::cli {

/// Exit code for an option or input error (checked before the application
/// runs, or before its first range is profiled: see the order above).
inline constexpr int kExitUsage = 2;
/// Exit code when the profiler cannot run (no device, missing library).
inline constexpr int kExitFailure = 1;

/// Parses `args` (args[0] = program name) and runs the command. Writes the
/// report table to stdout, progress and one-line errors to stderr.
int run_launcher(const std::vector<std::string>& args);

/// Writes `text` to `stream` and flushes it: the launcher's one way to print
/// on standard output (help, version, lists, the report table, diff), so
/// that output cut short (a full disk, a closed file) is never exit 0.
/// Errors: unavailable "cannot write to standard output: <strerror(errno)>;
/// ..." (the message names standard output, as `stream` is stdout outside
/// the tests). Thread-safety: as std::fwrite on `stream`.
Status write_stdout(std::string_view text, std::FILE* stream = stdout);

/// The monotonic clock (core/base/elapsed.h monotonic_ms, CLOCK_MONOTONIC, shared
/// by every process of the host) of `path`'s last write, from its
/// modification time: when another process of the job wrote its report.
/// 0 when the file cannot be read. Thread-safe.
double written_clock_ms(const std::string& path);

/// The metric names a profile request asks for: --metrics plus --set (or the
/// default set), expanded by `queries`. An unknown set name is reported with
/// the closest set names. Errors: invalid_argument (unknown set, empty list),
/// or whatever `queries` returns.
StatusOr<std::vector<std::string>> select_metrics(const ProfileRequest& request, MetricQueries& queries);

/// Exit code when the run finished but --output could not be written (the
/// report is kept in the temporary folder): the application's own code when
/// it is non-zero, else kExitFailure (1), so the failure is never exit 0.
int exit_code_after_unsaved_report(int application_exit_code);

/// The error to report when no CUDA device is found (`no_device`, from
/// probe_cuda_devices). With --metrics names in `request` and an `offline`
/// module (nullptr when none could be loaded), the names are first checked
/// against kOfflineChip: an unknown one gives the catalog's error (closest
/// names) plus " (checked against GH100; no GPU found)" (invalid_argument or
/// not_found, exit 2). Names valid there, or a set only, give `no_device`;
/// names that could not be checked give `no_device` with "; the --metrics
/// names could not be checked without a GPU" appended.
Status no_device_error(const ProfileRequest& request, MetricQueries* offline, const Status& no_device);

/// The error for --list-metrics when no CUDA device is found: `no_device`
/// (same code) with a pointer to the offline list, one line: "...; without a
/// GPU, `rangereplay-metrics-probe --chip GH100 --list-all` lists GH100's names (in a build
/// folder: tools/metrics-probe/metrics-probe)".
Status list_metrics_no_device_error(const Status& no_device);

/// The variables the launcher sets in the application's environment, on top
/// of the user's own: the injection library, NVTX routed to `cupti_library`,
/// the configuration file, and the gate (RANGEREPLAY_GATE, `gate` from
/// LauncherGate::variable_value). Nothing else: in particular the user's
/// CUDA_MODULE_LOADING is left alone (forcing EAGER cost cuBLAS's gemm example
/// 1.85 s at start-up on the H200; a lazily loaded module declines a range only
/// when it has writable variables).
std::map<std::string, std::string> application_environment(const std::string& injection_library,
                                                           const std::string& cupti_library,
                                                           const std::string& config_path, const std::string& gate);

/// Whether the first run profiles every range once in the application's own
/// execution (application range replay's one-run path, AppRangeRun with
/// every_range, whole-range values): --replay-mode app-range, and --set
/// triage (PM sampling: one pass, so no later run is made).
bool profiles_in_the_application_run(const ProfileRequest& request);

/// Exit code for a failed pre-launch step: kExitUsage for errors in what the
/// user typed (invalid_argument, not_found, out_of_range, permission_denied),
/// kExitFailure otherwise.
int exit_code_for(const Status& status);

}  // namespace rangereplay::cli
