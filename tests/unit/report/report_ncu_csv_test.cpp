// ncu's CSV layouts: every field quoted, one result per replayed kernel (or
// per range with whole-range values, named by the range), IDs from 0,
// declined ranges without results; raw has a units row under its header.
#include "report/report_ncu_csv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "unit/report/sample_report.h"

namespace rangereplay::report {
namespace {

TEST(NcuCsv, details_has_a_row_per_kernel_and_metric_in_ncu_columns) {
  const std::string csv = render_ncu_details_csv(testing::sample_report());
  EXPECT_EQ(csv.rfind("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
                      "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric "
                      "Unit\",\"Metric Value\"\n",
                      0),
            0u)
      << csv;
  EXPECT_NE(csv.find("\"1\",\"4242\",\"stream\",\"\",\"void add<float, 2>(float const*, float*)\",\"1\",\"7\","
                     "\"(128, 1, 1)\",\"(64, 2, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
                     "\"dram__bytes_read.sum\",\"byte\",\"1234.5678\"\n"),
            std::string::npos)
      << csv;
  // 2 kernels x 2 metrics, the declined range has no result.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
}

TEST(NcuCsv, whole_range_values_are_one_result_named_by_the_range) {
  Report r = testing::sample_report();
  r.ranges[0].kernels.clear();
  r.ranges[0].range_metrics = {{"dram__bytes_read.sum", "byte", 7}};
  const std::string csv = render_ncu_details_csv(r);
  EXPECT_NE(csv.find("\"0\",\"4242\",\"stream\",\"\",\"step\",\"1\",\"\",\"\",\"\",\"0\",\"9.0\","), std::string::npos)
      << csv;
}

TEST(NcuCsv, raw_has_one_column_per_metric_and_a_units_row) {
  const std::string csv = render_ncu_raw_csv(testing::sample_report());
  const std::size_t first = csv.find('\n');
  EXPECT_TRUE(csv.substr(0, first).ends_with("\"CC\",\"dram__bytes_read.sum\",\"smsp__inst_executed.sum\""));
  EXPECT_EQ(csv.substr(first + 1, csv.find('\n', first + 1) - first - 1),
            "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"inst\"");
  EXPECT_NE(csv.find("\"0\",\"4242\",\"stream\",\"\",\"scale(float*, int)\",\"1\",\"7\",\"(256, 1, 1)\",\"(1024, 1, "
                     "1)\",\"0\",\"9.0\",\"6291488\",\"98304\"\n"),
            std::string::npos)
      << csv;
}

}  // namespace
}  // namespace rangereplay::report
