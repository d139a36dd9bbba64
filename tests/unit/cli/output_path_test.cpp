// --output names: placeholder expansion (%p, %q{VAR}, %h, %%) and format by extension.
#include "cli/output_path.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "temp_tree.h"

namespace rangereplay::cli {
namespace {

EnvLookup fake_env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string expand(const std::string& pattern, long pid = 4242) {
  StatusOr<std::string> s = expand_output_path(pattern, pid, "node7", fake_env({{"RANK", "3"}, {"EMPTY", ""}}));
  EXPECT_TRUE(s.ok()) << pattern << ": " << s.status().to_string();
  return s.ok() ? *s : std::string();
}

std::string error_of(const std::string& pattern) {
  StatusOr<std::string> s = expand_output_path(pattern, 1, "h", fake_env({{"RANK", "3"}}));
  EXPECT_FALSE(s.ok()) << pattern << " expanded to " << (s.ok() ? *s : "");
  return s.ok() ? std::string() : s.status().message();
}

TEST(OutputPath, names_without_placeholders_stay_as_they_are) {
  EXPECT_EQ(expand(""), "");
  EXPECT_EQ(expand("report.json"), "report.json");
  EXPECT_EQ(expand("/tmp/a b/r.csv"), "/tmp/a b/r.csv");
}

TEST(OutputPath, percent_p_is_the_application_pid) {
  EXPECT_EQ(expand("run_%p.json", 4242), "run_4242.json");
  EXPECT_EQ(expand("%p", 1), "1");
  EXPECT_EQ(expand("%p_%p.csv", 99999), "99999_99999.csv");
}

TEST(OutputPath, percent_q_is_an_environment_variable) {
  EXPECT_EQ(expand("rank%q{RANK}.json"), "rank3.json");
  EXPECT_EQ(expand("r%q{EMPTY}x.json"), "rx.json");
  EXPECT_EQ(expand("%q{RANK}_%p_%h.json", 7), "3_7_node7.json");
}

TEST(OutputPath, double_percent_is_a_literal_percent) {
  EXPECT_EQ(expand("100%%.json"), "100%.json");
  EXPECT_EQ(expand("%%p.json"), "%p.json");
}

TEST(OutputPath, bad_placeholders_are_rejected_with_the_fix) {
  EXPECT_EQ(error_of("out%z.json"),
            "output name 'out%z.json' has an unknown placeholder '%z'; use %p (pid), %q{VAR} (environment variable), "
            "%h (host) or %% in --output");
  EXPECT_NE(error_of("out%").find("ends with a lone '%'"), std::string::npos);
  EXPECT_NE(error_of("%qRANK.json").find("needs a variable name in braces"), std::string::npos);
  EXPECT_EQ(error_of("%q{RANK.json"), "output name '%q{RANK.json': %q{ has no closing '}'; write %q{VAR}");
  EXPECT_EQ(error_of("/tmp/x_%q{.json"), "output name '/tmp/x_%q{.json': %q{ has no closing '}'; write %q{VAR}");
  EXPECT_NE(error_of("%q{}.json").find("names no variable"), std::string::npos);
  EXPECT_EQ(error_of("r%q{LOCAL_RANK}.json"),
            "output name 'r%q{LOCAL_RANK}.json' uses %q{LOCAL_RANK} but LOCAL_RANK is not set; set it or drop it "
            "from --output");
}

TEST(OutputPath, extension_picks_the_format) {
  EXPECT_EQ(*output_format_of("a.json"), OutputFormat::kJson);
  EXPECT_EQ(*output_format_of("dir.x/a.CSV"), OutputFormat::kCsv);
  EXPECT_EQ(*output_format_of("a.Json"), OutputFormat::kJson);
  StatusOr<OutputFormat> none = output_format_of("report");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "output 'report' must end in .json, .csv or .html (the extension picks the format)");
  EXPECT_FALSE(output_format_of("a.json.txt").ok());
  EXPECT_FALSE(output_format_of(".json").ok());  // a hidden file named ".json" has no extension
  StatusOr<OutputFormat> nameless = output_format_of("/tmp/.csv");
  ASSERT_FALSE(nameless.ok());
  EXPECT_EQ(nameless.status().message(),
            "output '/tmp/.csv' has no file name before '.csv'; name the file, e.g. report.csv");
}

Status writable(const std::string& pattern) {
  return check_output_writable(pattern, "node7", fake_env({{"RANK", "3"}}));
}

std::string content_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CheckOutputWritable, a_new_file_is_created_and_removed_again) {
  testing::TempTree t;
  EXPECT_TRUE(writable(t.path("run.json")).ok());
  EXPECT_FALSE(std::filesystem::exists(t.path("run.json")));
  EXPECT_TRUE(writable(t.path("run_%q{RANK}.csv")).ok());
  EXPECT_FALSE(std::filesystem::exists(t.path("run_3.csv")));
}

TEST(CheckOutputWritable, an_existing_report_is_neither_truncated_nor_written) {
  testing::TempTree t;
  const std::string old = t.file("old.json", 0644, "{\"previous\": 1}");
  EXPECT_TRUE(writable(old).ok());
  EXPECT_EQ(content_of(old), "{\"previous\": 1}");
}

TEST(CheckOutputWritable, a_fifo_nothing_reads_is_an_error_not_a_wait) {
  testing::TempTree t;
  const std::string fifo = t.path("p.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::promise<Status> checked;
  std::future<Status> result = checked.get_future();
  std::thread checker([&] { checked.set_value(writable(fifo)); });
  const bool returned = result.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!returned) {
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // lets the open return
    checker.join();
    if (reader >= 0) ::close(reader);
  } else {
    checker.join();
  }
  ASSERT_TRUE(returned) << "the check waited for a reader of the FIFO";
  const Status s = result.get();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "output '" + fifo + "' is a FIFO that nothing reads; start its reader first, or give --output a file");
}

TEST(CheckOutputWritable, an_unwritable_path_is_reported_with_the_reason) {
  Status s = writable("/proc/x.json");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.code() == StatusCode::kNotFound || s.code() == StatusCode::kPermissionDenied) << s.to_string();
  EXPECT_EQ(s.message().rfind("output '/proc/x.json' cannot be ", 0), 0u) << s.message();
  EXPECT_TRUE(s.message().ends_with("; give --output a path in a writable folder")) << s.message();
}

TEST(CheckOutputWritable, an_existing_folder_is_named_as_a_folder_with_a_file_name_to_give) {
  testing::TempTree t;
  t.folder("dir.json");
  Status dir = writable(t.path("dir.json"));
  EXPECT_EQ(dir.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(dir.message(), "output '" + t.path("dir.json") + "' is a folder; give --output a file name, e.g. '" +
                               t.path("dir.json/report.json") + "'");
  t.folder("Runs.CSV");
  EXPECT_EQ(writable(t.path("Runs.CSV")).message(), "output '" + t.path("Runs.CSV") +
                                                        "' is a folder; give --output a file name, e.g. '" +
                                                        t.path("Runs.CSV/report.CSV") + "'");
  EXPECT_TRUE(std::filesystem::is_directory(t.path("dir.json")));
}

TEST(CheckOutputWritable, a_missing_folder_is_named) {
  testing::TempTree t;
  Status s = writable(t.path("none/run.json"));
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "output folder '" + t.path("none") + "' does not exist; create it first");
}

TEST(CheckOutputWritable, a_pid_pattern_probes_the_folder_and_leaves_nothing) {
  testing::TempTree t;
  EXPECT_TRUE(writable(t.path("run_%p.json")).ok());
  EXPECT_TRUE(std::filesystem::is_empty(t.root()));
  Status s = writable("/proc/run_%p.json");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("a file in output folder '/proc' cannot be ", 0), 0u) << s.message();
  // A folder that depends on the pid cannot be checked before the pid exists.
  EXPECT_TRUE(writable(t.path("p%p/run.json")).ok());
}

TEST(CheckOutputWritable, a_variable_unset_here_probes_the_folder_and_leaves_nothing) {
  // Each rank of a job sets its own LOCAL_RANK; where rangereplay starts it is unset.
  testing::TempTree t;
  EXPECT_TRUE(writable(t.path("r%q{LOCAL_RANK}.json")).ok());
  EXPECT_TRUE(std::filesystem::is_empty(t.root()));
  EXPECT_TRUE(writable(t.path("rank%q{LOCAL_RANK}/run.json")).ok());  // folder set by each rank: not checked
  EXPECT_EQ(writable(t.path("none/r%q{LOCAL_RANK}.json")).code(), StatusCode::kNotFound);
}

TEST(CheckOutputWritable, a_file_in_place_of_the_folder_is_named) {
  testing::TempTree t;
  t.file("f", 0644, "x");
  Status s = writable(t.path("f/x.json"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "output folder '" + t.path("f") + "' is a file, not a folder; give --output a path in a folder");
}

TEST(CheckOutputFolder, report_and_merge_outputs_name_a_missing_folder_or_a_file_in_its_place) {
  testing::TempTree t;
  t.file("f", 0644, "x");
  EXPECT_TRUE(check_output_folder(t.path("run.json")).ok());
  EXPECT_TRUE(check_output_folder("run.json").ok());  // the working folder
  const Status missing = check_output_folder(t.path("none/run.html"));
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.message(), "output folder '" + t.path("none") + "' does not exist; create it first");
  const Status file = check_output_folder(t.path("f/job.csv"));
  EXPECT_EQ(file.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(file.message(),
            "output folder '" + t.path("f") + "' is a file, not a folder; give --output a path in a folder");
}

TEST(ExpandOutputPath, a_variable_name_must_be_a_word) {
  StatusOr<std::string> s = expand_output_path("r%q{A B}.json", 1, "h", fake_env({}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "output name 'r%q{A B}.json': 'A B' in %q{...} is not a variable name (letters, "
            "digits and '_', not starting with a digit)");
  EXPECT_FALSE(expand_output_path("r%q{1X}.json", 1, "h", fake_env({})).ok());
  EXPECT_TRUE(expand_output_path("r%q{_X1}.json", 1, "h", fake_env({{"_X1", "v"}})).ok());
}

TEST(CheckOutputWritable, a_malformed_pattern_is_the_expansion_error) {
  EXPECT_EQ(writable("r%q{}.json").message(), "output name 'r%q{}.json': %q{} names no variable, e.g. %q{RANK}");
}

TEST(WithStandIns, unset_variables_read_zero_and_are_noted) {
  std::vector<std::string> unset;
  EnvLookup env = with_stand_ins(fake_env({{"RANK", "3"}}), &unset);
  EXPECT_EQ(env("RANK"), "3");
  EXPECT_EQ(env("LOCAL_RANK"), "0");
  EXPECT_EQ(unset, std::vector<std::string>{"LOCAL_RANK"});
  EXPECT_EQ(*expand_output_path("r%q{RANK}_%q{WORLD_SIZE}.json", 1, "h", with_stand_ins(fake_env({}))), "r0_0.json");
}

}  // namespace
}  // namespace rangereplay::cli
