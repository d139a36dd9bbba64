// ncu's CSV layouts: every field quoted, one result per replayed kernel (or
// per range with whole-range values, named by the range), IDs from 0,
// declined ranges without results; raw has a units row under its header.
#include "report/report_ncu_csv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

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

// Every unit of the `full` set's metrics on an H200, as the metric evaluator
// names it and as ncu's `--csv --print-units base` printed it for the same
// metrics of examples/stream.
TEST(NcuCsv, units_are_spelled_as_ncu_prints_them) {
  const std::pair<const char*, const char*> seen[] = {{"", ""},
                                                      {"branch_target", "branches"},
                                                      {"byte", "byte"},
                                                      {"byte/dram_cycle", "byte/cycle"},
                                                      {"byte/fbp_cycle", "byte/cycle"},
                                                      {"byte/second", "byte/s"},
                                                      {"cta", "block"},
                                                      {"dram_cycle", "cycle"},
                                                      {"dram_cycle/second", "hz"},
                                                      {"fbp_cycle", "cycle"},
                                                      {"fbp_cycle/second", "hz"},
                                                      {"gpc_cycle", "cycle"},
                                                      {"gpc_cycle/second", "hz"},
                                                      {"instruction", "inst"},
                                                      {"instruction/gpc_cycle", "inst/cycle"},
                                                      {"l1data_bank_conflict", ""},
                                                      {"l1tex_request", ""},
                                                      {"l1tex_wavefront", ""},
                                                      {"l2_request", "request"},
                                                      {"l2_sector", "sector"},
                                                      {"l2_sector/l1tex_request", "sector"},
                                                      {"lrc_sector", "sector"},
                                                      {"math_op", ""},
                                                      {"nanosecond", "ns"},
                                                      {"percent", "%"},
                                                      {"warp", "warp"}};
  for (const auto& [ours, ncu] : seen) EXPECT_EQ(ncu_base_unit(ours), ncu) << ours;
  // A unit the table does not name is kept.
  EXPECT_EQ(ncu_base_unit("register/thread"), "register/thread");
  Report r = testing::sample_report();
  r.ranges[0].kernels[0].metrics[0].unit = "l2_sector";
  EXPECT_NE(render_ncu_details_csv(r).find("\"dram__bytes_read.sum\",\"sector\","), std::string::npos);
  EXPECT_NE(render_ncu_raw_csv(r).find("\"sector\""), std::string::npos);
}

}  // namespace
}  // namespace rangereplay::report
