// save_report: JSON, or CSV plus the per-range CSV beside it; `merge` of
// report files on disk, to a table, JSON or CSV, through the launcher.
#include "cli/report_output.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/launcher.h"
#include "report/report_json.h"
#include "temp_tree.h"
#include "unit/report/sample_report.h"

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

// Two ranks' reports written to `tree`: the sample report, rank 1 with
// twice rank 0's DRAM bytes in `scale`. Returns their paths.
std::vector<std::string> two_rank_files(const testing::TempTree& tree) {
  std::vector<std::string> paths;
  for (int rank = 0; rank < 2; ++rank) {
    report::Report r = report::testing::sample_report();
    r.process_id = 500 + rank;
    r.environment = report::Environment{};  // no recorded rank: the file order names it
    r.ranges[0].kernels[0].metrics[0].value = 1000.0 * (rank + 1);
    paths.push_back(tree.path("rank" + std::to_string(rank) + ".json"));
    EXPECT_TRUE(report::write_report_json(r, paths.back()).ok());
  }
  return paths;
}

TEST(MergeReportFiles, json_output_holds_every_rank_and_the_terminal_gets_the_flags) {
  testing::TempTree tree;
  const std::vector<std::string> ranks = two_rank_files(tree);
  const std::string out = tree.path("job.json");
  StatusOr<std::string> text = merge_report_files({ranks, out, OutputFormat::kJson});
  ASSERT_TRUE(text.ok()) << text.status().to_string();
  EXPECT_EQ(text->rfind("rangereplay merge: 2 ranks merged into " + out + "\n", 0), 0u) << *text;
  EXPECT_NE(text->find("declined:\n  range 'step #1' declined in ranks 0, 1 (free_in_range)\n"), std::string::npos)
      << *text;
  const nlohmann::json j = nlohmann::json::parse(read_all(out));
  EXPECT_EQ(j.at("ranks").at(1).at("file"), ranks[1]);
  EXPECT_EQ(j.at("ranks").at(1).at("process_id"), 501);
  const nlohmann::json& dram = j.at("ranges").at(0).at("kernels").at(0).at("metrics").at(0);
  EXPECT_EQ(dram.at("values"), nlohmann::json({1000.0, 2000.0}));
  EXPECT_EQ(dram.at("max_rank"), 1);
}

TEST(MergeReportFiles, csv_output_and_the_table) {
  testing::TempTree tree;
  const std::vector<std::string> ranks = two_rank_files(tree);
  const std::string out = tree.path("job.csv");
  ASSERT_TRUE(merge_report_files({ranks, out, OutputFormat::kCsv}).ok());
  const std::string csv = read_all(out);
  EXPECT_EQ(csv.rfind("range,kernel_index,kernel,metric,unit,min,mean,max,max_rank,count,rank_0,rank_1\n", 0), 0u);
  EXPECT_NE(csv.find(",dram__bytes_read.sum,byte,1000,1500,2000,1,2,1000,2000\n"), std::string::npos) << csv;
  StatusOr<std::string> table = merge_report_files({ranks, "", OutputFormat::kJson});
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  EXPECT_EQ(
      table->rfind("rangereplay merge\n2 ranks:\n  rank 0    " + ranks[0] + "  pid 500  NVIDIA H200 (GH100)\n", 0), 0u)
      << *table;
}

TEST(MergeReportFiles, reports_that_record_their_ranks_merge_in_rank_order) {
  testing::TempTree tree;
  std::vector<std::string> files;
  for (int rank : {1, 0}) {
    report::Report r = report::testing::sample_report();
    r.process_id = 600 + static_cast<std::uint32_t>(rank);
    r.environment = report::Environment{{"RANK", std::to_string(rank)}};
    files.push_back(tree.path("r_" + std::to_string(rank) + ".json"));
    ASSERT_TRUE(report::write_report_json(r, files.back()).ok());
  }
  const std::string out = tree.path("job.json");
  ASSERT_TRUE(merge_report_files({files, out, OutputFormat::kJson}).ok());
  const nlohmann::json j = nlohmann::json::parse(read_all(out));
  EXPECT_EQ(j.at("ranks").at(0).at("process_id"), 600);
  EXPECT_EQ(j.at("ranks").at(0).at("file"), files[1]);
  EXPECT_EQ(j.at("ranks").at(1).at("process_id"), 601);
}

TEST(MergeReportFiles, an_output_in_a_missing_folder_is_named_before_the_reports_are_read) {
  testing::TempTree tree;
  const std::vector<std::string> ranks = two_rank_files(tree);
  StatusOr<std::string> text = merge_report_files({ranks, tree.path("none/job.json"), OutputFormat::kJson});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(), "output folder '" + tree.path("none") + "' does not exist; create it first");
}

TEST(MergeReportFiles, a_file_that_is_no_report_is_named_and_the_launcher_exits_2) {
  testing::TempTree tree;
  std::vector<std::string> ranks = two_rank_files(tree);
  ranks.push_back(tree.file("notes.json", 0644, "{\"hello\": 1}"));
  StatusOr<std::string> text = merge_report_files({ranks, "", OutputFormat::kJson});
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find(ranks[2]), std::string::npos) << text.status().message();
  EXPECT_EQ(run_launcher({"rangereplay", "merge", ranks[0], tree.path("missing.json")}), 2);
  EXPECT_EQ(run_launcher({"rangereplay", "merge", ranks[0], ranks[1], "-o", tree.path("job.json")}), 0);
  EXPECT_TRUE(std::filesystem::exists(tree.path("job.json")));
}

}  // namespace
}  // namespace rangereplay::cli
