// The time budget of a profiled run (TimeBudget, report_model.h) as rows:
// where every millisecond of the wall time went, the application's own time
// outside ranges being what the measured parts leave. Shown in the terminal
// (report_table.h), written in the JSON and as <report>.budget.csv.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/report_model.h"

namespace rangereplay::report {

/// One row: a part of the wall time, its key in TimeBudget's JSON and its
/// milliseconds. `within` rows are part of the row before them, not added to
/// the total.
struct BudgetRow {
  std::string_view key;
  std::string_view label;
  double ms = 0;
  bool within = false;
};

/// The rows of `report.time_budget` in the order of a run: launcher checks,
/// start until the tool, gate wait (the report's gate_wait_ms), counter
/// set-up (its setup_ms), range begins, in ranges, windows (within the
/// begins or the windows: the first CUPTI pass start; within the windows:
/// the waits for the job's other ranks), standing flushes,
/// exit, outside ranges. The rows that are not `within` add up to wall_ms
/// when the launcher completed the budget (complete_time_budget). No rows
/// when the report has no budget (one read from a file written before it).
std::vector<BudgetRow> budget_rows(const Report& report);

/// Completes the injection's part of `report.time_budget` from the launcher:
/// `launcher_checks_ms` before the application started at monotonic clock
/// `spawn_clock_ms`, which ended at `end_clock_ms`, the launcher having
/// started at `launcher_start_clock_ms` (all milliseconds of the monotonic
/// clock). Spans the injection's stamps do not give (a process that never
/// loaded the tool, or never reached its exit handler) stay 0; the rest
/// (outside_ranges_ms) is never below 0.
void complete_time_budget(Report& report, double launcher_start_clock_ms, double launcher_checks_ms,
                          double spawn_clock_ms, double end_clock_ms);

/// Fills the injection's sums from `report.ranges` (range begins, in ranges,
/// windows, rendezvous waits).
void sum_range_times(Report& report);

/// The budget CSV: a header line "part,ms" and one row per budget_rows row
/// ("first_pass_start_ms" and the other `within` rows included), then
/// "wall_ms"; the header alone when the report has no budget.
std::string render_time_budget_csv(const Report& report);

/// The budget in the terminal: "time budget: <wall> wall" and one indented
/// line per row with its share of the wall time, the largest part first (the
/// `within` rows last, indented further, the rendezvous waits only when
/// there were some); empty when the launcher did not
/// complete it (wall_ms 0).
std::string render_time_budget(const Report& report);

}  // namespace rangereplay::report
