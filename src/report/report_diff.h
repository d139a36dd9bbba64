// Two reports compared metric by metric, like Nsight Compute's baselines:
// ranges are paired by name and instance (the k-th range of a name in one
// report with the k-th of that name in the other), kernels within a pair by
// name, grid and block and their order among kernels alike, and metric values
// by name. Everything one side has and the other lacks is listed, never
// dropped: ranges, kernels, metric names, and a metric both reports have but
// one kernel (or range) of one side lacks, for that kernel only.
//
// A range with per-kernel values paired with one with whole-range values
// (--range-metrics whole) compares range totals: the per-kernel side's total
// of a ".sum" metric is the sum of its kernels' values (when every kernel of
// the range has it); the other metrics are listed as not compared, and
// ReportDiff::comparison_note says so.
//
// A range profiled by --set triage is compared by its totals (its
// whole-range values); its PM samples, a time series of that one run, are
// not compared.
//
//   ReportDiff d = diff_reports(base, next);
//   std::cout << render_diff_table(d);        // or render_diff_csv / render_diff_json
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// One metric of one paired kernel (or of a paired range's whole-range
/// values: kernel empty).
struct DiffRow {
  std::string range;   // "step #0": the range's name and instance
  std::string kernel;  // "scale(float*, int) (1024,1,1)x(256,1,1) #0", or "" for whole-range values
  std::string metric;
  std::string unit;
  double base = 0;
  double next = 0;
  /// (next - base) / |base| x 100; nullopt when base is 0 and next is not
  /// (no finite change), 0 when both are 0.
  std::optional<double> change_pct;
  /// Which value is the sum of the range's kernels' values, the other side
  /// having whole-range values only.
  enum class Summed { kNeither, kBase, kNext };
  Summed summed = Summed::kNeither;
};

struct ReportDiff {
  std::vector<DiffRow> rows;
  /// What only one side has, one line each: "range 'warmup #1' only in the baseline",
  /// "kernel 'k (1,1,1)x(32,1,1) #0' of range 'step #0' only in the new report",
  /// "metric 'l1tex__t_bytes.sum' only in the new report"; a metric whose
  /// units differ ("... is in byte in the baseline and in Kbyte in the new
  /// report: not compared"); GPUs that differ (first).
  std::vector<std::string> unmatched;
  /// Declined ranges, paired or not: "range 'step #2' declined in the new report (free_in_range)".
  std::vector<std::string> declined;
  /// One line when per-kernel values were compared with whole-range values
  /// as range totals (see the header); empty otherwise.
  std::string comparison_note;
  /// How many values were paired before a DiffSelection kept `rows` (equal
  /// to rows.size() without one).
  std::size_t compared = 0;
  /// What a DiffSelection kept, for the table's last line: "changed by more
  /// than 10%, of 3 metrics"; empty without a filter.
  std::string selection_note;
};

/// Which rows of a comparison to keep, and their order (`rangereplay diff`'s
/// --metrics, --changed-above and --sort).
struct DiffSelection {
  /// Metric names to keep, as the reports name them; empty keeps all.
  std::vector<std::string> metrics;
  /// Keep only rows whose change exceeds this many percent either way; a row
  /// without a finite change (the baseline 0, the new value not) is kept.
  std::optional<double> changed_above_pct;
  /// Order the rows by the size of their change: the kernel (or range) with
  /// the largest change first, within it the largest change first; ties keep
  /// the reports' order. false keeps the reports' order.
  bool sort_by_change = true;
};

/// Pairs `base` and `next` as the header says.
ReportDiff diff_reports(const Report& base, const Report& next);

/// diff_reports, then only the rows `selection` keeps, in its order
/// (ReportDiff::compared counts the rows before). Errors: kInvalidArgument
/// for a --metrics name neither report has (naming the closest names) or a
/// negative or non-finite changed_above_pct.
StatusOr<ReportDiff> diff_reports(const Report& base, const Report& next, const DiffSelection& selection);

/// Terminal table: one line per row with both values and the change, then the
/// unmatched and declined lines and the comparison note. A change beyond
/// +-1000% is written as the factor new / base ("x1234.5"; "x1.23e+06" from a
/// million), which CSV and JSON keep exact in percent. A kernel's title
/// longer than 160 bytes is shortened in the middle (truncate_middle); CSV and
/// JSON keep it whole. The last line counts
/// the values compared, and those shown when a selection left some out. Names (ranges,
/// kernels, metrics, units) are written through escape_controls
/// (core/base/ascii.h), here and in the CSV: no control byte reaches a terminal.
std::string render_diff_table(const ReportDiff& diff);

/// CSV: range,kernel,metric,unit,base,new,change_pct (change_pct empty when
/// not finite), then no other lines; the unmatched are not rows (see
/// render_diff_json).
std::string render_diff_csv(const ReportDiff& diff);

/// JSON: {"rows": [...], "unmatched": [...], "declined": [...], "note": "..."}
/// (indent 2; "note" only with a comparison note). A row summed from its
/// kernels has "summed_from_kernels": "base" or "new". Non-finite values
/// are written as the report writes them (json_number, report_json.h).
/// ASCII only: other characters, DEL and C1 controls included, are \u escaped.
std::string render_diff_json(const ReportDiff& diff);

}  // namespace rangereplay::report
