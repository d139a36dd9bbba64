// The launcher's command line: argument vector -> what to do, with every
// option checked before anything starts. Errors are one line naming the cause
// and the fix; the launcher prints them as "rangereplay: <message>" and exits 2.
//
//   rangereplay profile [options] -- <app> [args]    (the '--' may be left out)
//   rangereplay diff [--csv | --json] [--metrics a,b] [--changed-above PCT] <base.json> <new.json>
//   rangereplay merge <rank0.json> <rank1.json> ... [-o <job.json|job.csv>]
//   rangereplay report <x.json> [--page summary|details|raw] [--kernel-name K] [--range R]
//   rangereplay report <x.json> -o <out.html|.csv|.json>
//   rangereplay --list-metrics | list-metrics
//   rangereplay --list-sets    | list-sets
//   rangereplay --version | --help
//   rangereplay --help-man | --completion bash|zsh   (hidden: the build's man page and completions)
//
// Parsing touches no GPU, and the file system only to tell whether merge's
// paths name the same file; the launcher checks the application path, metric
// names and the device afterwards (launcher.h).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/output_path.h"
#include "core/base/status.h"
#include "core/config/profile_config.h"
#include "core/interprocess/app_runs.h"

namespace rangereplay::cli {

enum class Action { kProfile, kDiff, kMerge, kReport, kListMetrics, kListSets, kVersion, kHelp };

/// How `diff` prints its comparison.
enum class DiffFormat { kTable, kCsv, kJson };

/// A `diff` command: two JSON reports, compared metric by metric
/// (report/report_diff.h).
struct DiffRequest {
  std::string base_path;
  std::string new_path;
  DiffFormat format = DiffFormat::kTable;
  std::vector<std::string> metrics;         // --metrics: the names to compare; empty = all
  std::optional<double> changed_above_pct;  // --changed-above: rows changed by more than this (percent)
  bool sort_by_change = true;               // --sort change (default) or report (the reports' order)
};

/// A `merge` command: the JSON reports of a job's ranks, rank i the i-th
/// (report/report_merge.h), merged into a terminal table (`output_path`
/// empty) or a JSON or CSV file (its extension picks `format`).
struct MergeRequest {
  std::vector<std::string> report_paths;  // at least two, none given twice
  std::string output_path;                // "" = the terminal table on stdout
  OutputFormat format = OutputFormat::kJson;
};

/// A `profile` command, checked.
struct ProfileRequest {
  /// Range selection (parsed), replay and output options as given; `metrics` is empty
  /// (expanded later from metrics_csv/set_name), `report_path` is empty (the
  /// launcher picks a temporary file), `command` is the application and its
  /// arguments.
  ProfileConfig config;
  std::string metrics_csv;                           // --metrics as typed, "" when not given
  std::string set_name;                              // --set; "basic" when neither --metrics nor --set is given
  std::string output_pattern;                        // --output before %p/%q/%h expansion, "" = no file
  OutputFormat output_format = OutputFormat::kJson;  // from output_pattern's extension
  CsvPage csv_page = CsvPage::kOwn;                  // --csv-page
  // Application range replay (core/interprocess/app_runs.h, cli/app_range_runs.h).
  ReplayMode replay_mode = ReplayMode::kRange;  // --replay-mode
  Fallback fallback = Fallback::kNone;          // --fallback
  std::uint32_t max_app_runs = 0;               // --max-app-runs, 0 = no cap
};

/// The terminal view's page (`report --page`, report/report_view.h).
enum class ReportPage { kSummary, kDetails, kRaw };

/// A `report` command: an existing JSON report printed in the terminal
/// (`output_path` empty) or written again in the format `output`'s extension
/// picks; the filters apply to both.
struct ReportRequest {
  std::string input_path;
  std::string output_path;  // "" = the terminal view
  OutputFormat format = OutputFormat::kHtml;
  CsvPage csv_page = CsvPage::kOwn;        // --csv-page
  ReportPage page = ReportPage::kDetails;  // --page
  std::string kernel_name;                 // --kernel-name: a part of a name, or regex:<RE2 pattern>
  std::string range;                       // --range: range indices (0,2-3) or a range name
};

struct CommandLine {
  Action action = Action::kHelp;
  ProfileRequest profile;      // for kProfile
  DiffRequest diff;            // for kDiff
  MergeRequest merge;          // for kMerge
  ReportRequest report;        // for kReport
  std::string text;            // help, man page or completion text (kHelp), version text (kVersion)
  bool help_is_error = false;  // kHelp because nothing was asked: print on stderr, exit 2
};

/// The set used when neither --metrics nor --set is given.
inline constexpr const char* kDefaultSet = "basic";

/// The smallest --snapshot-device-limit and --snapshot-host-limit: 4 KiB, one
/// page, the smallest pinned host buffer a snapshot takes. A lower cap (1
/// byte) is a typing slip, not a budget: no snapshot fits in it.
inline constexpr std::uint64_t kMinSnapshotLimitBytes = 4096;

/// Parses `args` (args[0] is the program name). `env` resolves %q{NAME} in
/// --output so that an unset variable is reported before the application
/// starts. Errors: invalid_argument with a one-line message (unknown option,
/// missing value, malformed size / NVTX expression / kernel range / range
/// list / output name, an option given an empty value ("--metrics needs a
/// value"), an unknown --set name, no range selected, more than one range
/// source, a selection of none of the --kernel-range windows, an
/// --nvtx-exclude equal to every --nvtx-include, --collectives replay with
/// --replay-mode app-range, a snapshot limit's size written in two words, no
/// application; for merge: fewer than two reports, a report given twice or
/// an output naming one of them (compared as files), an output not ending in
/// .json or .csv). Thread-safe if `env` is.
StatusOr<CommandLine> parse_command_line(const std::vector<std::string>& args, const EnvLookup& env);

/// Parses --kernel-range windows "A:B[,C:D...]" (launch indices, B
/// exclusive) with range::KernelWindows::parse. Errors: invalid_argument,
/// one line naming the column ("--kernel-range '5': missing ':' at column 2; ...").
StatusOr<range::KernelWindows> parse_kernel_range(const std::string& text);
/// Parses a matched-range list "2,5-7" (indices and inclusive spans, from 0;
/// "3-" runs to the end) with range::RangeSelector::parse_list. Errors:
/// invalid_argument, one line naming the column.
StatusOr<range::RangeSelector> parse_range_list(const std::string& text);
/// Parses one --nvtx-include/--nvtx-exclude expression (`option` is the flag
/// as typed) with range::parse_nvtx_expression. Errors: invalid_argument,
/// one line naming the column ("--nvtx-include 'A//B': empty range name at
/// column 3; write A/B").
StatusOr<range::NvtxExpression> parse_nvtx_option(const std::string& option, const std::string& text);

/// Warnings (one line each) for NVTX expressions that parse but may not mean
/// what they look like: a `regex:` expression whose range pattern begins with
/// a '[' that a later ']' could close, as a character class would be, is
/// anchored at the bottom of the NVTX stack (as a plain expression is); a
/// class at the start is written "/[" (at the end "/]"), and the line shows
/// the expression so written when that parses. An anchor before a name or a
/// class ("[step_.*/", "[[0-9]+/") gets none. Pure.
std::vector<std::string> nvtx_expression_warnings(const ProfileConfig& config);

/// ok when `name` is one of `known_sets` (or `known_sets` is empty: nothing to
/// compare against). Errors: invalid_argument, one line with up to three
/// closest names: "unknown set 'fulll' (closest: full); 'rangereplay
/// --list-sets' lists the sets", or for a lower-case name typed in another
/// case "unknown set 'FULL'; set names are lower case: did you mean 'full'?".
/// parse_command_line checks --set against
/// metric_sets() (src/core/config/metric_sets.h) with it. Thread-safe.
Status check_set_name(const std::string& name, std::span<const std::string> known_sets);

/// What `--version` prints before the driver's line (build_info_text):
/// "rangereplay <version>", the commit, the CUDA and CUPTI built with; each
/// line ends in '\n'. Thread-safe.
std::string version_text();

}  // namespace rangereplay::cli
