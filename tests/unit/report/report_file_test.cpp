// Report files on disk: the temporary file a write goes through is new
// (O_EXCL|O_NOFOLLOW), so a symbolic link planted at a name it might use, or
// at the target, never sends the report into another file; its mode follows
// the umask; and reads stop at a cap, also for files with no size (/dev/zero,
// a FIFO).
#include "report/report_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace rangereplay::report {
namespace {

namespace fs = std::filesystem;

class ReportFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::path(::testing::TempDir()) / "rr_report_file_XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = fs::canonical(templ);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static std::string content_of(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  fs::path dir_;
};

TEST_F(ReportFileTest, a_symlink_at_the_old_temporary_name_is_not_followed) {
  const fs::path victim = dir_ / "victim";
  std::ofstream(victim) << "precious";
  const fs::path out = dir_ / "out.json";
  // The name the writer used to take: "<out>.tmp.<pid>".
  const fs::path planted = dir_ / ("out.json.tmp." + std::to_string(::getpid()));
  fs::create_symlink(victim, planted);
  ASSERT_TRUE(write_text_file(out, "report\n").ok());
  EXPECT_EQ(content_of(victim), "precious");
  EXPECT_EQ(content_of(out), "report\n");
  EXPECT_TRUE(fs::is_symlink(planted));
  // Nothing else is left beside the report.
  EXPECT_EQ(names(), (std::vector<std::string>{"out.json", planted.filename().string(), "victim"}));
}

TEST_F(ReportFileTest, a_symlink_at_the_target_is_replaced_not_written_through) {
  const fs::path victim = dir_ / "victim";
  std::ofstream(victim) << "precious";
  const fs::path out = dir_ / "out.json";
  fs::create_symlink(victim, out);
  ASSERT_TRUE(write_text_file(out, "report\n").ok());
  EXPECT_EQ(content_of(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(out));
  EXPECT_EQ(content_of(out), "report\n");
}

TEST_F(ReportFileTest, repeated_writes_leave_only_the_target) {
  // Every write leaves only the target; a reader of report.<pid>.json names
  // never sees the temporary (checked by name in process_reports_test).
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(write_text_file(dir_ / "report.1.json", std::to_string(i)).ok());
  EXPECT_EQ(names(), std::vector<std::string>{"report.1.json"});
  EXPECT_EQ(content_of(dir_ / "report.1.json"), "19");
}

TEST_F(ReportFileTest, the_mode_is_0644_less_the_umask) {
  const mode_t previous = ::umask(027);
  const Status written = write_text_file(dir_ / "out.json", "x");
  ::umask(previous);
  ASSERT_TRUE(written.ok()) << written.message();
  struct stat st {};
  ASSERT_EQ(::stat((dir_ / "out.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST_F(ReportFileTest, a_missing_folder_is_one_line_naming_the_target) {
  const Status s = write_text_file(dir_ / "no" / "out.json", "x");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "cannot write '" + (dir_ / "no" / "out.json").string() + "': No such file or directory");
}

TEST_F(ReportFileTest, a_file_past_the_cap_is_refused_in_one_line) {
  const fs::path big = dir_ / "big.json";
  std::ofstream(big) << std::string(11, 'x');
  StatusOr<std::string> read = read_text_file(big, 10);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(read.status().message(), "cannot read '" + big.string() +
                                         "': larger than the 10-byte cap of a file the profiler reads; is it the "
                                         "right file?");
  StatusOr<std::string> fits = read_text_file(big, 11);
  ASSERT_TRUE(fits.ok());
  EXPECT_EQ(*fits, std::string(11, 'x'));
  EXPECT_EQ(kMaxReadBytes, 1ull << 30);
}

TEST_F(ReportFileTest, dev_zero_is_read_up_to_the_cap_only) {
  StatusOr<std::string> read = read_text_file("/dev/zero", 1 << 20);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(read.status().message().find("'/dev/zero': larger than the 1048576-byte cap"), std::string::npos)
      << read.status().message();
}

TEST_F(ReportFileTest, a_fifo_is_read_up_to_the_cap_only) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opened read-write here, so neither end waits; the bytes fit in the pipe.
  const int fd = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::string bytes(2000, 'y');
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  StatusOr<std::string> read = read_text_file(fifo, 1000);
  ::close(fd);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(read.status().message().find("1000-byte cap"), std::string::npos) << read.status().message();
}

TEST_F(ReportFileTest, a_fifo_without_a_writer_reads_as_empty_not_a_wait) {
  const fs::path fifo = dir_ / "in.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // In a thread, bounded: the old reader's blocking open() never returned.
  std::promise<StatusOr<std::string>> read;
  std::future<StatusOr<std::string>> result = read.get_future();
  std::thread reader([&] { read.set_value(read_text_file(fifo)); });
  const bool returned = result.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!returned) {
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // lets the open return
    if (writer >= 0) ::close(writer);
  }
  reader.join();
  ASSERT_TRUE(returned) << "read_text_file waited for a writer";
  StatusOr<std::string> text = result.get();
  ASSERT_TRUE(text.ok()) << text.status().to_string();
  EXPECT_EQ(*text, "");
}

TEST_F(ReportFileTest, a_fifo_without_a_reader_is_an_error_not_a_wait) {
  const fs::path fifo = dir_ / "out.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::promise<Status> written;
  std::future<Status> result = written.get_future();
  std::thread writer([&] { written.set_value(write_text_file(fifo, "{}\n")); });
  const bool returned = result.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  // A writer still waiting is let go: a reader appears (and holds the FIFO
  // open, so the write neither blocks nor raises SIGPIPE).
  const int reader = returned ? -1 : ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  writer.join();
  if (reader >= 0) ::close(reader);
  ASSERT_TRUE(returned) << "write_text_file waited for a reader of the FIFO";
  const Status s = result.get();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "cannot write '" + fifo.string() +
                             "': it is a FIFO that no process reads; start its reader first, or write a file");
}

TEST_F(ReportFileTest, a_fifo_with_a_reader_gets_the_whole_content) {
  const fs::path fifo = dir_ / "out.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(write_text_file(fifo, "{}\n").ok());
  char buffer[16] = {};
  EXPECT_EQ(::read(reader, buffer, sizeof buffer), 3);
  EXPECT_EQ(std::string(buffer, 3), "{}\n");
  ::close(reader);
  EXPECT_TRUE(fs::is_fifo(fifo)) << "written in place, not replaced";
}

}  // namespace
}  // namespace rangereplay::report
