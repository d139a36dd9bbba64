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
//   ReportDiff d = diff_reports(base, next);
//   std::cout << render_diff_table(d);        // or render_diff_csv / render_diff_json
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

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
};

/// Pairs `base` and `next` as the header says.
ReportDiff diff_reports(const Report& base, const Report& next);

/// Terminal table: one line per row with both values and the change, then the
/// unmatched and declined lines and the comparison note. A change beyond
/// +-1000% is written as the factor new / base ("x1234.5"; "x1.23e+06" from a
/// million), which CSV and JSON keep exact in percent. Names (ranges,
/// kernels, metrics, units) are written through escape_controls
/// (core/ascii.h), here and in the CSV: no control byte reaches a terminal.
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
