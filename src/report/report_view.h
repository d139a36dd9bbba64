// A saved report in the terminal, as `ncu -i` shows one (`rangereplay report
// x.json`): three pages, and filters that pick ranges and kernels.
//
//   summary  one line per kernel: index, name (shortened), launch, duration,
//            compute (SM) and memory throughput; then the errors, the summary
//            line and the time budget.
//   details  per kernel, its metrics as Nsight Compute's sections show them
//            (kernel_sections.h: GPU Speed Of Light Throughput, Memory
//            Workload Analysis, ..., each row a label, unit and value), then
//            the findings of guidance.h and how many metrics only --page raw
//            shows; a range's whole-range metrics grouped by the sections of
//            the metric set they came from (core/config/metric_sets.h), as raw names.
//   raw      every metric of every kernel, the kernel names in full
//            (report_table.h's table).
//
//   RR_ASSIGN_OR_RETURN(Report picked, filter_report(report, {"regex:gemm", "0"}));
//   std::cout << render_report_view(picked, ViewPage::kDetails);
//
// Text from the report goes through escape_controls (core/base/ascii.h), as in
// report_table.h. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "report/report_model.h"

namespace rangereplay::report {

enum class ViewPage { kSummary, kDetails, kRaw };

/// "summary", "details" or "raw"; errors: kInvalidArgument naming the three.
StatusOr<ViewPage> parse_view_page(std::string_view name);

/// Which ranges and kernels a view (or a rewritten report) keeps.
struct ViewFilter {
  /// "" keeps every kernel. "regex:<pattern>": kernels whose demangled name
  /// the RE2 pattern matches anywhere (as Nsight Compute's --kernel-name
  /// regex:); any other text: kernels whose name contains it.
  std::string kernel_name;
  /// "" keeps every range. A list of range indices ("1", "0,2-3", "3-"; the
  /// index the report gives each matched range), or else a range name,
  /// compared whole.
  std::string range;
};

/// `report` with only what `filter` keeps. With a kernel filter, ranges
/// without a matching kernel (declined ones included) are left out, and so
/// are whole-range values and PM samples (they are not a kernel's). Errors
/// (kInvalidArgument, one line naming the filter and the fix): a pattern RE2
/// rejects, a malformed index list; (kNotFound) a filter that keeps nothing,
/// naming what the report has.
StatusOr<Report> filter_report(const Report& report, const ViewFilter& filter);

/// A titled group of metric values: one section of a set, or "Other".
struct MetricGroup {
  std::string title;
  std::vector<MetricValue> metrics;
};

/// `metrics` grouped by the sections of the metric set that covers most of
/// `collected` (Report::metrics; ties go to the cheaper set, the order of
/// metric_sets()), in that set's section order; a metric name matches a
/// section role in any of the role's spellings (role_spellings). A metric in
/// several sections is shown in the first; metrics in none go to a last
/// group "Other" in their given order. Empty groups are left out.
std::vector<MetricGroup> group_by_sections(const std::vector<MetricValue>& metrics,
                                           const std::vector<std::string>& collected);

/// The longest kernel name the summary and details pages print; longer names
/// are shortened in the middle (truncate_middle) and given in full by the raw
/// page.
inline constexpr std::size_t kViewKernelNameWidth = 100;

/// The page of `report` (filtered already, see filter_report).
std::string render_report_view(const Report& report, ViewPage page);

}  // namespace rangereplay::report
