#include "report/report_journal.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "report/report_file.h"
#include "unit/report/sample_report.h"

namespace rangereplay::report {
namespace {

namespace fs = std::filesystem;
using testing::sample_report;

class ReportJournal : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rr_report_journal_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string text_of(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::size_t lines_of(const fs::path& path) {
    const std::string text = text_of(path);
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  fs::path dir_;
};

// The sample report's ranges one at a time, as the tool finishes them.
Report with_ranges(std::size_t count) {
  Report r = sample_report();
  const RangeRecord step = r.ranges.front();
  r.ranges.assign(count, step);
  for (std::size_t i = 0; i < count; ++i) {
    r.ranges[i].index = static_cast<std::uint32_t>(i);
    r.ranges[i].name = "step " + std::to_string(i);
  }
  return r;
}

TEST(JournalPath, beside_the_report_with_its_own_ending) {
  EXPECT_EQ(journal_path_for("out/report.42.json"), fs::path("out/report.42.journal"));
  EXPECT_EQ(journal_path_for("out/run"), fs::path("out/run.journal"));
  EXPECT_EQ(journal_path_for("out/run.csv"), fs::path("out/run.csv.journal"));
  EXPECT_TRUE(is_journal_path("a/report.1.journal"));
  EXPECT_TRUE(is_journal_path("a/RUN.JOURNAL"));
  EXPECT_FALSE(is_journal_path("a/report.1.json"));
}

TEST_F(ReportJournal, finished_ranges_read_back_as_the_report_with_a_line_saying_so) {
  const fs::path path = dir_ / "report.1.journal";
  JournalWriter journal(path);
  Report report = with_ranges(0);
  ASSERT_TRUE(journal.sync(report, {}).ok());
  EXPECT_FALSE(fs::exists(path)) << "no range, no file";
  report = with_ranges(1);
  ASSERT_TRUE(journal.sync(report, {}).ok());
  report = with_ranges(2);
  ASSERT_TRUE(journal.sync(report, {}).ok());
  EXPECT_EQ(journal.slots_written(), 2u);
  EXPECT_EQ((fs::status(path).permissions() & fs::perms::all), fs::perms::owner_read | fs::perms::owner_write);

  StatusOr<JournalContents> back = read_report_journal(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->final_ranges, 2u);
  EXPECT_EQ(back->unsettled_ranges, 0u);
  EXPECT_FALSE(back->torn_last_line);
  EXPECT_EQ(back->report.ranges, report.ranges);
  EXPECT_EQ(back->report.device_name, report.device_name);
  EXPECT_EQ(back->report.metrics, report.metrics);
  ASSERT_EQ(back->report.errors.size(), report.errors.size() + 1);
  EXPECT_NE(back->report.errors.back().find("rebuilt from its journal, with 2 finished ranges"), std::string::npos)
      << back->report.errors.back();
}

TEST_F(ReportJournal, a_sync_with_nothing_new_writes_nothing) {
  const fs::path path = dir_ / "report.1.journal";
  JournalWriter journal(path);
  const Report report = with_ranges(1);
  ASSERT_TRUE(journal.sync(report, {}).ok());
  const std::size_t lines = lines_of(path);
  EXPECT_EQ(lines, 2u);  // a header and the range
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(journal.sync(report, {}).ok());
  EXPECT_EQ(lines_of(path), lines);
}

TEST_F(ReportJournal, the_last_header_holds_the_fields_known_later) {
  const fs::path path = dir_ / "report.1.journal";
  JournalWriter journal(path);
  Report report = with_ranges(1);
  report.device_name = "";
  ASSERT_TRUE(journal.sync(report, {}).ok());
  report = with_ranges(2);
  report.device_name = "NVIDIA H200";
  report.errors.push_back("later");
  ASSERT_TRUE(journal.sync(report, {}).ok());
  StatusOr<JournalContents> back = read_report_journal(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->report.device_name, "NVIDIA H200");
  EXPECT_EQ(back->report.ranges.size(), 2u);
}

TEST_F(ReportJournal, the_rebuilt_budget_sums_the_journaled_ranges_times) {
  const fs::path path = dir_ / "report.1.journal";
  JournalWriter journal(path);
  Report report = with_ranges(2);
  report.ranges[0].timings.begin_ms = 1.5;
  report.ranges[0].timings.pass0_ms = 10.0;
  report.ranges[0].timings.window_ms = 40.0;
  report.ranges[1].timings.begin_ms = 2.5;
  report.ranges[1].timings.pass0_ms = 20.0;
  report.ranges[1].timings.window_ms = 60.0;
  // As the tool's header holds them before its exit handler sums them.
  report.time_budget.emplace();
  ASSERT_TRUE(journal.sync(report, {}).ok());
  StatusOr<JournalContents> back = read_report_journal(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_TRUE(back->report.time_budget.has_value());
  EXPECT_DOUBLE_EQ(back->report.time_budget->range_begins_ms, 4.0);
  EXPECT_DOUBLE_EQ(back->report.time_budget->in_ranges_ms, 30.0);
  EXPECT_DOUBLE_EQ(back->report.time_budget->windows_ms, 100.0);
}

TEST_F(ReportJournal, an_unsettled_range_is_declined_process_ended_until_its_final_line) {
  const fs::path path = dir_ / "report.1.journal";
  JournalWriter journal(path);
  Report report = with_ranges(3);
  ASSERT_FALSE(report.ranges[1].kernels.empty());
  const std::vector<std::size_t> waiting = {1};
  ASSERT_TRUE(journal.sync(report, waiting).ok());
  StatusOr<JournalContents> back = read_report_journal(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->final_ranges, 2u);
  EXPECT_EQ(back->unsettled_ranges, 1u);
  ASSERT_EQ(back->report.ranges.size(), 3u);
  const RangeRecord& ended = back->report.ranges[1];
  EXPECT_TRUE(ended.declined);
  EXPECT_EQ(ended.decline_reason, "process_ended");
  EXPECT_EQ(ended.name, "step 1");
  EXPECT_TRUE(ended.kernels.empty());
  EXPECT_EQ(back->report.ranges[2], report.ranges[2]);

  // Its batch is replayed: the values land in the same slot.
  report.ranges[1].notes.push_back("replayed in a batch");
  ASSERT_TRUE(journal.sync(report, {}).ok());
  back = read_report_journal(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->unsettled_ranges, 0u);
  EXPECT_EQ(back->report.ranges, report.ranges);
}

TEST_F(ReportJournal, a_torn_last_line_is_dropped_and_a_damaged_middle_is_an_error) {
  const fs::path path = dir_ / "report.1.journal";
  {
    JournalWriter journal(path);
    ASSERT_TRUE(journal.sync(with_ranges(2), {}).ok());
  }
  const std::string whole = text_of(path);
  const std::string torn = whole + "{\"slot\":2,\"final\":true,\"range\":{\"ind";
  StatusOr<JournalContents> back = parse_report_journal(torn, "j");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(back->torn_last_line);
  EXPECT_EQ(back->report.ranges.size(), 2u);
  EXPECT_NE(back->report.errors.back().find("last line, cut short by the end, was left out"), std::string::npos)
      << back->report.errors.back();
  // A whole last line (its newline written) that does not parse is damage, not a torn write.
  back = parse_report_journal(whole + "{\"slot\":2,\"final\":true,\"range\":1e400}\n", "j");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message().rfind("j line 4 is not JSON: the journal is damaged; its first 3 lines", 0), 0u)
      << back.status().message();

  const std::size_t first_end = whole.find('\n');
  const std::string damaged = whole.substr(0, first_end + 1) + "garbage\n" + whole.substr(first_end + 1);
  back = parse_report_journal(damaged, "j");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message(),
            "j line 2 is not JSON: the journal is damaged; its first 1 lines can still be read (head -n 1 of it into a "
            "new .journal file)");

  back = parse_report_journal("{\"schema_version\":1}\n", "j");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("not a rangereplay journal"), std::string::npos);
  back = parse_report_journal("", "j");
  ASSERT_FALSE(back.ok());
  back = parse_report_journal("{\"journal\":\"rangereplay\",\"journal_version\":9,\"report\":{}}\n", "j");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(ReportJournal, a_deeply_nested_header_is_read_without_recursing_into_it) {
  const fs::path path = dir_ / "report.1.journal";
  {
    JournalWriter journal(path);
    ASSERT_TRUE(journal.sync(with_ranges(1), {}).ok());
  }
  std::string text = text_of(path);
  // An unknown key of the header's report nested 200,000 deep: ignored, as in a report.
  const std::size_t report_end = text.find('\n') - 2;  // before the report's and the line's '}'
  text.insert(report_end, ",\"zz\":" + std::string(200000, '[') + std::string(200000, ']'));
  StatusOr<JournalContents> back = parse_report_journal(text, "j");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->report.ranges.size(), 1u);
}

TEST_F(ReportJournal, a_planted_file_or_link_at_its_path_is_never_written) {
  const fs::path target = dir_ / "precious";
  std::ofstream(target) << "keep";
  const fs::path path = dir_ / "report.1.journal";
  fs::create_symlink(target, path);
  JournalWriter journal(path);
  const Status s = journal.sync(with_ranges(1), {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot create the journal"), std::string::npos) << s.message();
  EXPECT_EQ(journal.error(), s.message());
  EXPECT_EQ(text_of(target), "keep");
  // Off after the first error: no second message.
  EXPECT_TRUE(journal.sync(with_ranges(2), {}).ok());
}

TEST_F(ReportJournal, flush_runs_beside_syncs_and_remove_on_other_threads) {
  const fs::path path = dir_ / "report.1.journal";
  JournalWriter journal(path);
  journal.flush();  // nothing written yet: nothing to do, no file
  EXPECT_FALSE(fs::exists(path));
  std::atomic<bool> done{false};
  std::thread flusher([&] {
    while (!done.load()) journal.flush();
  });
  for (std::size_t n = 1; n <= 20; ++n) ASSERT_TRUE(journal.sync(with_ranges(n), {}).ok());
  StatusOr<JournalContents> back = read_report_journal(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->final_ranges, 20u);
  ASSERT_TRUE(journal.remove().ok());
  done.store(true);
  flusher.join();
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(ReportJournal, removed_once_the_report_is_written) {
  const fs::path path = dir_ / "report.1.journal";
  JournalWriter journal(path);
  ASSERT_TRUE(journal.sync(with_ranges(1), {}).ok());
  ASSERT_TRUE(fs::exists(path));
  ASSERT_TRUE(journal.remove().ok());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(journal.sync(with_ranges(2), {}).ok());
  EXPECT_FALSE(fs::exists(path));
}

// The process that writes the journal ends without its exit handlers, the ways
// a kill, a time limit or a crash end it; both ranges it finished are read back.
enum class Ending { kSigkill, kSigterm, kAbort, kUnderscoreExit };

void finish_two_ranges_then_end(const fs::path& path, Ending ending) {
  JournalWriter journal(path);
  if (!journal.sync(with_ranges(1), {}).ok()) ::_exit(3);
  if (!journal.sync(with_ranges(2), {}).ok()) ::_exit(3);
  journal.flush();
  switch (ending) {
    case Ending::kSigkill: ::raise(SIGKILL); break;
    case Ending::kSigterm: ::raise(SIGTERM); break;
    case Ending::kAbort: std::abort();
    case Ending::kUnderscoreExit: ::_exit(7);
  }
  ::_exit(4);
}

TEST_F(ReportJournal, both_finished_ranges_survive_each_way_a_process_can_die) {
  for (Ending ending : {Ending::kSigkill, Ending::kSigterm, Ending::kAbort, Ending::kUnderscoreExit}) {
    const fs::path path = dir_ / ("report." + std::to_string(static_cast<int>(ending)) + ".journal");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // Default actions, unblocked, whatever earlier tests of this process set.
      for (int sig : {SIGTERM, SIGABRT}) ::signal(sig, SIG_DFL);
      sigset_t all;
      sigfillset(&all);
      ::sigprocmask(SIG_UNBLOCK, &all, nullptr);
      finish_two_ranges_then_end(path, ending);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 7)) << status;
    StatusOr<JournalContents> back = read_report_journal(path);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back->final_ranges, 2u) << static_cast<int>(ending);
    ASSERT_EQ(back->report.ranges.size(), 2u);
    EXPECT_EQ(back->report.ranges[1].name, "step 1");
  }
}

}  // namespace
}  // namespace rangereplay::report
