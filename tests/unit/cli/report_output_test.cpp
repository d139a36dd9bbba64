// save_report: JSON, or CSV plus the per-range CSV beside it.
#include "cli/report_output.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "temp_tree.h"

namespace rangereplay::cli {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

report::Report declined_report() {
  report::Report r;
  report::RangeRecord range;
  range.index = 0;
  range.name = "step";
  range.declined = true;
  range.decline_reason = "free_in_range";
  range.decline_detail = "cuMemFree_v2 inside the range";
  r.ranges.push_back(range);
  return r;
}

TEST(RangesCsvPath, puts_ranges_before_the_csv_extension) {
  EXPECT_EQ(ranges_csv_path("run.csv"), "run.ranges.csv");
  EXPECT_EQ(ranges_csv_path("/tmp/a.b/run_12.csv"), "/tmp/a.b/run_12.ranges.csv");
  EXPECT_EQ(ranges_csv_path("run"), "run.ranges.csv");
  EXPECT_EQ(ranges_csv_path(".csv"), ".ranges.csv");
  EXPECT_EQ(budget_csv_path("/tmp/a.b/run_12.csv"), "/tmp/a.b/run_12.budget.csv");
  EXPECT_EQ(budget_csv_path("run"), "run.budget.csv");
}

TEST(SaveReport, csv_writes_the_metric_rows_a_per_range_file_with_the_decline_detail_and_the_budget) {
  testing::TempTree tree;
  const std::string csv = tree.path("run.csv");
  ASSERT_TRUE(save_report(declined_report(), csv, OutputFormat::kCsv).ok());
  EXPECT_NE(read_all(csv).find("0,step,declined,free_in_range,"), std::string::npos);
  const std::string ranges = read_all(tree.path("run.ranges.csv"));
  EXPECT_EQ(ranges.rfind("range_index,range_name,status,decline_reason,decline_detail,", 0), 0u);
  EXPECT_NE(ranges.find("0,step,declined,free_in_range,cuMemFree_v2 inside the range,"), std::string::npos);
  EXPECT_EQ(read_all(tree.path("run.budget.csv")).rfind("part,ms\nlauncher_checks_ms,", 0), 0u);
}

TEST(SaveReport, json_writes_one_file) {
  testing::TempTree tree;
  ASSERT_TRUE(save_report(declined_report(), tree.path("run.json"), OutputFormat::kJson).ok());
  EXPECT_TRUE(std::filesystem::exists(tree.path("run.json")));
  EXPECT_FALSE(std::filesystem::exists(tree.path("run.ranges.csv")));
  EXPECT_FALSE(std::filesystem::exists(tree.path("run.budget.csv")));
}

}  // namespace
}  // namespace rangereplay::cli
