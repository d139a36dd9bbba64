// Command-line parsing with CLI11 and the checks that need no GPU, and the
// file system only for merge's paths (see cli_options.h). Range-selection options are parsed here, once, with
// the core parsers (src/core/range/): the configuration carries the parsed
// values to the injection, and a malformed expression is reported before the
// application starts, with its column.
#include "cli/cli_options.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>

#include "cli/application_path.h"
#include "cli/build_info.h"
#include "cli/cli11_errors.h"
#include "cli/cli_docs.h"
#include "core/base/ascii.h"
#include "core/base/closest_names.h"
#include "core/config/metric_sets.h"
#include "core/interprocess/rendezvous_endpoint.h"
#include "core/range/kernel_windows.h"
#include "core/range/nvtx_expression.h"
#include "core/range/range_selector.h"
#include "core/snapshot/storage/byte_size.h"

namespace rangereplay::cli {
namespace {

constexpr const char* kNoRange = "no range selected; give --nvtx-include EXPR, --profiler-api or --kernel-range A:B";

StatusOr<std::uint32_t> parse_count(const std::string& option, const std::string& text, std::uint32_t minimum) {
  std::uint32_t value = 0;
  if (!parse_unsigned_decimal(text, value)) {
    return invalid_argument(option + " '" + text + "' is not a whole number from " + std::to_string(minimum) +
                            " to 4294967295");
  }
  if (value < minimum) {
    return invalid_argument(option + " " + text + " must be at least " + std::to_string(minimum) +
                            (option == "--range-count" ? "; leave it out to profile every matched range" : ""));
  }
  return value;
}

StatusOr<std::uint64_t> parse_limit(const std::string& option, const std::string& text) {
  StatusOr<std::uint64_t> bytes = storage::parse_byte_size(text);
  if (!bytes.ok()) return invalid_argument(option + ": " + bytes.status().message());
  if (*bytes < kMinSnapshotLimitBytes) {
    return invalid_argument(option + " " + text +
                            " is below the minimum of 4KiB (one page, the smallest snapshot "
                            "buffer); give 4KiB or more, or leave it out for no cap");
  }
  return *bytes;
}

std::string first_line_of(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

std::string top_footer() {
  return "Examples:\n"
         "  rangereplay profile --nvtx-include step/ --set full -- ./app args\n"
         "  rangereplay profile --profiler-api --metrics dram__bytes_read.sum -o run_%p.json -- python train.py\n"
         "Exit codes: the application's own (128+N when signal N ended it); 2 for an option error;\n"
         "1 when the profiler cannot run (e.g. no CUDA device), or when --output could not be written\n"
         "after the run and the application exited 0 (the report is kept; its path is printed).";
}

// The choices of --range-metrics and --restore, from their enums' name tables
// (core/config/profile_config.h): "kernel or whole", "full|differential" (the help
// and hints list full first).
std::string range_metrics_choices(std::string_view last_separator) {
  return names_joined(kRangeMetricsNames, ", ", last_separator);
}
std::string restore_choices(std::string_view last_separator) {
  return names_joined(kRestoreModeNames, {RestoreMode::kFull, RestoreMode::kDifferential}, ", ", last_separator);
}
std::string name(RangeMetrics m) { return std::string(name_of(kRangeMetricsNames, m)); }
std::string name(RestoreMode m) { return std::string(name_of(kRestoreModeNames, m)); }

// What each value-taking option of `profile` expects, for "--X needs a value
// (...)": a missing value, "--X=" and an empty value all get this line.
std::string value_hint(const std::string& option) {
  static const std::pair<const char*, std::string> kHints[] = {
      {"--nvtx-include", "an NVTX expression, e.g. step/"},
      {"--nvtx-exclude", "an NVTX expression, e.g. warmup/"},
      {"--kernel-range", "launch windows A:B, e.g. 100:164"},
      {"--metrics", "metric names separated by commas, e.g. dram__bytes_read.sum"},
      {"--set", "a set name; 'rangereplay --list-sets' lists them"},
      {"--range-metrics", range_metrics_choices(" or ")},
      {"--range-count", "a whole number from 1"},
      {"--skip", "a whole number"},
      {"--range-list", "matched range numbers, e.g. 2,5-7"},
      {"--output", "a file name ending in .json, .csv or .html"},
      {"--csv-page", "details or raw"},
      {"--page", "summary, details or raw"},
      {"--kernel-name", "a part of a kernel name, or regex:<RE2 pattern>"},
      {"--range", "range indices, e.g. 0,2-3, or a range name"},
      {"--changed-above", "a percentage, e.g. 10"},
      {"--sort", "change or report"},
      {"--restore", restore_choices(" or ")},
      {"--cache-control", "all or none"},
      {"--batch-ranges", "a whole number from 2, or off"},
      {"--collectives", "decline or replay"},
      {"--rendezvous", "host:port"},
      {"--replay-mode", "range or app-range"},
      {"--fallback", "none or app-range"},
      {"--max-app-runs", "a whole number from 1"},
      {"--snapshot-device-limit", "a size, e.g. 8GiB"},
      {"--snapshot-host-limit", "a size, e.g. 32GiB"},
  };
  for (const auto& [name, hint] : kHints) {
    if (option == name) return option + " needs a value (" + hint + ")";
  }
  return option + " needs a value";
}

// A word as the user would type it in a shell: quoted when it holds
// anything a shell would split or expand.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789-_./=:,@%+") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `--metrics "a.sum b.sum"` or "a.sum;b.sum": the catalog would read one
// name "a.sum b.sum" and say "'a' has no suffix '.sum b.sum'". Errors:
// invalid_argument with the list rewritten with commas.
Status check_metric_separators(const std::string& metrics) {
  if (!metrics.empty()) {
    // An empty name between commas ("a.sum,,b.sum", "a.sum,") is a slip, as
    // in the other comma lists (--kernel-range, --range-list).
    std::size_t item_start = 0;
    while (item_start <= metrics.size()) {
      const std::size_t comma = std::min(metrics.find(',', item_start), metrics.size());
      if (trim(std::string_view(metrics).substr(item_start, comma - item_start)).empty())
        return invalid_argument("--metrics '" + metrics + "' has an empty name between commas; drop the extra comma");
      item_start = comma + 1;
    }
  }
  if (metrics.find_first_of(" \t;") == std::string::npos) return ok_status();
  std::string fixed;
  std::size_t start = 0;
  while (start < metrics.size()) {
    const std::size_t end = std::min(metrics.find_first_of(" \t;,", start), metrics.size());
    if (end > start) fixed += (fixed.empty() ? "" : ",") + metrics.substr(start, end - start);
    start = end + 1;
  }
  // Spaces next to commas only ("a.sum, b.sum") are trimmed later: fine.
  if (metrics.find(';') == std::string::npos) {
    bool inner_space = false;
    std::size_t item_start = 0;
    while (item_start <= metrics.size() && !inner_space) {
      const std::size_t comma = std::min(metrics.find(',', item_start), metrics.size());
      inner_space = trim(std::string_view(metrics).substr(item_start, comma - item_start)).find_first_of(" \t") !=
                    std::string::npos;
      item_start = comma + 1;
    }
    if (!inner_space) return ok_status();
  }
  return invalid_argument("--metrics: metric names are separated by commas, not spaces or ';': write '" + fixed + "'");
}

// The core parsers name the option without dashes ("nvtx-include '...': ...",
// hints say "--nvtx-include"); the launcher's messages start with the flag.
template <class T>
StatusOr<T> as_flag_error(StatusOr<T> parsed) {
  if (parsed.ok()) return parsed;
  return invalid_argument("--" + parsed.status().message());
}

// The words of the command line, split at the first "--": everything after it
// belongs to the application, unparsed.
struct Words {
  std::vector<std::string> ours;          // the program name and the words before the first "--"
  std::vector<std::string> after_dashes;  // the words after it
  bool has_dashes = false;
};

Words split_at_dashes(const std::vector<std::string>& args) {
  Words w;
  w.ours = args.empty() ? std::vector<std::string>{"rangereplay"} : args;
  for (std::size_t i = 1; i < w.ours.size(); ++i) {
    if (w.ours[i] == "--") {
      w.after_dashes.assign(w.ours.begin() + static_cast<std::ptrdiff_t>(i) + 1, w.ours.end());
      w.ours.resize(i);
      w.has_dashes = true;
      break;
    }
  }
  return w;
}

// The options of `profile` as typed; "" (or no element) when not given, but
// for --range-metrics and --restore, which hold their default's name.
struct ProfileOptions {
  std::vector<std::string> nvtx_include, nvtx_exclude;
  bool profiler_api = false, verify = false, quiet = false;
  std::string kernel_range, metrics, set,
      range_metrics = name(ProfileConfig{}.range_metrics), range_count, skip, range_list, output,
      restore = name(ProfileConfig{}.restore), device_limit, host_limit, csv_page,
      cache_control = std::string(name_of(kCacheControlNames, ProfileConfig{}.cache_control)), batch_ranges,
      collectives = std::string(name_of(kCollectivesModeNames, ProfileConfig{}.collectives)), rendezvous,
      replay_mode = std::string(name_of(kReplayModeNames, ProfileRequest{}.replay_mode)),
      fallback = std::string(name_of(kFallbackNames, ProfileRequest{}.fallback)), max_app_runs;
};

// The options of how ranges are replayed, in `profile`'s help order: --verify
// to --max-app-runs.
void add_replay_options(CLI::App& profile, ProfileOptions& o) {
  profile.add_flag("--verify", o.verify, "Check that every replay reproduced the application's own result");
  profile
      .add_option("--restore", o.restore,
                  name(RestoreMode::kDifferential) + " (default: only the 1 MiB chunks that changed) or " +
                      name(RestoreMode::kFull) + " (every byte)")
      ->type_name(restore_choices("|"));
  profile.add_option("--snapshot-device-limit", o.device_limit, "Cap on device memory for snapshots (e.g. 8GiB)")
      ->type_name("SIZE");
  profile.add_option("--snapshot-host-limit", o.host_limit, "Cap on pinned host memory for snapshots (e.g. 32GiB)")
      ->type_name("SIZE");
  profile
      .add_option("--cache-control", o.cache_control,
                  "all (default: flush L2 before every counted pass) or none (after the tool's writes)")
      ->type_name("all|none");
  profile
      .add_option("--batch-ranges", o.batch_ranges,
                  "Most multi-pass ranges replayed together (default " + std::to_string(kDefaultBatchRanges) +
                      "), or off: each replayed at its end")
      ->type_name("N|off");
  profile
      .add_option("--collectives", o.collectives,
                  "decline (default: collective_in_range) or replay (the job's ranks replay together)")
      ->type_name("decline|replay");
  profile
      .add_option("--rendezvous", o.rendezvous,
                  "Where --collectives replay's ranks meet; default MASTER_ADDR:MASTER_PORT+1")
      ->type_name("HOST:PORT");
  profile
      .add_option("--replay-mode", o.replay_mode,
                  "range (default: replay in the run) or app-range (re-run the application once per pass)")
      ->type_name("range|app-range");
  profile
      .add_option("--fallback", o.fallback,
                  "none (default) or app-range (re-run the application once per pass for declined ranges)")
      ->type_name("none|app-range");
  profile.add_option("--max-app-runs", o.max_app_runs, "Most application runs app-range may take (default: no cap)")
      ->type_name("N");
}

void add_profile_options(CLI::App& profile, ProfileOptions& o) {
  profile.prefix_command();  // the first non-option word starts the application's command
  profile.footer(
      "The application and its arguments follow '--' (or the last option).\n"
      "Sizes: bytes or e.g. 512MiB, 6GB. --output names: %p pid, %q{VAR} env variable, %h host, %% '%'.\n"
      "Examples:\n"
      "  rangereplay profile --nvtx-include step/ --set full -o run.json -- ./app args\n"
      "  rangereplay profile --nvtx-include 'regex:^step_[0-9]+$/' --skip 2 --range-count 3 -- python train.py\n"
      "  rangereplay profile --kernel-range 10:20 --metrics dram__bytes_read.sum -- ./app\n"
      "  rangereplay profile --nvtx-include step/ -o rank%q{RANK}.json -- torchrun --nproc-per-node 2 train.py\n"
      "Exit codes: the application's own (128+N when signal N ended it); 2 for an option error;\n"
      "1 when the profiler cannot run (e.g. no CUDA device), or when --output could not be written\n"
      "after the run and the application exited 0 (the report is kept; its path is printed).");
  // One expression per flag, the flag repeatable: the help shows "EXPR", not "EXPR ...".
  profile
      .add_option("--nvtx-include", o.nvtx_include, "NVTX include expression, e.g. step/ (one per flag; repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  profile.add_option("--nvtx-exclude", o.nvtx_exclude, "NVTX exclude expression (one per flag; repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  profile.add_flag("--profiler-api", o.profiler_api, "Ranges from cu(da)ProfilerStart/Stop");
  profile
      .add_option("--kernel-range", o.kernel_range,
                  "Ranges of kernel launches A:B[,C:D...] in the process (from 0, B exclusive)")
      ->type_name("A:B");
  profile
      .add_option("--metrics", o.metrics,
                  "Metric names separated by commas (Nsight Compute names); with --set, both lists")
      ->type_name("LIST");
  profile
      .add_option("--set", o.set,
                  "Named metric set (see --list-sets); default basic; with --metrics, both lists; triage: PM sampling "
                  "in the application's own run, no replay")
      ->type_name("NAME");
  profile
      .add_option("--range-metrics", o.range_metrics,
                  name(RangeMetrics::kPerKernel) + " (per kernel, default) or " + name(RangeMetrics::kWholeRange) +
                      " (one value per range)")
      ->type_name(range_metrics_choices("|"));
  profile.add_option("--range-count", o.range_count, "Profile at most N matched ranges")->type_name("N");
  profile.add_option("--skip", o.skip, "Skip the first N matched ranges")->type_name("N");
  profile.add_option("--range-list", o.range_list, "Matched ranges to profile, e.g. 2,5-7 (from 0)")->type_name("LIST");
  profile
      .add_option("-o,--output", o.output,
                  "Write the report to PATH (.json, .csv or .html; checked writable before the run)")
      ->type_name("PATH");
  profile.add_option("--csv-page", o.csv_page, "With a .csv output: ncu's CSV layout, details or raw (--page of ncu)")
      ->type_name("details|raw");
  add_replay_options(profile, o);
  profile.add_flag("--quiet", o.quiet, "No progress on stderr");
}

// The launcher's CLI11 app: the top-level flags, `profile` with its options,
// and the word forms list-metrics / list-sets of the list flags. The options
// are bound to the members, so the object stays where it was built.
class LauncherApp {
 public:
  LauncherApp()
      : app("rangereplay: range-replay profiler for NVIDIA GPUs. Records a range of GPU work in an\n"
            "unmodified application, replays it for every hardware-counter pass, and reports metrics.",
            "rangereplay") {
    add_top_level_flags();
    profile = app.add_subcommand("profile", "Profile ranges of an application: profile [options] -- <app> [args]");
    list_metrics_cmd = app.add_subcommand("list-metrics", "Same as --list-metrics");
    list_sets_cmd = app.add_subcommand("list-sets", "Same as --list-sets");
    add_diff_command();
    add_merge_command();
    add_report_command();
    app.require_subcommand(0, 1);
    add_profile_options(*profile, options);
  }
  LauncherApp(const LauncherApp&) = delete;
  LauncherApp& operator=(const LauncherApp&) = delete;

  // Each list action in its flag or its word form.
  bool list_metrics() const { return list_metrics_flag || list_metrics_cmd->parsed(); }
  bool list_sets() const { return list_sets_flag || list_sets_cmd->parsed(); }

  CLI::App app;
  CLI::App* profile = nullptr;
  CLI::App* list_metrics_cmd = nullptr;
  CLI::App* list_sets_cmd = nullptr;
  CLI::App* diff = nullptr;
  CLI::App* merge = nullptr;
  CLI::App* report = nullptr;
  std::string report_input, report_output, report_csv_page, report_page, report_kernel_name, report_range;
  std::string diff_base, diff_new, diff_metrics, diff_changed_above, diff_sort;
  bool diff_csv = false, diff_json = false;
  std::vector<std::string> merge_inputs;
  std::string merge_output;
  bool list_metrics_flag = false, list_sets_flag = false, version = false, man_page_flag = false;
  std::string completion_shell;
  ProfileOptions options;

 private:
  // The top-level flags: the list actions, --version, and the hidden
  // --help-man and --completion the build writes the docs with.
  void add_top_level_flags() {
    app.footer(top_footer());
    // Wide enough for the longest option with its type ("--snapshot-device-limit SIZE",
    // "--restore full|differential") to keep a gap before its description.
    app.get_formatter()->column_width(34);
    app.add_flag("--list-metrics", list_metrics_flag, "List the metric names of the GPU (needs a GPU)");
    app.add_flag("--list-sets", list_sets_flag, "List the named metric sets");
    app.add_flag("--version", version, "Print the version, the CUDA and CUPTI built with and the driver found");
    // Hidden (the empty group): the build writes the man page and the shell
    // completions from this table with them (tools/cli/CMakeLists.txt).
    app.add_flag("--help-man", man_page_flag, "Print the man page (roff)")->group("");
    app.add_option("--completion", completion_shell, "Print a completion script for the shell")
        ->type_name("bash|zsh")
        ->group("");
  }

  // `diff`: two reports compared metric by metric.
  void add_diff_command() {
    diff =
        app.add_subcommand("diff", "Compare two reports metric by metric: diff [--csv|--json] <base.json> <new.json>");
    diff->footer(
        "Ranges pair by name and instance, kernels by name, grid, block and order. A report with per-kernel values\n"
        "against one profiled with --range-metrics whole compares range totals: the per-kernel side's total of a\n"
        ".sum metric is the sum of its kernels' values; other metrics are listed as not compared (profile both\n"
        "with the same --range-metrics to compare every metric). Changes beyond +-1000% show as a factor\n"
        "(x1234.5) in the table; --csv and --json keep the exact percentage.\n"
        "Examples:\n"
        "  rangereplay diff base.json new.json --changed-above 10          # only what moved by more than 10%\n"
        "  rangereplay diff base.json new.json --metrics gpu__time_duration.sum --csv\n"
        "Exit codes: 0 when compared; 1 when no value pairs (reports of different programs or ranges); 2 for an "
        "option error or a report that cannot be read.");
    diff->add_option("base", diff_base, "The baseline report (JSON)")->required();
    diff->add_option("new", diff_new, "The report to compare with it (JSON)")->required();
    diff->add_flag("--csv", diff_csv, "Print CSV (range,kernel,metric,unit,base,new,change_pct)");
    diff->add_flag("--json", diff_json, "Print JSON (rows, unmatched, declined)");
    diff->add_option("--metrics", diff_metrics, "Compare only these metrics (names separated by commas)")
        ->type_name("NAMES");
    diff->add_option("--changed-above", diff_changed_above,
                     "Show only values whose change exceeds PCT percent either way (and those without a finite change)")
        ->type_name("PCT");
    diff->add_option("--sort", diff_sort,
                     "change (default): the kernel with the largest change first, its largest change first; "
                     "report: the reports' order")
        ->type_name("change|report");
  }

  // `merge`: the reports of a job's ranks in one.
  void add_merge_command() {
    merge = app.add_subcommand(
        "merge", "Merge the reports of a job's ranks: merge <rank0.json> <rank1.json> ... [-o <job.json|job.csv>]");
    merge
        ->add_option(
            "reports", merge_inputs,
            "The ranks' reports (JSON), rank 0 first (reports that record distinct ranks are put in rank order)")
        ->expected(0, -1);
    merge->add_option("-o,--output", merge_output, "Write the merge as JSON or CSV (by extension), not a table")
        ->type_name("PATH");
    merge->footer(
        "Examples:\n"
        "  rangereplay merge rank0.json rank1.json            # a table: per-rank values, min/mean/max\n"
        "  rangereplay merge rank*.json -o job.json           # or job.csv\n"
        "Exit codes: 0 when merged; 2 for an option error, a report that cannot be read or an output that cannot be "
        "written.");
  }

  // `report`: a saved report (or a killed process's journal) printed or written again.
  void add_report_command() {
    report = app.add_subcommand("report",
                                "Print a saved report, or write it again: report <x.json|x.journal> "
                                "[--page summary|details|raw] [-o <out.html|.csv|.json>]");
    report
        ->add_option("report", report_input,
                     "The report (JSON), or the journal a killed process left (report.<pid>.journal)")
        ->required();
    report
        ->add_option("-o,--output", report_output,
                     "The file to write; its extension picks the format (without it, the report is printed)")
        ->type_name("PATH");
    report->add_option("--csv-page", report_csv_page, "With a .csv output: ncu's CSV layout, details or raw")
        ->type_name("details|raw");
    report
        ->add_option("--page", report_page,
                     "What to print: summary (a line per kernel), details (default: each kernel's metrics by "
                     "section) or raw (every metric, full names)")
        ->type_name("summary|details|raw");
    report
        ->add_option("--kernel-name", report_kernel_name,
                     "Only kernels whose name contains this text, or matches regex:<RE2 pattern>")
        ->type_name("NAME");
    report->add_option("--range", report_range, "Only these ranges: indices (0,2-3) or a range name")
        ->type_name("RANGES");
    report->footer(
        "Examples:\n"
        "  rangereplay report run.json                                # each kernel's metrics by section\n"
        "  rangereplay report run.json --page summary --range 0       # a line per kernel of range 0\n"
        "  rangereplay report run.json --kernel-name 'regex:gemm|conv'  # the kernels whose names match\n"
        "  rangereplay report run.json -o run.html                    # a page to look at\n"
        "  rangereplay report run.json -o run.csv --csv-page details  # ncu's --page details layout\n"
        "  rangereplay report /tmp/rangereplay-X/report.42.journal -o run.json  # the ranges of a killed run\n"
        "Exit codes: 0 when printed or written; 2 for an option error, a report that cannot be read, a filter that "
        "keeps nothing or an output that cannot be written.");
  }
};

// The command line `args` as it should have been typed: `rangereplay
// <command>` first, then every other word (shell-quoted) but the one at
// `drop` (the command where it was typed; args.size() drops none).
std::string with_command_first(const std::string& command, const std::vector<std::string>& args, std::size_t drop) {
  std::string line = "rangereplay " + command;
  for (std::size_t j = 1; j < args.size(); ++j) {
    if (j != drop) line += " " + shell_word(args[j]);
  }
  return line;
}

// Words CLI11 did not expect (an ExtrasError): what they most likely are, then
// (as for every other parse error) cli11_error_line's line. `args` is the
// whole command line, for the rewritten command of a profile option given
// without `profile`.
std::string extras_error_line(const LauncherApp& l, const CLI::ExtrasError& e, const std::vector<std::string>& ours,
                              const std::vector<std::string>& args) {
  for (const CLI::App* cmd : {l.list_metrics_cmd, l.list_sets_cmd}) {
    if (!cmd->parsed()) continue;
    const std::vector<std::string> extras = cmd->remaining();
    const bool option = !extras.empty() && extras.front().starts_with("-");
    return cmd->get_name() + " takes no " + (option ? "options" : "arguments") + "; write 'rangereplay " +
           cmd->get_name() + "'";
  }
  for (const CLI::App* cmd : {l.diff, l.merge, l.report}) {
    if (!cmd->parsed()) continue;
    const std::vector<std::string> extras = cmd->remaining();
    if (!extras.empty() && extras.front().size() > 1 && extras.front().starts_with("-"))
      return unknown_option_line(*cmd, extras.front(), "rangereplay " + cmd->get_name() + " --help");
  }
  // `rangereplay --set full profile -- app`: a command's option given before
  // the command.
  for (const CLI::App* cmd : {l.profile, l.report, l.diff, l.merge}) {
    const auto word = std::find(ours.begin() + 1, ours.end(), cmd->get_name());
    if (!cmd->parsed() || word == ours.end()) continue;
    const auto at = static_cast<std::size_t>(word - ours.begin());
    for (std::size_t i = 1; i < at; ++i) {
      if (option_named(l.app, ours[i]) != nullptr || option_named(*cmd, ours[i]) == nullptr) continue;
      return ours[i].substr(0, ours[i].find('=')) + " is an option of `" + cmd->get_name() +
             "` and goes after it: write '" + with_command_first(cmd->get_name(), args, at) + "'";
    }
  }
  if (l.report->parsed()) return "report writes one report again: write 'rangereplay report <x.json> -o <out.html>'";
  if (l.diff->parsed())
    return "diff compares two reports: write 'rangereplay diff [--csv|--json] <base.json> <new.json>'";
  if (!l.profile->parsed() && ours.size() > 1 && !ours[1].starts_with("-")) {
    // A word where the command goes: most likely a mistyped command.
    std::vector<std::string> close = closest_names(
        ours[1], std::vector<std::string>{"profile", "diff", "merge", "report", "list-metrics", "list-sets"}, 1,
        plausible_typo_distance(ours[1].size()));
    return "unknown command '" + ours[1] + "'" + (close.empty() ? "" : " (did you mean " + close.front() + "?)") +
           "; commands are profile, diff, merge, report, list-metrics and list-sets";
  }
  if (!l.profile->parsed()) {
    // `rangereplay --nvtx-include step/ -- app`: `profile` left out.
    for (std::size_t i = 1; i < ours.size(); ++i) {
      if (option_named(l.app, ours[i]) != nullptr || option_named(*l.profile, ours[i]) == nullptr) continue;
      return ours[i].substr(0, ours[i].find('=')) + " is an option of `profile`: write '" +
             with_command_first("profile", args, args.size()) + "'";
    }
  }
  return cli11_error_line(e, {&l.app}, ours, "rangereplay --help");
}

// Runs CLI11 over `ours`. Returns the help when it was asked for, nullopt when
// the words parsed. Errors: invalid_argument with the one-line message.
StatusOr<std::optional<CommandLine>> parse_words(LauncherApp& l, const std::vector<std::string>& ours,
                                                 const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& a : ours) argv.push_back(a.c_str());
  CommandLine help;
  help.action = Action::kHelp;
  try {
    l.app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    help.text = l.app.help();
    return std::optional<CommandLine>(std::move(help));
  } catch (const CLI::CallForAllHelp&) {
    help.text = l.app.help("", CLI::AppFormatMode::All);
    return std::optional<CommandLine>(std::move(help));
  } catch (const CLI::ExtrasError& e) {
    return invalid_argument(extras_error_line(l, e, ours, args));
  } catch (const CLI::ParseError& e) {
    // CLI11 names a missing positional ("report is required", "base is
    // required"), which reads as if the command itself were missing.
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
      if (l.report->parsed() && l.report_input.empty())
        return invalid_argument(
            "report needs the report to read: write 'rangereplay report <x.json>' (or a killed run's "
            "<report.PID.journal>)");
      if (l.diff->parsed() && (l.diff_base.empty() || l.diff_new.empty()))
        return invalid_argument(
            "diff needs two reports, the base first: write 'rangereplay diff <base.json> <new.json>'");
    }
    const std::string help_command = l.profile->parsed()  ? "rangereplay profile --help"
                                     : l.diff->parsed()   ? "rangereplay diff --help"
                                     : l.merge->parsed()  ? "rangereplay merge --help"
                                     : l.report->parsed() ? "rangereplay report --help"
                                                          : "rangereplay --help";
    return invalid_argument(
        cli11_error_line(e, {l.profile, l.diff, l.merge, l.report, &l.app}, ours, help_command, value_hint));
  }
  return std::optional<CommandLine>();
}

// What names a file, for telling whether two of merge's paths are one file:
// its device and inode where it exists (through links, `..` and absolute
// paths alike), otherwise its weakly canonical absolute path (`./a.json` is
// `a.json`; an output not written yet), or the path as written, normalized,
// when the file system cannot say. One stat per path.
std::string file_identity(const std::string& path) {
  namespace fs = std::filesystem;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return "inode " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return "path " + (ec ? fs::path(path).lexically_normal() : canonical).string();
}

// `merge`'s reports and output. Errors: invalid_argument for fewer than two
// reports, one given twice or an output naming one of the reports (compared
// as files: file_identity), an output given empty or not ending in .json or
// .csv.
StatusOr<MergeRequest> merge_request(const std::vector<std::string>& inputs, const std::string& output,
                                     bool output_given) {
  if (output_given && output.empty())
    return invalid_argument("--output needs a value (a file name ending in .json or .csv)");
  if (inputs.size() < 2) {
    return invalid_argument("merge needs the reports of at least two ranks, rank 0 first: write 'rangereplay merge " +
                            (inputs.empty() ? std::string("rank0.json") : inputs.front()) + " rank1.json ...'");
  }
  std::map<std::string, std::size_t> rank_of;  // file_identity -> the first rank naming it
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].empty()) return invalid_argument("merge: report " + std::to_string(i) + " is an empty name");
    const auto [seen, added] = rank_of.emplace(file_identity(inputs[i]), i);
    if (!added)
      return invalid_argument("merge: " + inputs[i] + " is given twice (ranks " + std::to_string(seen->second) +
                              " and " + std::to_string(i) + "); give each rank's report once");
  }
  MergeRequest req;
  req.report_paths = inputs;
  req.output_path = output;
  if (!output.empty()) {
    const StatusOr<OutputFormat> format = output_format_of(output);
    if (!format.ok() || *format == OutputFormat::kHtml) {
      return invalid_argument("merge writes JSON or CSV: give --output a name ending in .json or .csv, not '" + output +
                              "'");
    }
    req.format = *format;
    if (rank_of.contains(file_identity(output)))
      return invalid_argument("merge: --output " + output + " is one of the reports it reads; name another file");
  }
  return req;
}

// `report`'s input, output or terminal page, and filters. Errors:
// invalid_argument for an option given an empty value, --page with --output
// or --csv-page without one, an unknown page, and output_format_of's and
// parse_csv_page's.
StatusOr<ReportRequest> report_request(const LauncherApp& l) {
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"--output", &l.report_output},
                                    {"--csv-page", &l.report_csv_page},
                                    {"--page", &l.report_page},
                                    {"--kernel-name", &l.report_kernel_name},
                                    {"--range", &l.report_range}}) {
    if (l.report->count(name) > 0 && trim(*value).empty()) return invalid_argument(value_hint(name));
  }
  ReportRequest req;
  req.input_path = l.report_input;
  req.output_path = l.report_output;
  req.kernel_name = l.report_kernel_name;
  req.range = trim(l.report_range);
  if (req.output_path.empty()) {
    if (!l.report_csv_page.empty())
      return invalid_argument(
          "--csv-page picks the layout of a .csv output: give -o <out.csv> with it, or --page "
          "for the terminal");
    if (l.report_page == "summary") {
      req.page = ReportPage::kSummary;
    } else if (l.report_page == "raw") {
      req.page = ReportPage::kRaw;
    } else if (!l.report_page.empty() && l.report_page != "details") {
      return invalid_argument("--page '" + l.report_page + "': give summary, details or raw");
    }
    return req;
  }
  if (!l.report_page.empty())
    return invalid_argument(
        "--page picks what the terminal shows: leave out -o to print the report, or use "
        "--csv-page with a .csv output");
  RR_ASSIGN_OR_RETURN(req.format, output_format_of(l.report_output));
  RR_ASSIGN_OR_RETURN(req.csv_page, parse_csv_page(l.report_csv_page, req.format));
  return req;
}

// `diff`'s reports, format and selection. Errors: invalid_argument for an
// option given an empty value, a --changed-above that is not a percentage of
// 0 or more, an unknown --sort.
StatusOr<DiffRequest> diff_request(const LauncherApp& l) {
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"--metrics", &l.diff_metrics},
                                    {"--changed-above", &l.diff_changed_above},
                                    {"--sort", &l.diff_sort}}) {
    if (l.diff->count(name) > 0 && trim(*value).empty()) return invalid_argument(value_hint(name));
  }
  DiffRequest req;
  req.base_path = l.diff_base;
  req.new_path = l.diff_new;
  req.format = l.diff_csv ? DiffFormat::kCsv : (l.diff_json ? DiffFormat::kJson : DiffFormat::kTable);
  req.metrics = split_metric_csv(l.diff_metrics);
  if (!l.diff_changed_above.empty()) {
    std::string text = trim(l.diff_changed_above);
    if (text.ends_with('%')) text.pop_back();
    double pct = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), pct);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(pct) || pct < 0) {
      return invalid_argument("--changed-above '" + l.diff_changed_above +
                              "': give a percentage of 0 or more, e.g. --changed-above 10");
    }
    req.changed_above_pct = pct;
  }
  if (l.diff_sort == "report") {
    req.sort_by_change = false;
  } else if (!l.diff_sort.empty() && l.diff_sort != "change") {
    return invalid_argument("--sort '" + l.diff_sort + "': give change (the largest change first) or report");
  }
  return req;
}

// The action other than `profile` the parsed words ask for (version, a list,
// or the help when nothing was asked); nullopt for `profile`. Errors:
// invalid_argument for two actions, or an application given without `profile`.
StatusOr<std::optional<CommandLine>> other_action(const LauncherApp& l, const Words& w) {
  const bool completion = l.app.count("--completion") > 0;
  const int actions = int(l.version) + int(l.list_metrics()) + int(l.list_sets()) + int(l.profile->parsed()) +
                      int(l.diff->parsed()) + int(l.merge->parsed()) + int(l.report->parsed()) + int(l.man_page_flag) +
                      int(completion);
  if (actions > 1) {
    return invalid_argument(
        "give one of profile, diff, merge, report, --list-metrics, --list-sets or --version; see 'rangereplay --help'");
  }
  if (!l.profile->parsed() && (w.has_dashes || !w.after_dashes.empty())) {
    return invalid_argument("to run an application, write 'rangereplay profile [options] -- <app> [args]'");
  }
  CommandLine out;
  if (l.version) {
    out.action = Action::kVersion;
    out.text = version_text();
  } else if (l.man_page_flag) {
    out.action = Action::kHelp;
    out.text = man_page(l.app, first_line_of(version_text()));
  } else if (completion) {
    out.action = Action::kHelp;
    if (l.completion_shell == "bash") {
      out.text = bash_completion(l.app);
    } else if (l.completion_shell == "zsh") {
      out.text = zsh_completion(l.app);
    } else {
      return invalid_argument("--completion '" + l.completion_shell + "': give bash or zsh");
    }
  } else if (l.list_metrics()) {
    out.action = Action::kListMetrics;
  } else if (l.list_sets()) {
    out.action = Action::kListSets;
  } else if (l.report->parsed()) {
    RR_ASSIGN_OR_RETURN(out.report, report_request(l));
    out.action = Action::kReport;
  } else if (l.diff->parsed()) {
    if (l.diff_csv && l.diff_json) return invalid_argument("diff prints CSV or JSON: give --csv or --json, not both");
    out.action = Action::kDiff;
    RR_ASSIGN_OR_RETURN(out.diff, diff_request(l));
  } else if (l.merge->parsed()) {
    out.action = Action::kMerge;
    RR_ASSIGN_OR_RETURN(out.merge, merge_request(l.merge_inputs, l.merge_output, l.merge->count("--output") > 0));
  } else if (!l.profile->parsed()) {
    out.action = Action::kHelp;
    out.text = l.app.help();
    out.help_is_error = true;
  } else {
    return std::optional<CommandLine>();
  }
  return std::optional<CommandLine>(std::move(out));
}

// The application: the words after the last option of `profile`, then
// (verbatim) "--" and everything after it when the application came before a
// "--". Errors: invalid_argument for an unknown option where the application
// goes, no application, or an empty application name.
StatusOr<std::vector<std::string>> application_command(const CLI::App& profile, const Words& w) {
  std::vector<std::string> command = profile.remaining();
  if (!command.empty() && command.front().size() > 1 && command.front()[0] == '-') {
    return invalid_argument(unknown_option_line(profile, command.front(), "rangereplay profile --help"));
  }
  if (!command.empty() && w.has_dashes) {
    // A size written in two words ("--snapshot-host-limit 6 GB -- app"):
    // its unit would be taken for the application. The command is the tail
    // of our words (prefix_command), so the application's word is at
    // `index`, right after the option and its number.
    const std::string& word = command.front();
    const std::size_t index = w.ours.size() - command.size();
    const bool after_size =
        index >= 3 && word.size() >= 2 &&  // not "B": a program may be named so
        std::none_of(word.begin(), word.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) &&
        (w.ours[index - 2] == "--snapshot-device-limit" || w.ours[index - 2] == "--snapshot-host-limit") &&
        storage::parse_byte_size(w.ours[index - 1] + word).ok();
    if (after_size) {
      const std::string& option = w.ours[index - 2];
      const std::string& value = w.ours[index - 1];
      return invalid_argument("'" + word + "' after " + option + " " + value +
                              " would be the application; write the size as one word: " + option + " " + value + word);
    }
    command.push_back("--");
  }
  command.insert(command.end(), w.after_dashes.begin(), w.after_dashes.end());
  if (command.empty()) {
    return invalid_argument("no application given; write 'rangereplay profile [options] -- <app> [args]'");
  }
  if (command.front().empty()) return invalid_argument(kEmptyApplicationName);  // `-- ""`
  return command;
}

// CLI11 stores `--metrics ""` as an empty string, which would read as "not
// given" later; a value-taking option given with nothing in it is an error.
// (The NVTX options have their own message with an example.)
Status check_no_empty_values(const CLI::App& profile) {
  for (const CLI::Option* opt : profile.get_options()) {
    if (opt->get_type_size() == 0 || opt->count() == 0) continue;  // a flag, or not given
    const std::string name = opt->get_name();
    if (name == "--nvtx-include" || name == "--nvtx-exclude") continue;
    for (const std::string& value : opt->results()) {
      if (trim(value).empty()) return invalid_argument(value_hint(name));
    }
  }
  return ok_status();
}

// The range source (NVTX expressions, the profiler API or kernel windows),
// parsed into `c`. Errors: invalid_argument for an empty or malformed NVTX
// expression or kernel range, --nvtx-exclude without --nvtx-include, no source
// (naming a range option that went to the application in `command`), or more
// than one source.
Status parse_range_source(const ProfileOptions& o, const std::vector<std::string>& command, ProfileConfig& c) {
  for (const auto& [option, texts, parsed] : {std::tuple{"--nvtx-include", &o.nvtx_include, &c.nvtx_include},
                                              std::tuple{"--nvtx-exclude", &o.nvtx_exclude, &c.nvtx_exclude}}) {
    for (const std::string& e : *texts) {
      if (trim(e).empty()) return invalid_argument(value_hint(option));
      RR_ASSIGN_OR_RETURN(range::NvtxExpression expression, parse_nvtx_option(option, e));
      parsed->push_back(std::move(expression));
    }
  }
  c.profiler_api = o.profiler_api;
  if (!o.kernel_range.empty()) {
    RR_ASSIGN_OR_RETURN(range::KernelWindows windows, parse_kernel_range(o.kernel_range));
    c.kernel_windows = std::move(windows);
  }
  const int sources = int(!c.nvtx_include.empty()) + int(c.profiler_api) + int(c.kernel_windows.has_value());
  // Before the "no range" check: --nvtx-exclude alone is a range selection
  // that lacks its --nvtx-include, and deserves the specific message.
  if (!c.nvtx_exclude.empty() && c.nvtx_include.empty()) {
    return invalid_argument("--nvtx-exclude only filters --nvtx-include ranges; add --nvtx-include EXPR");
  }
  // Every --nvtx-include excluded again word for word selects nothing.
  const auto excluded = [&](const std::string& include) {
    return std::find(o.nvtx_exclude.begin(), o.nvtx_exclude.end(), include) != o.nvtx_exclude.end();
  };
  if (!o.nvtx_include.empty() && std::all_of(o.nvtx_include.begin(), o.nvtx_include.end(), excluded)) {
    return invalid_argument("--nvtx-exclude " + o.nvtx_include.front() + " excludes every range --nvtx-include " +
                            o.nvtx_include.front() + " selects; drop one of the two");
  }
  if (sources == 0) {
    // `profile ./app --nvtx-include step/`: the options after the
    // application's name went to the application.
    for (std::size_t i = 1; i < command.size(); ++i) {
      if (command[i] == "--nvtx-include" || command[i] == "--profiler-api" || command[i] == "--kernel-range" ||
          command[i].starts_with("--nvtx-include=") || command[i].starts_with("--kernel-range="))
        return invalid_argument(std::string(kNoRange) + " ('" + command[i] + "' comes after the application '" +
                                command.front() +
                                "', so it is the application's argument: put rangereplay's "
                                "options before the application, e.g. profile --nvtx-include step/ -- ./app)");
    }
    return invalid_argument(kNoRange);
  }
  if (sources > 1) {
    return invalid_argument(
        "give one range source: --nvtx-include, --profiler-api or --kernel-range (ranges from different sources "
        "would overlap and be numbered separately)");
  }
  return ok_status();
}

// Kernel windows are as many ranges as windows, known before the run: a
// selection of none of them would profile nothing. Errors: invalid_argument
// naming the count and the fix.
Status check_kernel_windows_selected(const ProfileOptions& o, const ProfileConfig& c) {
  if (!c.kernel_windows) return ok_status();
  const std::size_t windows = c.kernel_windows->windows().size();
  for (std::size_t i = 0; i < windows; ++i) {
    if (c.ranges.selects(i)) return ok_status();
  }
  const std::string count =
      std::to_string(windows) +
      (windows == 1 ? " range (number 0)" : " ranges (numbers 0-" + std::to_string(windows - 1) + ")");
  const std::string selection = !o.range_list.empty() ? "--range-list " + o.range_list : "--skip " + o.skip;
  return invalid_argument("--kernel-range " + o.kernel_range + " makes " + count + " and " + selection +
                          " selects none of them; select among those numbers or drop " +
                          (!o.range_list.empty() ? "--range-list" : "--skip"));
}

// Which matched ranges to profile (--range-list, or --skip and
// --range-count), into c.ranges and c.range_count. Errors: invalid_argument
// for a malformed list or count, a list given with --skip / --range-count,
// or a selection of none of --kernel-range's windows.
Status parse_range_numbers(const ProfileOptions& o, ProfileConfig& c) {
  if (!o.range_list.empty() && (!o.skip.empty() || !o.range_count.empty())) {
    return invalid_argument("--range-list cannot be combined with --skip or --range-count; use one or the other");
  }
  if (!o.range_list.empty()) {
    RR_ASSIGN_OR_RETURN(c.ranges, parse_range_list(o.range_list));
    return check_kernel_windows_selected(o, c);
  }
  std::uint32_t skip_count = 0;
  if (!o.skip.empty()) {
    RR_ASSIGN_OR_RETURN(skip_count, parse_count("--skip", o.skip, 0));
  }
  if (!o.range_count.empty()) {
    RR_ASSIGN_OR_RETURN(c.range_count, parse_count("--range-count", o.range_count, 1));
  }
  std::optional<std::uint64_t> count;
  if (c.range_count != 0) count = c.range_count;
  RR_ASSIGN_OR_RETURN(c.ranges, as_flag_error(range::RangeSelector::from_skip_count(skip_count, count)));
  return check_kernel_windows_selected(o, c);
}

// --metrics and --set into req.metrics_csv and req.set_name (kDefaultSet when
// neither is given). Set names are core data: checked here, before the GPU or
// the metric module is needed. Errors: invalid_argument for an unknown set or
// metric names not separated by commas.
Status parse_metric_selection(const ProfileOptions& o, ProfileRequest& req) {
  std::string set = o.set;
  if (o.metrics.empty() && set.empty()) set = kDefaultSet;
  std::vector<std::string> known;
  for (const MetricSet& s : metric_sets()) known.push_back(s.name);
  if (!set.empty()) RR_RETURN_IF_ERROR(check_set_name(set, known));
  RR_RETURN_IF_ERROR(check_metric_separators(o.metrics));
  req.metrics_csv = o.metrics;
  req.set_name = set;
  return ok_status();
}

// The value of enum option `option` named `text` in `table`. Errors:
// invalid_argument "<option> must be <choices>, not '<text>'".
template <class Enum, std::size_t N>
StatusOr<Enum> parse_choice(const std::string& option, const EnumNames<Enum, N>& table, const std::string& text,
                            const std::string& choices) {
  if (const std::optional<Enum> value = value_named(table, text)) return *value;
  return invalid_argument(option + " must be " + choices + ", not '" + text + "'");
}

// --batch-ranges as typed: "off" is 0, else a whole number from 2; "" (left
// out) is kDefaultBatchRanges. Errors: invalid_argument naming the value and
// the choices.
StatusOr<std::uint32_t> parse_batch_ranges(const std::string& text) {
  if (text.empty()) return kDefaultBatchRanges;
  if (text == "off") return 0u;
  std::uint32_t value = 0;
  if (!parse_unsigned_decimal(text, value)) {
    return invalid_argument("--batch-ranges '" + text +
                            "' is neither off nor a whole number from 2 to 4294967295; give e.g. 16, or off");
  }
  if (value < 2) {
    return invalid_argument("--batch-ranges " + text +
                            " is no batch (it is the most ranges replayed together); give 2 or more, or off to "
                            "replay each range at its end");
  }
  return value;
}

// --range-metrics, --verify, --restore, --cache-control, --batch-ranges, --collectives, --rendezvous and the
// snapshot limits into `c`. Errors: invalid_argument for an unknown choice, a batch size below 2, a malformed or
// zero size, a malformed endpoint, or --rendezvous without --collectives replay.
Status parse_replay_options(const ProfileOptions& o, ProfileConfig& c) {
  RR_ASSIGN_OR_RETURN(c.range_metrics, parse_choice("--range-metrics", kRangeMetricsNames, o.range_metrics,
                                                    range_metrics_choices(" or ")));
  c.verify = o.verify;
  RR_ASSIGN_OR_RETURN(c.restore, parse_choice("--restore", kRestoreModeNames, o.restore,
                                              names_joined(kRestoreModeNames, ", ", " or ")));
  RR_ASSIGN_OR_RETURN(c.cache_control,
                      parse_choice("--cache-control", kCacheControlNames, o.cache_control, "all or none"));
  RR_ASSIGN_OR_RETURN(c.batch_ranges, parse_batch_ranges(o.batch_ranges));
  RR_ASSIGN_OR_RETURN(c.collectives,
                      parse_choice("--collectives", kCollectivesModeNames, o.collectives, "decline or replay"));
  if (!o.rendezvous.empty()) {
    if (c.collectives != CollectivesMode::kReplay)
      return invalid_argument("--rendezvous is for --collectives replay; add --collectives replay or drop it");
    if (StatusOr<Endpoint> e = parse_endpoint(o.rendezvous, "--rendezvous"); !e.ok()) return e.status();
    c.rendezvous = o.rendezvous;
  }
  if (!o.device_limit.empty()) {
    RR_ASSIGN_OR_RETURN(c.snapshot_device_limit, parse_limit("--snapshot-device-limit", o.device_limit));
  }
  if (!o.host_limit.empty()) {
    RR_ASSIGN_OR_RETURN(c.snapshot_host_limit, parse_limit("--snapshot-host-limit", o.host_limit));
  }
  return ok_status();
}

// --replay-mode, --fallback and --max-app-runs into `req`. Errors:
// invalid_argument for an unknown choice, a cap below 1, a cap without an
// application range replay mode, or check_app_run_modes' combination.
Status parse_app_run_options(const ProfileOptions& o, ProfileRequest& req) {
  RR_ASSIGN_OR_RETURN(req.replay_mode, parse_choice("--replay-mode", kReplayModeNames, o.replay_mode,
                                                    names_joined(kReplayModeNames, ", ", " or ")));
  RR_ASSIGN_OR_RETURN(
      req.fallback, parse_choice("--fallback", kFallbackNames, o.fallback, names_joined(kFallbackNames, ", ", " or ")));
  RR_RETURN_IF_ERROR(check_app_run_modes(req.replay_mode, req.fallback));
  if (!o.max_app_runs.empty()) {
    RR_ASSIGN_OR_RETURN(req.max_app_runs, parse_count("--max-app-runs", o.max_app_runs, 1));
    if (req.replay_mode != ReplayMode::kAppRange && req.fallback != Fallback::kAppRange) {
      return invalid_argument(
          "--max-app-runs caps application range replay; give --replay-mode app-range or --fallback app-range, or "
          "drop --max-app-runs");
    }
  }
  return ok_status();
}

// --output into req.output_pattern and req.output_format, expanded with a
// stand-in pid (and stand-in values for variables unset here, which each
// process of a job sets itself) now to report a bad name before anything runs.
// Errors: those of expand_output_path and output_format_of.
Status parse_output(const ProfileOptions& o, const EnvLookup& env, ProfileRequest& req) {
  if (!o.output.empty()) {
    RR_ASSIGN_OR_RETURN(std::string sample, expand_output_path(o.output, 12345, "host", with_stand_ins(env)));
    StatusOr<OutputFormat> format = output_format_of(sample);
    if (!format.ok()) {
      // Named as typed, not with the stand-in values.
      StatusOr<OutputFormat> typed = output_format_of(o.output);
      return typed.ok() ? format.status() : typed.status();
    }
    req.output_format = *format;
  }
  if (!o.csv_page.empty() && o.output.empty()) return invalid_argument("--csv-page needs an output ending in .csv");
  RR_ASSIGN_OR_RETURN(req.csv_page, parse_csv_page(o.csv_page, req.output_format));
  req.output_pattern = o.output;
  return ok_status();
}

// The options of `profile` as typed and the application's command, checked
// in this order: range source, range numbers, metric selection, replay
// options, application range replay options, output.
StatusOr<ProfileRequest> profile_request(const ProfileOptions& o, std::vector<std::string> command,
                                         const EnvLookup& env) {
  ProfileRequest req;
  ProfileConfig& c = req.config;
  RR_RETURN_IF_ERROR(parse_range_source(o, command, c));
  RR_RETURN_IF_ERROR(parse_range_numbers(o, c));
  RR_RETURN_IF_ERROR(parse_metric_selection(o, req));
  RR_RETURN_IF_ERROR(parse_replay_options(o, c));
  RR_RETURN_IF_ERROR(parse_app_run_options(o, req));
  RR_RETURN_IF_ERROR(parse_output(o, env, req));
  c.quiet = o.quiet;
  c.command = std::move(command);
  return req;
}

}  // namespace

std::string version_text() { return build_info_text(); }

Status check_set_name(const std::string& name, std::span<const std::string> known_sets) {
  if (known_sets.empty()) return ok_status();
  for (const std::string& k : known_sets) {
    if (k == name) return ok_status();
  }
  // "FULL": a known name typed in capitals, not a typo to list near others.
  if (const std::optional<std::string> lower = lower_case_match(name, known_sets))
    return invalid_argument("unknown set '" + name + "'; set names are lower case: did you mean '" + *lower + "'?");
  std::vector<std::string> close =
      closest_names_ignoring_case(name, known_sets, 3, plausible_typo_distance(name.size()));
  std::string listed;
  for (const std::string& c : close) listed += (listed.empty() ? "" : ", ") + c;
  return invalid_argument("unknown set '" + name + "'" + (close.empty() ? "" : " (closest: " + listed + ")") +
                          "; 'rangereplay --list-sets' lists the sets");
}

StatusOr<range::KernelWindows> parse_kernel_range(const std::string& text) {
  return as_flag_error(range::KernelWindows::parse(text, "kernel-range"));
}

StatusOr<range::RangeSelector> parse_range_list(const std::string& text) {
  return as_flag_error(range::RangeSelector::parse_list(text, "range-list"));
}

std::vector<std::string> nvtx_expression_warnings(const ProfileConfig& config) {
  std::vector<std::string> lines;
  for (const auto& [option, expressions] :
       {std::pair{"--nvtx-include", &config.nvtx_include}, std::pair{"--nvtx-exclude", &config.nvtx_exclude}}) {
    for (const range::NvtxExpression& e : *expressions) {
      if (!e.bottom_anchored || !e.text.starts_with("regex:")) continue;
      const std::size_t domain_end = e.text.find('@');
      const std::size_t at = e.text.find('[', domain_end == std::string::npos ? 0 : domain_end + 1);
      // A class opener is closed by a later ']'; an anchor before a class
      // ("[[0-9]+") or before a name ("[step_.*/") is what it looks like.
      if (at == std::string::npos || at + 1 >= e.text.size() || e.text[at + 1] == '[' ||
          e.text.find(']', at + 1) == std::string::npos)
        continue;
      std::string as_class = e.text;
      if (as_class.ends_with("]")) as_class.insert(as_class.size() - 1, "/");
      as_class.insert(at, "/");
      const bool parses = parse_nvtx_option(option, as_class).ok();
      lines.push_back(std::string(option) + " '" + e.text +
                      "': the '[' anchors the range at the bottom of the NVTX stack, as in a plain expression" +
                      (parses ? "; for a character class write '" + as_class + "'"
                              : "; a character class at the start is written '/[' (and one at the end '/]')"));
    }
  }
  return lines;
}

StatusOr<range::NvtxExpression> parse_nvtx_option(const std::string& option, const std::string& text) {
  std::string name = option;
  while (!name.empty() && name.front() == '-') name.erase(0, 1);
  return as_flag_error(range::parse_nvtx_expression(text, name));
}

// Options that --set triage cannot honour: it samples each range once in
// the application's own run (PM sampling: no snapshot, restore or replay,
// its own metric list, whole-range totals). Errors: invalid_argument naming
// the option and the fix.
Status check_triage_options(const CLI::App& profile, const ProfileRequest& req) {
  if (req.set_name != kTriageSetName) return ok_status();
  const auto refuse = [](const std::string& option, const std::string& fix) {
    return invalid_argument(
        "--set triage samples each range once in the application's own run (PM sampling, no "
        "replay); " +
        option + " does not apply to it: " + fix);
  };
  if (!req.metrics_csv.empty()) {
    return refuse("--metrics", "drop --metrics (triage counts its own list), or give --metrics without --set triage");
  }
  for (const char* name :
       {"--verify", "--restore", "--batch-ranges", "--snapshot-device-limit", "--snapshot-host-limit"}) {
    if (profile.count(name) > 0) return refuse(name, std::string("drop ") + name);
  }
  if (profile.count("--range-metrics") > 0 && req.config.range_metrics == RangeMetrics::kPerKernel) {
    return refuse("--range-metrics kernel", "drop it (triage gives whole-range totals), or profile with another --set");
  }
  if (req.replay_mode == ReplayMode::kAppRange) {
    return refuse("--replay-mode app-range", "drop it (triage makes one application run already)");
  }
  if (req.fallback == Fallback::kAppRange) {
    return refuse("--fallback app-range", "drop it (triage declines nothing that a replay would)");
  }
  if (req.config.collectives == CollectivesMode::kReplay) {
    return refuse("--collectives replay", "drop --collectives replay");
  }
  return ok_status();
}

// Options of range replay that --replay-mode app-range cannot honour (it
// neither snapshots, restores nor replays, and its values are whole-range),
// and a --max-app-runs that leaves --fallback app-range no run. Errors:
// invalid_argument naming the option and the fix.
Status check_app_range_mode_options(const CLI::App& profile, const ProfileRequest& req) {
  if (req.fallback == Fallback::kAppRange && req.max_app_runs == 1) {
    return invalid_argument(
        "--max-app-runs 1 leaves --fallback app-range no run: it needs the first run and one more per pass; give "
        "at least 2");
  }
  if (req.replay_mode != ReplayMode::kAppRange) return ok_status();
  for (const char* name :
       {"--verify", "--restore", "--batch-ranges", "--snapshot-device-limit", "--snapshot-host-limit"}) {
    if (profile.count(name) > 0) {
      return invalid_argument(std::string(name) +
                              " applies to range replay; --replay-mode app-range neither snapshots, restores nor "
                              "replays; drop " +
                              name);
    }
  }
  if (req.config.collectives == CollectivesMode::kReplay) {
    return invalid_argument(
        "--collectives replay makes the ranks replay a range together; --replay-mode app-range does not replay (it "
        "runs the application again); drop --collectives replay");
  }
  if (profile.count("--range-metrics") > 0 && req.config.range_metrics == RangeMetrics::kPerKernel) {
    return invalid_argument(
        "--replay-mode app-range gives whole-range values (one counter range per range and pass); drop "
        "--range-metrics kernel, or profile with --replay-mode range for per-kernel values");
  }
  return ok_status();
}

StatusOr<CommandLine> parse_command_line(const std::vector<std::string>& args, const EnvLookup& env) {
  const Words words = split_at_dashes(args);
  LauncherApp launcher;
  RR_ASSIGN_OR_RETURN(std::optional<CommandLine> help, parse_words(launcher, words.ours, args));
  if (help) return *std::move(help);
  RR_ASSIGN_OR_RETURN(std::optional<CommandLine> other, other_action(launcher, words));
  if (other) return *std::move(other);
  RR_ASSIGN_OR_RETURN(std::vector<std::string> command, application_command(*launcher.profile, words));
  RR_RETURN_IF_ERROR(check_no_empty_values(*launcher.profile));
  CommandLine out;
  out.action = Action::kProfile;
  RR_ASSIGN_OR_RETURN(out.profile, profile_request(launcher.options, std::move(command), env));
  RR_RETURN_IF_ERROR(check_triage_options(*launcher.profile, out.profile));
  RR_RETURN_IF_ERROR(check_app_range_mode_options(*launcher.profile, out.profile));
  return out;
}

}  // namespace rangereplay::cli
