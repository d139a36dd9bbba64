// metrics-probe's command line, header-only so that main.cpp and the unit
// tests (tests/unit/cli/probe_options_test.cpp) parse with the same options.
// The probe names itself as it was invoked (the build's `metrics-probe`, the
// install's `rangereplay-metrics-probe`: program_name).
// Parse errors are one line, "<program>: <cause>; <fix>", exit 2, from
// the launcher's CLI11 error handling (cli/cli11_errors.h); no argument at all
// prints the usage on stderr and exits 2, as `rangereplay` alone does.
//
// Thread-safety: parse_probe_options writes only to the given streams.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli11_errors.h"

namespace rangereplay::probe {

struct ProbeOptions {
  std::string chip = "GH100";
  std::string metrics_csv;
  std::string set_name;
  bool list = false;
  bool list_all = false;
  bool sets = false;
  bool each = false;
};

struct ProbeCommandLine {
  ProbeOptions options;
  std::string program;           // program_name(words): the name in usage and error lines
  std::optional<int> exit_code;  // set: stop with this code (help, usage error)
};

/// The basename of words[0] ("/opt/rr/bin/rangereplay-metrics-probe" ->
/// "rangereplay-metrics-probe"); the installed name when words is empty or
/// words[0] names no file.
inline std::string program_name(const std::vector<std::string>& words) {
  const std::string path = words.empty() ? std::string() : words.front();
  const std::string base = path.substr(path.find_last_of('/') + 1);
  return base.empty() ? "rangereplay-metrics-probe" : base;
}

/// Parses `words` (words[0] is the program name). --help prints the help on
/// `out` (exit code 0); no argument prints it on `err`, and a parse error or
/// a command line that asks for nothing (no --list, --list-all, --sets,
/// --metrics or --set), or for more than one of these modes (--metrics and
/// --set together are one), one line on `err` (exit code 2).
inline ProbeCommandLine parse_probe_options(const std::vector<std::string>& words, std::ostream& out,
                                            std::ostream& err) {
  ProbeCommandLine cl;
  ProbeOptions& o = cl.options;
  cl.program = program_name(words);
  CLI::App app{"Ask CUPTI's profiler host API about a chip's metrics (no GPU needed)", cl.program};
  app.add_option("--chip", o.chip, "chip name as CUPTI spells it (GH100 = H100/H200)")->capture_default_str();
  app.add_option("--metrics", o.metrics_csv, "comma-separated metric names");
  app.add_option("--set", o.set_name, "a built-in metric set");
  app.add_flag("--list", o.list, "list base metrics with kind, unit and description");
  app.add_flag("--list-all", o.list_all, "list every full metric name (base + suffix), one per line");
  app.add_flag("--sets", o.sets,
               "list the built-in sets resolved on the chip: metrics, missing metrics, passes, sections");
  app.add_flag("--each", o.each, "with --metrics/--set: also the pass count of each metric alone");
  cl.exit_code = cli::parse_or_exit(app, words, cl.program, out, err);
  // One question per run: the modes print different tables, and a second
  // one would be dropped without a word.
  const int modes = int(o.list) + int(o.list_all) + int(o.sets) + int(!o.metrics_csv.empty() || !o.set_name.empty());
  if (!cl.exit_code && modes > 1) {
    err << cl.program
        << ": give one of --list, --list-all, --sets, or --metrics/--set (with --each), not several; run the probe "
           "once for each"
        << std::endl;
    cl.exit_code = cli::kExitUsageError;
  }
  if (!cl.exit_code && modes == 0) {
    err << cl.program
        << ": nothing to show; give --list, --list-all, --sets, --metrics LIST or --set NAME (see '" + cl.program +
               " --help')"
        << std::endl;
    cl.exit_code = cli::kExitUsageError;
  }
  return cl;
}

}  // namespace rangereplay::probe
