// The launcher's use of the report library, in one place: read the report the
// injection library wrote, render the terminal table, save JSON or CSV.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/output_path.h"
#include "core/base/status.h"
#include "report/report_model.h"

namespace rangereplay::cli {

/// Reads the JSON report the injection library wrote at `path`, or, for a
/// path ending in ".journal", the report rebuilt from the journal of a
/// process that ended before its exit handler (report/report_journal.h: its
/// finished ranges, and a line in its errors saying so). Errors: the
/// reader's (not_found when missing, invalid_argument when malformed).
StatusOr<report::Report> load_report(const std::string& path);
/// Whether load_report reads `path` as a journal (it ends in ".journal"). Pure.
bool is_journal_file(const std::string& path);

/// The terminal table of `report` (what the launcher prints on stdout).
std::string report_table(const report::Report& report);

/// Where Chart.js is looked for when an HTML report is written, in order: the
/// install's share/rangereplay/chart.min.js, beside the launcher (the
/// build tree), and Debian's libjs-chart.js.
std::vector<std::string> chart_js_candidates(const std::string& exe_dir);

/// Writes `report` to `path` as JSON, CSV or HTML (report/report_html.h,
/// with Chart.js from chart_js_candidates inlined; without it the page says
/// why it has no charts). For CSV, a second file beside it,
/// ranges_csv_path(path) (`run.csv` -> `run.ranges.csv`), holds one row per
/// range: status, decline reason and detail, passes, footprint, tiers, restore
/// mode and restored bytes, divergences and stage timings
/// (report::render_stage_timings_csv), and a third, budget_csv_path(path)
/// (`run.budget.csv`), the time budget (report::render_time_budget_csv).
/// Errors: a file cannot be written.
/// With `page` other than kOwn, a CSV is ncu's layout, one file
/// (report/report_ncu_csv.h).
Status save_report(const report::Report& report, const std::string& path, OutputFormat format,
                   CsvPage page = CsvPage::kOwn);

/// `rangereplay diff`: the comparison of the reports at request.base_path and
/// request.new_path (report/report_diff.h; a ".journal" path is read as
/// load_report reads it), the rows request's --metrics, --changed-above and
/// --sort keep, as a table, CSV or JSON. Errors: a file that cannot be read
/// as a rangereplay report (the reader's one-line message naming it), a
/// --metrics name neither report has (invalid_argument); failed_precondition
/// when no value pairs at all ("0 values compared": reports of different
/// programs, ranges or metrics), one line naming the first thing that did not
/// pair and the fix.
StatusOr<std::string> diff_report_files(const DiffRequest& request);

/// `rangereplay report`: the report at request.input_path (read as
/// load_report reads it) with request's filters (report/report_view.h)
/// applied, as the terminal view of request.page when request.output_path
/// is empty (returned), else written to that file as save_report writes it
/// (returns ""). Errors: the reader's, a filter's (a bad pattern or list, one
/// that keeps nothing), not_found or invalid_argument for an output folder
/// that is missing or a file (check_output_folder, before the report is
/// read), the write's.
StatusOr<std::string> report_command(const ReportRequest& request);

/// `rangereplay merge`: the reports at request.report_paths (rank i the
/// i-th; journals read as load_report reads them) merged (report/report_merge.h). Without an output path, returns the
/// terminal table; with one, writes the merge there as JSON or CSV (an atomic
/// replace) and returns what the terminal shows then: "rangereplay merge: N
/// ranks merged into PATH" and the mismatched, unmatched, declined and error
/// lines. Errors: a file that cannot be read as a rangereplay report (the
/// reader's one-line message naming it), not_found or invalid_argument for
/// an output folder that is missing or a file (check_output_folder, before
/// the reports are read), the output's write error.
StatusOr<std::string> merge_report_files(const MergeRequest& request);

/// `x.csv` -> `x.ranges.csv`; a path not ending in `.csv` gets `.ranges.csv` appended.
std::string ranges_csv_path(const std::string& csv_path);
/// `x.csv` -> `x.budget.csv`, likewise.
std::string budget_csv_path(const std::string& csv_path);

/// Completes the report's time budget (report::complete_time_budget) with
/// the launcher's view, all milliseconds of the monotonic clock the
/// application shares: the launcher started at `launcher_start_clock_ms`,
/// spent `launcher_checks_ms` before the application started at
/// `spawn_clock_ms`, and saw it end at `end_clock_ms`.
void complete_time_budget(report::Report& report, double launcher_start_clock_ms, double launcher_checks_ms,
                          double spawn_clock_ms, double end_clock_ms);

}  // namespace rangereplay::cli
