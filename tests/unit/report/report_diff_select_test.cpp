// diff's selection (--metrics, --changed-above) and its order by the size of
// the change, on the real H200 --set full report of examples/stream (2 ranges
// x 6 kernels x 392 metrics), and a diff of two unrelated reports (stream
// against a torch training step) that pairs nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "report/report_diff.h"
#include "report/report_json.h"

namespace rangereplay::report {
namespace {

Report read_fixture(const char* path) {
  StatusOr<Report> read = read_report_json(path);
  EXPECT_TRUE(read.ok()) << read.status().to_string();
  return read.ok() ? *read : Report{};
}

const Report& stream_report() {
  static const Report r = read_fixture(RR_TEST_STREAM_REPORT);
  return r;
}

// The stream report with one value of one kernel scaled by `factor`.
Report with_scaled_value(const Report& r, std::size_t range, std::size_t kernel, const std::string& metric,
                         double factor) {
  Report out = r;
  for (MetricValue& m : out.ranges.at(range).kernels.at(kernel).metrics)
    if (m.name == metric) m.value *= factor;
  return out;
}

// The metric rows of a diff table: its lines that start with two spaces and
// are no column header.
std::size_t table_rows(const std::string& table) {
  std::istringstream lines(table);
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("  ") && !line.starts_with("  Metric Name") && !line.starts_with("   ")) ++n;
  }
  return n;
}

TEST(DiffSelection, changed_above_keeps_only_the_changed_value) {
  const Report& base = stream_report();
  const Report next = with_scaled_value(base, 0, 3, "dram__bytes_read.sum", 1.25);
  const ReportDiff all = diff_reports(base, next);
  ASSERT_EQ(all.rows.size(), 2u * 6u * 392u);
  StatusOr<ReportDiff> changed = diff_reports(base, next, DiffSelection{{}, 10.0, true});
  ASSERT_TRUE(changed.ok()) << changed.status().to_string();
  ASSERT_EQ(changed->rows.size(), 1u);
  const DiffRow& row = changed->rows[0];
  EXPECT_EQ(row.range, "step #0");
  EXPECT_TRUE(row.kernel.starts_with("rangereplay::example::stream_triad_kernel")) << row.kernel;
  EXPECT_EQ(row.metric, "dram__bytes_read.sum");
  ASSERT_TRUE(row.change_pct.has_value());
  EXPECT_DOUBLE_EQ(*row.change_pct, 25.0);
  EXPECT_EQ(changed->compared, all.rows.size());
  const std::string table = render_diff_table(*changed);
  EXPECT_EQ(table_rows(table), 1u) << table;
  EXPECT_NE(table.find("dram__bytes_read.sum"), std::string::npos);
  EXPECT_NE(table.find("+25.00%"), std::string::npos);
  EXPECT_NE(table.find("\n4704 values compared (1 shown: changed by more than 10%), 0 unmatched, 0 declined\n"),
            std::string::npos)
      << table;
}

TEST(DiffSelection, the_two_measured_ranges_show_only_rows_beyond_the_threshold_largest_first) {
  // Range 0 against range 1 of the same run: two real measurements of the
  // same six kernels.
  const Report& r = stream_report();
  Report first = r, second = r;
  first.ranges.resize(1);
  second.ranges.erase(second.ranges.begin());
  second.ranges[0].index = 0;
  const ReportDiff all = diff_reports(first, second);
  ASSERT_EQ(all.rows.size(), 6u * 392u);
  std::size_t beyond = 0;
  for (const DiffRow& row : all.rows)
    if (!row.change_pct || std::fabs(*row.change_pct) > 10) ++beyond;
  ASSERT_GT(beyond, 0u);
  ASSERT_LT(beyond, all.rows.size());
  StatusOr<ReportDiff> changed = diff_reports(first, second, DiffSelection{{}, 10.0, true});
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed->rows.size(), beyond);
  // Sorted: kernels by their largest change, each kernel's rows largest first.
  double previous_group_max = std::numeric_limits<double>::infinity();
  std::string kernel;
  double previous = 0;
  for (const DiffRow& row : changed->rows) {
    const double size = row.change_pct ? std::fabs(*row.change_pct) : std::numeric_limits<double>::infinity();
    EXPECT_GT(size, 10.0) << row.metric;
    if (row.kernel != kernel) {
      EXPECT_LE(size, previous_group_max) << row.kernel;
      previous_group_max = size;
      kernel = row.kernel;
    } else {
      EXPECT_LE(size, previous) << row.metric;
    }
    previous = size;
  }
  EXPECT_EQ(table_rows(render_diff_table(*changed)), beyond);
}

TEST(DiffSelection, metrics_keep_only_the_names_asked_for_and_name_an_unknown_one) {
  const Report& r = stream_report();
  StatusOr<ReportDiff> two =
      diff_reports(r, r, DiffSelection{{"gpu__time_duration.sum", "dram__bytes_read.sum"}, std::nullopt, false});
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->rows.size(), 2u * 6u * 2u);
  EXPECT_EQ(two->rows[0].metric, "gpu__time_duration.sum");  // --sort report: the reports' order
  for (const DiffRow& row : two->rows)
    EXPECT_TRUE(row.metric == "gpu__time_duration.sum" || row.metric == "dram__bytes_read.sum") << row.metric;
  const StatusOr<ReportDiff> typo = diff_reports(r, r, DiffSelection{{"dram__byte_read.sum"}, std::nullopt, true});
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(typo.status().message().starts_with(
      "--metrics 'dram__byte_read.sum': neither report has this metric; closest: dram__bytes_read.sum"))
      << typo.status().to_string();
  const StatusOr<ReportDiff> negative = diff_reports(r, r, DiffSelection{{}, -1.0, true});
  ASSERT_FALSE(negative.ok());
}

TEST(DiffSelection, long_kernel_names_are_shortened_in_the_table_and_whole_in_csv) {
  Report r = stream_report();
  r.ranges.resize(1);
  r.ranges[0].kernels.resize(1);
  const std::string name = "void at::native::kernel<" + std::string(400, 'T') + ">(Params)";
  r.ranges[0].kernels[0].name = name;
  const ReportDiff d = diff_reports(r, r);
  const std::string table = render_diff_table(d);
  const std::string title =
      table.substr(table.find("step #0: "), table.find('\n', table.find("step #0: ")) - table.find("step #0: "));
  EXPECT_EQ(title.size(), std::string("step #0: ").size() + 160) << title;
  EXPECT_TRUE(title.ends_with("(Params) (10923,1,1)x(256,1,1) #0")) << title;
  EXPECT_EQ(table.find(name), std::string::npos);
  EXPECT_NE(render_diff_csv(d).find(name), std::string::npos);
}

TEST(DiffSelection, unrelated_reports_pair_no_value) {
  const Report torch = read_fixture(RR_TEST_TORCH_REPORT);
  const ReportDiff d = diff_reports(stream_report(), torch);
  EXPECT_EQ(d.compared, 0u);
  EXPECT_TRUE(d.rows.empty());
  ASSERT_FALSE(d.unmatched.empty());
  EXPECT_TRUE(d.unmatched.front().starts_with("kernel 'rangereplay::example::stream_copy_kernel")) << d.unmatched[0];
}

}  // namespace
}  // namespace rangereplay::report
