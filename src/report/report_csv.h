// The report as CSV, shaped like `ncu --csv`: one row per (range, kernel,
// metric), for spreadsheets and pandas. A second CSV has one row per range
// with its stage timings and snapshot sizes.
//
// Metric CSV columns:
//   range_index,range_name,status,decline_reason,kernel_index,kernel_name,grid,block,metric,unit,value
// - status is "replayed" or "declined"; decline_reason is empty unless declined;
// - whole-range metrics (--range-metrics whole) have empty kernel columns;
// - a declined range is one row with empty kernel and metric columns; a
//   kernel without metrics (and no whole-range metrics in its range) is one
//   row with empty metric columns, so every range and kernel appears;
// - grid and block as Nsight Compute writes them: "(1024, 1, 1)";
// - kernel_name is the demangled name (the mangled one when none);
// - value is exact (format_exact_number): "6291488", "0.1", "nan".
// Quoting follows RFC 4180 (a field with a comma, quote, CR, LF, or leading
// or trailing space is quoted, quotes doubled); rows end in "\n".
//
// Thread-safety: pure functions.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// One CSV field, quoted only when needed: `a,b` -> `"a,b"`, `say "hi"` -> `"say ""hi"""`.
std::string csv_field(std::string_view text);

/// The metric CSV (header line and rows, see above).
std::string render_report_csv(const Report& report);

/// The per-range CSV, columns:
///   range_index,range_name,status,decline_reason,decline_detail,passes,kernels,regions,
///   footprint_bytes,snapshot_bytes,snapshot_<tier>_bytes...,restore,restored_bytes,divergences,
///   sync_ms,capture_ms,restore_ms,replay_submit_ms,kernels_ms,counters_ms,decode_ms,verify_ms,window_ms,
///   begin_ms,other_ms,rendezvous_ms
/// with one snapshot_<tier>_bytes column per tier name seen in the report,
/// in order of first appearance; restore is RangeRecord::restore
/// ("differential", "full" or empty); restored_bytes and divergences sum all
/// pass records.
std::string render_stage_timings_csv(const Report& report);

/// write_text_file(path, render_report_csv(report)) (report_file.h).
Status write_report_csv(const Report& report, const std::filesystem::path& path);

/// write_text_file(path, render_stage_timings_csv(report)) (report_file.h).
Status write_stage_timings_csv(const Report& report, const std::filesystem::path& path);

/// write_text_file(path, render_time_budget_csv(report)) (report_file.h,
/// time_budget.h).
Status write_time_budget_csv(const Report& report, const std::filesystem::path& path);

}  // namespace rangereplay::report
