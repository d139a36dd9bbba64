// The reports of one run: found by their file names, ordered by rank, named
// by rank and pid, each given its own --output path.
#include "cli/process_reports.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "unit/cli/temp_tree.h"

namespace rangereplay::cli {
namespace {

report::Report process(std::uint32_t pid, report::Environment environment = {}, std::string host = "node1") {
  report::Report r;
  r.process_id = pid;
  r.environment = std::move(environment);
  r.host_name = std::move(host);
  return r;
}

std::optional<std::string> no_env(const std::string&) { return std::nullopt; }

TEST(ProcessReports, finds_only_whole_report_files_sorted_by_pid) {
  testing::TempTree t;
  t.file("report.4243.json");
  t.file("report.77.json");
  t.file("report.4244.json.tmp.4244");          // being written (the older name)
  t.file("report.4245.json.tmp.Ab3dE9xYz012");  // being written (write_text_file)
  t.file("report.json");
  t.file("report.x1.json");
  t.file("config.json");
  EXPECT_EQ(process_report_files(t.root()),
            (std::vector<std::string>{t.path("report.77.json"), t.path("report.4243.json")}));
  EXPECT_TRUE(process_report_files(t.path("missing")).empty());
}

TEST(ProcessReports, a_journal_stands_in_for_a_process_that_wrote_no_report) {
  testing::TempTree t;
  t.file("report.10.json");
  t.file("report.10.journal");  // written, then the report: the report wins
  t.file("report.20.journal");  // killed before its exit handler
  t.file("report.x.journal");
  t.file("report.30.journal.tmp");
  EXPECT_EQ(process_report_files(t.root()),
            (std::vector<std::string>{t.path("report.10.json"), t.path("report.20.journal")}));
}

TEST(ProcessReports, the_rank_is_the_first_rank_variable_with_a_number) {
  EXPECT_EQ(rank_of(process(1, {{"RANK", "3"}, {"LOCAL_RANK", "1"}})), 3);
  EXPECT_EQ(rank_of(process(1, {{"LOCAL_RANK", "1"}})), 1);
  EXPECT_EQ(rank_of(process(1, {{"OMPI_COMM_WORLD_RANK", "12"}})), 12);
  EXPECT_EQ(rank_of(process(1, {{"RANK", "x"}, {"SLURM_PROCID", "5"}})), 5);
  EXPECT_EQ(rank_of(process(1, {{"MY_VAR", "2"}})), std::nullopt);
  EXPECT_EQ(rank_of(process(1)), std::nullopt);
}

TEST(ProcessReports, ordered_by_rank_then_pid_and_named_so) {
  std::vector<report::Report> rs = {process(30), process(20, {{"RANK", "1"}}), process(10),
                                    process(40, {{"RANK", "0"}})};
  order_by_rank(rs);
  std::vector<std::string> labels;
  for (const report::Report& r : rs) labels.push_back(process_label(r));
  EXPECT_EQ(labels, (std::vector<std::string>{"rank 0 (pid 40)", "rank 1 (pid 20)", "pid 10", "pid 30"}));
  EXPECT_EQ(process_label(process(0)), "process");
}

TEST(ProcessReports, output_variables_are_the_q_placeholders_once_each) {
  EXPECT_EQ(output_variables("run_%q{RANK}_%p_%q{HOST_TAG}_%q{RANK}.json"),
            (std::vector<std::string>{"RANK", "HOST_TAG"}));
  EXPECT_EQ(output_variables("100%%q{X}.json"), std::vector<std::string>{});
  EXPECT_EQ(output_variables("plain.json"), std::vector<std::string>{});
}

TEST(ProcessReports, each_process_names_its_file_with_its_own_pid_host_and_variables) {
  std::vector<std::string> warnings;
  const std::vector<report::Report> rs = {process(11, {{"RANK", "0"}}, "a"), process(12, {{"RANK", "1"}}, "b")};
  std::vector<StatusOr<std::string>> paths = output_paths("/out/%h_%q{RANK}_%p.json", rs, 99, "here", no_env, warnings);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(*paths[0], "/out/a_0_11.json");
  EXPECT_EQ(*paths[1], "/out/b_1_12.json");
  EXPECT_TRUE(warnings.empty());
  // Unknown pid and host: the launcher's child and host; a variable the
  // report does not record: the launcher's environment.
  const auto env = [](const std::string& name) -> std::optional<std::string> {
    return name == "JOB" ? std::optional<std::string>("j7") : std::nullopt;
  };
  paths = output_paths("%q{JOB}_%h_%p.json", {process(0, {}, "")}, 99, "here", env, warnings);
  EXPECT_EQ(*paths[0], "j7_here_99.json");
}

TEST(ProcessReports, processes_sharing_a_name_get_their_pid_and_a_warning) {
  std::vector<std::string> warnings;
  const std::vector<report::Report> rs = {process(11), process(12), process(13)};
  std::vector<StatusOr<std::string>> paths = output_paths("out/run.json", rs, 99, "h", no_env, warnings);
  EXPECT_EQ(*paths[0], "out/run.json");
  EXPECT_EQ(*paths[1], "out/run.12.json");
  EXPECT_EQ(*paths[2], "out/run.13.json");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("3 processes wrote reports"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("%q{RANK}"), std::string::npos) << warnings[0];
}

TEST(ProcessReports, a_variable_unset_in_a_process_is_that_reports_error_only) {
  std::vector<std::string> warnings;
  const std::vector<report::Report> rs = {process(11, {{"RANK", "0"}}), process(12)};
  std::vector<StatusOr<std::string>> paths = output_paths("r%q{RANK}.json", rs, 99, "h", no_env, warnings);
  EXPECT_EQ(*paths[0], "r0.json");
  ASSERT_FALSE(paths[1].ok());
  EXPECT_NE(paths[1].status().message().find("RANK is not set"), std::string::npos) << paths[1].status().message();
}

}  // namespace
}  // namespace rangereplay::cli
