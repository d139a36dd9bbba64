// The reports of one multi-process job (torchrun, mpirun, srun: one report
// per rank) merged into one view: per metric, each rank's value and their
// min / mean / max, and which rank had the max.
//
// Ranks are the reports in the order given (rank i is the i-th report; the
// launcher's `merge` puts reports that record distinct ranks in rank order
// first). Ranges are paired across ranks by name
// and instance (the k-th range named X in each report, as `diff` pairs them:
// report_pairing.h). Within a paired range the *reference rank* is the
// lowest rank that replayed it; every other rank that replayed it must run
// the same kernel sequence (name, grid and block at each position) for its
// kernels to be paired by position. A rank whose sequence differs is flagged
// with the first difference and its kernels' values are left out (its
// whole-range values are still merged). A declined range contributes no
// values; the merge says which ranks declined it and why. Metrics are
// paired by name; a metric some of the ranks that could have it lack is not
// merged (listed), and one whose ranks report it in different units is kept
// per rank but not combined (flagged). Nothing one rank has and another
// lacks is dropped silently: ranges, metrics, GPUs, the values' granularity
// (--range-metrics) and the reports' own errors are listed. A range
// profiled by --set triage is merged by its totals (whole-range values); its
// PM samples, one time series per rank, stay in the ranks' own reports.
//
//   std::vector<RankReport> ranks = {{"rank0.json", r0}, {"rank1.json", r1}};
//   ReportMerge m = merge_reports(ranks);
//   std::cout << render_merge_table(m);   // or render_merge_json / render_merge_csv
//
// The JSON layout (render_merge_json, "merge_version" 1):
//
//   {
//     "merge_version": 1,
//     "ranks": [ {"rank": 0, "file": "rank0.json", "process_id": 4242,
//                 "device_name": "NVIDIA H200", "chip_name": "GH100",
//                 "recorded_rank": "RANK=4" or null}, ... ],
//     "ranges": [ {
//       "range": "step #0", "name": "step", "instance": 0,
//       "reference_rank": 0,                      // null when no rank replayed it
//       "ranks": [                                // one per rank, in rank order
//         {"rank": 0, "status": "replayed", "index": 0, "kernels_merged": true},
//         {"rank": 1, "status": "declined", "index": 0,
//          "decline_reason": "free_in_range", "decline_detail": "..."},
//         {"rank": 2, "status": "absent"},        // the report has no such range
//         {"rank": 3, "status": "replayed", "index": 0, "kernels_merged": false,
//          "kernel_mismatch": "kernel 1 is 'b (2,1,1)x(32,1,1)' in rank 0 and 'c (2,1,1)x(32,1,1)' in rank 3"} ],
//       "range_metrics": [ METRIC, ... ],         // whole-range values (--range-metrics whole)
//       "kernels": [ {"index": 0, "name": "scale(float*, int)", "grid": [1024, 1, 1],
//                     "block": [256, 1, 1], "metrics": [ METRIC, ... ]}, ... ]   // the reference rank's kernels
//     }, ... ],
//     "mismatched": [ "..." ],   // ranks whose kernel sequence differs (ReportMerge::mismatched)
//     "unmatched": [ "..." ],    // what not every rank has (ReportMerge::unmatched)
//     "declined": [ "..." ],     // ReportMerge::declined
//     "errors": [ "..." ]        // ReportMerge::errors
//   }
//
//   METRIC = {"metric": "dram__bytes_read.sum", "unit": "byte",
//             "values": [6291488, null, 6291490, null],   // one per rank; null: no value from that rank
//             "min": 6291488, "mean": 6291489, "max": 6291490, "max_rank": 2, "count": 2}
//
// With units that differ across ranks "unit" is null, "units" lists each
// rank's unit (null without a value) and min, mean, max and max_rank are
// null. Non-finite values are the strings "nan", "inf", "-inf", as in the
// report; min / mean / max are over the values that are not NaN ("count" of
// them) and null when there are none.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/report_model.h"

namespace rangereplay::report {

/// One rank's input: its report and the file it was read from (for messages
/// and the merged output; not opened here).
struct RankReport {
  std::string file;
  Report report;
};

/// One rank of the job, as the merge names it.
struct MergedRank {
  std::uint32_t rank = 0;        // position among the inputs, from 0
  std::string file;              // RankReport::file
  std::uint32_t process_id = 0;  // Report::process_id; 0 when unknown
  std::string device_name;
  std::string chip_name;
  // The rank the report recorded, as "RANK=4" (the first of core's
  // kRankVariables set in its process); empty when it recorded none.
  std::string recorded_rank;
};

/// What one rank did with a paired range.
enum class RankRangeStatus { kReplayed, kDeclined, kAbsent };

/// "replayed", "declined", "absent".
const char* rank_range_status_name(RankRangeStatus status);

struct RankRange {
  RankRangeStatus status = RankRangeStatus::kAbsent;
  std::uint32_t index = 0;     // RangeRecord::index in the rank's report (not kAbsent)
  std::string decline_reason;  // kDeclined: the report's reason and detail
  std::string decline_detail;
  /// kReplayed: the first difference between this rank's kernel sequence and
  /// the reference rank's, "" when they match (its kernels are merged).
  std::string kernel_mismatch;
};

/// min / mean / max over the ranks' values that are not NaN.
struct MetricStats {
  double min = 0;
  double mean = 0;
  double max = 0;
  std::uint32_t max_rank = 0;  // the lowest rank holding `max`
  std::uint32_t count = 0;     // values the figures are over, at least 1
};

/// One metric of one paired kernel (or of a paired range's whole-range values).
struct MergedMetric {
  std::string name;
  /// The unit of every rank with a value; "" when they differ (then `units`
  /// is filled) or when the metric has none ("ratio" metrics).
  std::string unit;
  /// One per rank (MergedRank::rank); nullopt where the rank has no value:
  /// absent, declined, other kernels than the reference rank's.
  std::vector<std::optional<double>> values;
  /// One per rank, "" without a value; filled only when the units differ.
  std::vector<std::string> units;
  /// nullopt when the units differ or no value is a number.
  std::optional<MetricStats> stats;
};

/// A kernel of the reference rank's sequence with its merged metrics.
struct MergedKernel {
  std::uint32_t index = 0;  // position in the range, from 0
  std::string name;         // demangled
  Dim3 grid, block;
  std::vector<MergedMetric> metrics;
};

/// One range paired across ranks.
struct MergedRange {
  std::string key;  // "step #0": name and instance
  std::string name;
  std::uint32_t instance = 0;
  /// The lowest rank that replayed the range; nullopt when none did.
  std::optional<std::uint32_t> reference_rank;
  std::vector<RankRange> ranks;  // one per rank
  std::vector<MergedMetric> range_metrics;
  std::vector<MergedKernel> kernels;  // the reference rank's kernels; empty without one
};

struct ReportMerge {
  std::vector<MergedRank> ranks;
  std::vector<MergedRange> ranges;  // rank 0's in its order, then those only later ranks have
  /// One line per rank and range whose kernel sequence differs from the
  /// reference rank's: "range 'step #0': rank 3 (d.json) ran other kernels
  /// than rank 0: kernel 1 is '...' in rank 0 and '...' in rank 3; its kernel
  /// values are not merged".
  std::vector<std::string> mismatched;
  /// What not every rank has, one line each: GPUs that differ ("the ranks are
  /// of different GPUs: NVIDIA H200 (GH100) in ranks 0, 1; NVIDIA A100
  /// (GA100) in rank 2"), values of another granularity (--range-metrics),
  /// ranges missing in some ranks ("range 'eval #0' missing in rank 1
  /// (b.json)"), metrics missing in some ranks ("metric 'lts__t_bytes.sum'
  /// missing in rank 1 (b.json): not merged"), and metrics in different
  /// units ("metric 'dram__bytes_read.sum' is in byte in rank 0 and in Kbyte
  /// in rank 1 (b.json): not combined").
  std::vector<std::string> unmatched;
  /// One line per declined range and reason: "range 'step #1' declined in
  /// rank 1 (b.json) (free_in_range)"; the details are in the
  /// range's RankRange entries.
  std::vector<std::string> declined;
  /// The reports' own errors (Report::errors), "rank 1 (b.json): <error>".
  std::vector<std::string> errors;
};

/// Merges the ranks' reports as the header says. `ranks` may be empty (an
/// empty merge). Never fails: whatever does not pair is listed.
ReportMerge merge_reports(const std::vector<RankReport>& ranks);

/// Terminal table: the ranks (file, pid, GPU), then per range the ranks that
/// did not replay it or ran other kernels, and per kernel (and whole-range
/// values) one line per metric with its unit, min, mean, max, the rank of
/// the max and, for up to kMaxRankColumns ranks, each rank's value; then the
/// mismatched, unmatched, declined and error lines and a count. Metric lines
/// fit in 120 columns: a name too wide for its column stands on a line of
/// its own above its values, and rank columns that would not fit even so
/// are left out (with a line saying the JSON and CSV have them).
std::string render_merge_table(const ReportMerge& merge);

/// The end of render_merge_table alone: the mismatched, unmatched, declined
/// and error lines under their titles, then "N metrics merged over M ranks,
/// ..." (what the launcher prints when the merge goes to a file).
std::string render_merge_flags(const ReportMerge& merge);

/// Ranks shown as columns of their own in the terminal table; with more, the
/// table shows the figures only (the JSON and CSV have every rank's value).
inline constexpr std::size_t kMaxRankColumns = 8;

/// CSV, one row per merged metric:
///   range,kernel_index,kernel,metric,unit,min,mean,max,max_rank,count,rank_0,rank_1,...
/// kernel_index and kernel empty for whole-range values, kernel as
/// "name (1024,1,1)x(256,1,1)"; values exact (format_exact_number), empty
/// where there is none; with units that differ, unit lists each rank's unit
/// separated by '|' and the figures are empty. The flags are not rows (see
/// render_merge_json).
std::string render_merge_csv(const ReportMerge& merge);

/// JSON as the header lays it out (indent 2), ending in a newline.
std::string render_merge_json(const ReportMerge& merge);

}  // namespace rangereplay::report
