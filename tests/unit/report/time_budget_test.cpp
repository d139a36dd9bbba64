// The time budget: the injection's sums over the range records, the
// launcher's completion (spans from shared clock stamps, the remainder),
// its rows, CSV and terminal lines.
#include "report/time_budget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include <string>

namespace rangereplay::report {
namespace {

Report two_ranges() {
  Report r;
  r.setup_ms = 250;
  r.gate_wait_ms = 5;
  RangeRecord a, b;
  a.timings.begin_ms = 10;
  a.timings.pass0_ms = 100;
  a.timings.window_ms = 1000;
  b.timings.begin_ms = 20;
  b.timings.pass0_ms = 200;
  b.timings.window_ms = 2000;
  r.ranges = {a, b};
  r.time_budget->first_pass_start_ms = 700;
  r.time_budget->standing_flushes_ms = 15;
  // The first pass start is inside a window here. The application started
  // at clock 1000 ms; the tool loaded 400 ms later, its exit handler began
  // at 6000 ms.
  r.time_budget->tool_start_clock_ms = 1400;
  r.time_budget->exit_start_clock_ms = 6000;
  return r;
}

TEST(TimeBudget, the_injection_sums_its_range_records) {
  Report r = two_ranges();
  sum_range_times(r);
  EXPECT_DOUBLE_EQ(r.time_budget->range_begins_ms, 30);
  EXPECT_DOUBLE_EQ(r.time_budget->in_ranges_ms, 300);
  EXPECT_DOUBLE_EQ(r.time_budget->windows_ms, 3000);
}

TEST(TimeBudget, the_gate_wait_and_counter_setup_rows_are_the_reports_own_fields) {
  Report r = two_ranges();
  r.gate_wait_ms = 7.5;  // changed after the sums: the rows follow
  r.setup_ms = 120;
  const std::vector<BudgetRow> rows = budget_rows(r);
  ASSERT_EQ(rows[2].key, "gate_wait_ms");
  EXPECT_EQ(rows[2].ms, 7.5);
  ASSERT_EQ(rows[3].key, "counter_setup_ms");
  EXPECT_EQ(rows[3].ms, 120);
  const std::string csv = render_time_budget_csv(r);
  EXPECT_NE(csv.find("\ngate_wait_ms,7.5\ncounter_setup_ms,120\n"), std::string::npos) << csv;
}

TEST(TimeBudget, the_launcher_completes_it_and_the_rows_add_up_to_the_wall_time) {
  Report r = two_ranges();
  sum_range_times(r);
  // Launcher started at 990 ms, spent 10 ms before the spawn at 1000 ms, saw
  // the application end at 6500 ms.
  complete_time_budget(r, 990, 10, 1000, 6500);
  const TimeBudget& b = *r.time_budget;
  EXPECT_DOUBLE_EQ(b.wall_ms, 5510);
  EXPECT_DOUBLE_EQ(b.start_to_tool_ms, 400);
  EXPECT_DOUBLE_EQ(b.exit_ms, 500);
  // 5510 - (10 + 400 + 5 + 250 + 30 + 300 + 3000 + 15 + 500): the first pass
  // start is within the range begins, not added again.
  EXPECT_DOUBLE_EQ(b.outside_ranges_ms, 1000);
  double total = 0;
  for (const BudgetRow& row : budget_rows(r)) {
    if (!row.within) total += row.ms;
  }
  EXPECT_DOUBLE_EQ(total, b.wall_ms);
}

TEST(TimeBudget, spans_without_their_stamps_stay_zero_and_the_rest_is_never_negative) {
  Report r;  // the application never loaded the tool
  complete_time_budget(r, 0, 30, 10, 20);
  EXPECT_DOUBLE_EQ(r.time_budget->wall_ms, 20);
  EXPECT_DOUBLE_EQ(r.time_budget->start_to_tool_ms, 0);
  EXPECT_DOUBLE_EQ(r.time_budget->exit_ms, 0);
  EXPECT_DOUBLE_EQ(r.time_budget->outside_ranges_ms, 0);  // 20 - 30 is below 0
}

TEST(TimeBudget, csv_has_one_row_per_part_and_the_wall_time) {
  Report r = two_ranges();
  sum_range_times(r);
  complete_time_budget(r, 990, 10, 1000, 6500);
  const std::string csv = render_time_budget_csv(r);
  EXPECT_EQ(csv,
            "part,ms\n"
            "launcher_checks_ms,10\n"
            "start_to_tool_ms,400\n"
            "gate_wait_ms,5\n"
            "counter_setup_ms,250\n"
            "range_begins_ms,30\n"
            "in_ranges_ms,300\n"
            "windows_ms,3000\n"
            "first_pass_start_ms,700\n"
            "rendezvous_ms,0\n"
            "standing_flushes_ms,15\n"
            "exit_ms,500\n"
            "outside_ranges_ms,1000\n"
            "wall_ms,5510\n");
}

TEST(TimeBudget, terminal_lines_give_each_part_and_its_share) {
  Report r = two_ranges();
  EXPECT_EQ(render_time_budget(r), "");  // not completed by a launcher
  sum_range_times(r);
  complete_time_budget(r, 990, 10, 1000, 6500);
  const std::string text = render_time_budget(r);
  EXPECT_EQ(text.rfind("time budget: 5,510.0 ms wall\n", 0), 0u) << text;
  EXPECT_NE(text.find("replay windows"), std::string::npos) << text;
  EXPECT_NE(text.find("54.4%"), std::string::npos) << text;  // 3000 of 5510 ms
  EXPECT_NE(text.find("    of the set-up, begins and windows: the first CUPTI pass start"), std::string::npos) << text;
}

TEST(TimeBudget, rendezvous_waits_are_summed_over_the_ranges_and_shown_within_the_windows) {
  Report r = two_ranges();
  r.ranges[0].timings.rendezvous_ms = 120.5;
  r.ranges[1].timings.rendezvous_ms = 30;
  sum_range_times(r);
  complete_time_budget(r, 990, 10, 1000, 6500);
  EXPECT_DOUBLE_EQ(r.time_budget->rendezvous_ms.value_or(-1), 150.5);
  // Within the windows: the other parts and the rest are as without it.
  EXPECT_DOUBLE_EQ(r.time_budget->outside_ranges_ms, 1000);
  EXPECT_NE(render_time_budget_csv(r).find("rendezvous_ms,150.5\n"), std::string::npos);
  const std::string text = render_time_budget(r);
  EXPECT_NE(text.find("    of the windows: waiting for the job's other ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("150.5 ms"), std::string::npos) << text;
}

TEST(TimeBudget, terminal_lines_are_sorted_by_time_largest_first) {
  Report r = two_ranges();
  sum_range_times(r);
  complete_time_budget(r, 990, 10, 1000, 6500);
  const std::string text = render_time_budget(r);
  // The parts' milliseconds in the order printed, read back from the lines.
  std::vector<double> ms;
  std::size_t line_start = text.find('\n') + 1;
  std::size_t within_at = std::string::npos;
  while (line_start < text.size()) {
    const std::size_t end = text.find('\n', line_start);
    const std::string line = text.substr(line_start, end - line_start);
    if (line.starts_with("    ")) {
      within_at = ms.size();
    } else {
      const std::size_t unit = line.rfind(" ms");
      const std::size_t begin = line.rfind(' ', unit - 1) + 1;
      std::string number = line.substr(begin, unit - begin);
      std::erase(number, ',');
      ms.push_back(std::stod(number));
    }
    line_start = end + 1;
  }
  // Every row but those within: first_pass_start_ms, and rendezvous_ms (0: not shown).
  ASSERT_EQ(ms.size(), budget_rows(r).size() - 2) << text;
  EXPECT_TRUE(std::is_sorted(ms.begin(), ms.end(), std::greater<>())) << text;
  EXPECT_EQ(ms.front(), 3000.0) << text;  // the replay windows
  EXPECT_EQ(within_at, ms.size()) << "the row within the others comes last\n" << text;
}

}  // namespace
}  // namespace rangereplay::report
