// The only launcher file that calls the report library (see report_output.h).
#include "cli/report_output.h"

#include <algorithm>
#include <optional>
#include <set>

#include "cli/library_lookup.h"
#include "cli/output_path.h"
#include "cli/process_reports.h"

#include "core/base/ascii.h"
#include "report/report_csv.h"
#include "report/report_diff.h"
#include "report/report_file.h"
#include "report/report_html.h"
#include "report/report_journal.h"
#include "report/report_json.h"
#include "report/report_merge.h"
#include "report/report_ncu_csv.h"
#include "report/report_table.h"
#include "report/report_view.h"
#include "report/time_budget.h"

namespace rangereplay::cli {

StatusOr<report::Report> load_report(const std::string& path) {
  if (!report::is_journal_path(path)) return report::read_report_json(path);
  RR_ASSIGN_OR_RETURN(report::JournalContents contents, report::read_report_journal(path));
  return std::move(contents.report);
}

bool is_journal_file(const std::string& path) { return report::is_journal_path(path); }

std::string report_table(const report::Report& report) { return report::render_report_table(report); }

namespace {

// `x.csv` -> `x<suffix>`; a path not ending in `.csv` gets `suffix` appended.
std::string beside_csv(const std::string& csv_path, std::string_view suffix) {
  constexpr std::string_view kCsv = ".csv";
  const bool has_csv = csv_path.size() >= kCsv.size() && csv_path.ends_with(kCsv);
  return (has_csv ? csv_path.substr(0, csv_path.size() - kCsv.size()) : csv_path) + std::string(suffix);
}

}  // namespace

std::string ranges_csv_path(const std::string& csv_path) { return beside_csv(csv_path, ".ranges.csv"); }
std::string budget_csv_path(const std::string& csv_path) { return beside_csv(csv_path, ".budget.csv"); }

StatusOr<std::string> diff_report_files(const DiffRequest& request) {
  RR_ASSIGN_OR_RETURN(report::Report base, load_report(request.base_path));
  RR_ASSIGN_OR_RETURN(report::Report next, load_report(request.new_path));
  RR_ASSIGN_OR_RETURN(
      const report::ReportDiff diff,
      report::diff_reports(base, next, {request.metrics, request.changed_above_pct, request.sort_by_change}));
  if (diff.compared == 0) {
    std::string cause = diff.unmatched.empty() ? (diff.declined.empty() ? std::string("neither has a metric value")
                                                                        : diff.declined.front())
                                               : diff.unmatched.front();
    return failed_precondition(escape_controls(
        "diff: 0 values compared between " + request.base_path + " and " + request.new_path + " (" + cause +
        "): compare reports of the same program, ranges and metrics (ranges pair by name and instance, kernels "
        "by name, grid, block and order)"));
  }
  switch (request.format) {
    case DiffFormat::kCsv: return report::render_diff_csv(diff);
    case DiffFormat::kJson: return report::render_diff_json(diff);
    case DiffFormat::kTable: break;
  }
  return escape_controls("rangereplay diff: baseline " + request.base_path + ", new " + request.new_path,
                         LineBreaks::kEscape) +
         "\n" + report::render_diff_table(diff);
}

StatusOr<std::string> report_command(const ReportRequest& request) {
  if (!request.output_path.empty()) RR_RETURN_IF_ERROR(check_output_folder(request.output_path));
  RR_ASSIGN_OR_RETURN(const report::Report full, load_report(request.input_path));
  RR_ASSIGN_OR_RETURN(const report::Report picked, report::filter_report(full, {request.kernel_name, request.range}));
  if (!request.output_path.empty()) {
    RR_RETURN_IF_ERROR(save_report(picked, request.output_path, request.format, request.csv_page));
    return std::string();
  }
  const report::ViewPage page = request.page == ReportPage::kSummary ? report::ViewPage::kSummary
                                : request.page == ReportPage::kRaw   ? report::ViewPage::kRaw
                                                                     : report::ViewPage::kDetails;
  return report::render_report_view(picked, page);
}

StatusOr<std::string> merge_report_files(const MergeRequest& request) {
  if (!request.output_path.empty()) RR_RETURN_IF_ERROR(check_output_folder(request.output_path));
  std::vector<report::RankReport> ranks;
  for (const std::string& path : request.report_paths) {
    RR_ASSIGN_OR_RETURN(report::Report rep, load_report(path));
    ranks.push_back({path, std::move(rep)});
  }
  // Reports that record distinct ranks (RANK, OMPI_COMM_WORLD_RANK, ...:
  // process_reports.h) are merged in rank order, whatever the files' order.
  std::set<long> recorded;
  for (const report::RankReport& r : ranks)
    if (std::optional<long> rank = rank_of(r.report)) recorded.insert(*rank);
  if (recorded.size() == ranks.size()) {
    std::stable_sort(ranks.begin(), ranks.end(), [](const report::RankReport& a, const report::RankReport& b) {
      return *rank_of(a.report) < *rank_of(b.report);
    });
  }
  const report::ReportMerge merge = report::merge_reports(ranks);
  // Names from the reports go to a terminal: control bytes escaped.
  if (request.output_path.empty())
    return "rangereplay merge\n" + escape_controls(report::render_merge_table(merge), LineBreaks::kKeep);
  RR_RETURN_IF_ERROR(report::write_text_file(request.output_path, request.format == OutputFormat::kCsv
                                                                      ? report::render_merge_csv(merge)
                                                                      : report::render_merge_json(merge)));
  return escape_controls("rangereplay merge: " + std::to_string(ranks.size()) + " ranks merged into " +
                             request.output_path + "\n" + report::render_merge_flags(merge),
                         LineBreaks::kKeep);
}

void complete_time_budget(report::Report& report, double launcher_start_clock_ms, double launcher_checks_ms,
                          double spawn_clock_ms, double end_clock_ms) {
  report::complete_time_budget(report, launcher_start_clock_ms, launcher_checks_ms, spawn_clock_ms, end_clock_ms);
}

std::vector<std::string> chart_js_candidates(const std::string& exe_dir) {
  return {exe_dir + "/../share/rangereplay/chart.min.js", exe_dir + "/chart.min.js",
          "/usr/share/javascript/chart.js/chart.min.js"};
}

Status save_report(const report::Report& report, const std::string& path, OutputFormat format, CsvPage page) {
  if (format == OutputFormat::kCsv && page != CsvPage::kOwn) {
    return report::write_text_file(
        path, page == CsvPage::kDetails ? report::render_ncu_details_csv(report) : report::render_ncu_raw_csv(report));
  }
  if (format == OutputFormat::kJson) return report::write_report_json(report, path);
  if (format == OutputFormat::kHtml) {
    // Chart.js is inlined into the page; without it the page has its tables
    // and says why the charts are missing.
    std::string chart_js;
    if (StatusOr<std::string> dir = executable_dir(); dir.ok()) {
      if (std::optional<std::string> found = first_existing_file(chart_js_candidates(*dir))) {
        StatusOr<std::string> text = report::read_text_file(*found);
        if (text.ok()) chart_js = std::move(text).value();
      }
    }
    return report::write_report_html(report, chart_js, path);
  }
  RR_RETURN_IF_ERROR(report::write_report_csv(report, path));
  RR_RETURN_IF_ERROR(report::write_stage_timings_csv(report, ranges_csv_path(path)));
  return report::write_time_budget_csv(report, budget_csv_path(path));
}

}  // namespace rangereplay::cli
