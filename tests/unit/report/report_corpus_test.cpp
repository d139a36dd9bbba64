// The report corpus (tests/data/report_corpus, see its README): every
// accept.*.json loads, every reject.*.json is refused with one error line
// naming the file. The Python reader's test reads the same files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "report/report_json.h"

namespace rangereplay::report {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> corpus(const std::string& verdict) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(RR_TEST_REPORT_CORPUS)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(verdict + ".") && name.ends_with(".json")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ReportCorpus, every_accepted_document_loads) {
  const std::vector<fs::path> files = corpus("accept");
  EXPECT_GE(files.size(), 10u);
  for (const fs::path& file : files) {
    StatusOr<Report> r = read_report_json(file);
    EXPECT_TRUE(r.ok()) << file.filename() << ": " << r.status().message();
  }
}

TEST(ReportCorpus, every_rejected_document_is_one_error_line_naming_the_file) {
  const std::vector<fs::path> files = corpus("reject");
  EXPECT_GE(files.size(), 20u);
  for (const fs::path& file : files) {
    StatusOr<Report> r = read_report_json(file);
    ASSERT_FALSE(r.ok()) << file.filename() << " loaded";
    const std::string message = r.status().message();
    EXPECT_NE(message.find(file.string()), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(ReportCorpus, an_added_later_budget_field_takes_the_reports_value) {
  // counter_setup_ms and gate_wait_ms repeat the report's setup_ms and
  // gate_wait_ms; a budget without them loads, and one with the gate wait
  // only there gives the report its gate wait.
  const fs::path dir = RR_TEST_REPORT_CORPUS;
  StatusOr<Report> without = read_report_json(dir / "accept.time_budget_without_counter_setup_or_gate_wait.json");
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_TRUE(without->time_budget.has_value());
  EXPECT_FALSE(without->gate_wait_ms.has_value());
  StatusOr<Report> only = read_report_json(dir / "accept.time_budget_gate_wait_only_in_the_budget.json");
  ASSERT_TRUE(only.ok()) << only.status().message();
  EXPECT_EQ(only->gate_wait_ms, 0.75);
  StatusOr<Report> underflow = read_report_json(dir / "accept.underflow_1e-400_reads_as_zero.json");
  ASSERT_TRUE(underflow.ok()) << underflow.status().message();
  EXPECT_EQ(underflow->ranges.at(0).kernels.at(0).metrics.at(0).value, 0.0);
}

}  // namespace
}  // namespace rangereplay::report
