// The time budget as rows, its completion by the launcher, its CSV and its
// lines in the terminal (see time_budget.h).
#include "report/time_budget.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/format_helpers.h"

namespace rangereplay::report {

std::vector<BudgetRow> budget_rows(const Report& report) {
  if (!report.time_budget) return {};
  const TimeBudget& b = *report.time_budget;
  return {
      {"launcher_checks_ms", "launcher checks before the start", b.launcher_checks_ms, false},
      {"start_to_tool_ms", "application start until the tool loaded", b.start_to_tool_ms, false},
      {"gate_wait_ms", "waiting at the launcher gate", report.gate_wait_ms.value_or(0), false},
      {"counter_setup_ms", "counter set-up", report.setup_ms, false},
      {"range_begins_ms", "range begins (drain, entry snapshot, counters)", b.range_begins_ms, false},
      {"in_ranges_ms", "the application inside ranges (pass 0)", b.in_ranges_ms, false},
      {"windows_ms", "replay windows", b.windows_ms, false},
      {"first_pass_start_ms", "of the set-up, begins and windows: the first CUPTI pass start", b.first_pass_start_ms,
       true},
      {"rendezvous_ms", "of the windows: waiting for the job's other ranks", b.rendezvous_ms.value_or(0), true},
      {"standing_flushes_ms", "standing-pass flushes", b.standing_flushes_ms, false},
      {"exit_ms", "exit (last flush, report, teardown)", b.exit_ms, false},
      {"outside_ranges_ms", "the application outside ranges", b.outside_ranges_ms, false},
  };
}

void sum_range_times(Report& report) {
  if (!report.time_budget) report.time_budget.emplace();
  TimeBudget& b = *report.time_budget;
  b.range_begins_ms = b.in_ranges_ms = b.windows_ms = 0;
  double rendezvous_ms = 0;
  for (const RangeRecord& range : report.ranges) {
    b.range_begins_ms += range.timings.begin_ms;
    b.in_ranges_ms += range.timings.pass0_ms.value_or(0);
    b.windows_ms += range.timings.window_ms;
    rendezvous_ms += range.timings.rendezvous_ms.value_or(0);
  }
  b.rendezvous_ms = rendezvous_ms;
}

void complete_time_budget(Report& report, double launcher_start_clock_ms, double launcher_checks_ms,
                          double spawn_clock_ms, double end_clock_ms) {
  if (!report.time_budget) report.time_budget.emplace();
  TimeBudget& b = *report.time_budget;
  b.wall_ms = std::max(0.0, end_clock_ms - launcher_start_clock_ms);
  b.launcher_checks_ms = launcher_checks_ms;
  b.start_to_tool_ms = b.tool_start_clock_ms > spawn_clock_ms ? b.tool_start_clock_ms - spawn_clock_ms : 0;
  b.exit_ms =
      b.exit_start_clock_ms > 0 && end_clock_ms > b.exit_start_clock_ms ? end_clock_ms - b.exit_start_clock_ms : 0;
  double measured = 0;
  for (const BudgetRow& row : budget_rows(report)) {
    if (!row.within && row.key != "outside_ranges_ms") measured += row.ms;
  }
  b.outside_ranges_ms = std::max(0.0, b.wall_ms - measured);
}

std::string render_time_budget_csv(const Report& report) {
  std::string out = "part,ms\n";
  for (const BudgetRow& row : budget_rows(report)) {
    out += fmt::format("{},{}\n", row.key, format_exact_number(row.ms));
  }
  if (report.time_budget) out += fmt::format("wall_ms,{}\n", format_exact_number(report.time_budget->wall_ms));
  return out;
}

std::string render_time_budget(const Report& report) {
  if (!report.time_budget || report.time_budget->wall_ms <= 0) return "";
  const TimeBudget& b = *report.time_budget;
  std::string out = "time budget: " + format_ms(b.wall_ms) + " wall\n";
  // The parts of the wall time, largest first; the rows within them after
  // them, indented.
  std::vector<BudgetRow> rows = budget_rows(report);
  std::stable_sort(rows.begin(), rows.end(), [](const BudgetRow& a, const BudgetRow& c) {
    if (a.within != c.within) return !a.within;
    return a.ms > c.ms;
  });
  for (const BudgetRow& row : rows) {
    // A run without --collectives replay waits for no rank: no line for it.
    if (row.key == "rendezvous_ms" && row.ms == 0) continue;
    out += fmt::format("  {:<50} {:>10} {:>5.1f}%\n", std::string(row.within ? "  " : "") + std::string(row.label),
                       format_ms(row.ms), 100.0 * row.ms / b.wall_ms);
  }
  return out;
}

}  // namespace rangereplay::report
