// The launcher's top level: runs one parsed command line and returns the
// process exit code. Order of a `profile` run:
//   1. option checks (cli_options.h), the application path, the output
//      folder, the metric set / list          -> exit 2 on a user error
//   2. a CUDA device is present                -> exit 1 when not
//   3. metric names valid on the device's chip  -> exit 2 with closest names
//   4. configuration file, injection environment, start the application
//   5. wait, pass the application's exit code through (128+N for signal N),
//      print the report table, write --output.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/metric_queries.h"
#include "core/status.h"

namespace rangereplay::cli {

/// Exit code for an option or input error (checked before the application runs).
inline constexpr int kExitUsage = 2;
/// Exit code when the profiler cannot run (no device, missing library).
inline constexpr int kExitFailure = 1;

/// Parses `args` (args[0] = program name) and runs the command. Writes the
/// report table to stdout, progress and one-line errors to stderr.
int run_launcher(const std::vector<std::string>& args);

/// The metric names a profile request asks for: --metrics plus --set (or the
/// default set), expanded by `queries`. An unknown set name is reported with
/// the closest set names. Errors: invalid_argument (unknown set, empty list),
/// or whatever `queries` returns.
StatusOr<std::vector<std::string>> select_metrics(const ProfileRequest& request, MetricQueries& queries);

/// Exit code for a failed pre-launch step: kExitUsage for errors in what the
/// user typed (invalid_argument, not_found, out_of_range, permission_denied),
/// kExitFailure otherwise.
int exit_code_for(const Status& status);

}  // namespace rangereplay::cli
