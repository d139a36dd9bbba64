// The launcher's metric selection (with a fake metric-query module) and its
// exit codes for pre-launch errors.
#include "cli/launcher.h"

#include <gtest/gtest.h>

#include <csignal>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cli/gpu_probe.h"
#include "core/base/elapsed.h"
#include "report/report_file.h"
#include "report/report_json.h"
#include "temp_tree.h"
#include "unit/report/sample_report.h"

namespace rangereplay::cli {
namespace {

using testing::TempTree;

class FakeMetricQueries final : public MetricQueries {
 public:
  std::vector<MetricSetInfo> sets = {{"basic", "a few", {"m1.sum", "m2.sum"}}, {"full", "all", {"m1.sum", "m3.max"}}};
  std::string last_csv, last_set;
  int expand_calls = 0;

  std::vector<MetricSetInfo> metric_sets() override { return sets; }
  StatusOr<std::vector<std::string>> expand(const std::string& csv, const std::string& set) override {
    ++expand_calls;
    last_csv = csv;
    last_set = set;
    std::vector<std::string> out;
    for (const MetricSetInfo& s : sets) {
      if (s.name == set) out = s.metrics;
    }
    if (!csv.empty()) out.push_back(csv);  // one name is enough for these tests
    return out;
  }
  StatusOr<ResolvedMetrics> resolve(const std::string&, const std::string& csv, const std::string& set) override {
    RR_ASSIGN_OR_RETURN(std::vector<std::string> names, expand(csv, set));
    return ResolvedMetrics{names, {}};
  }
  StatusOr<std::string> chip_name(int) override { return std::string("GH100"); }
  Status check_supported(int) override { return ok_status(); }
  StatusOr<std::vector<std::string>> list_metrics(const std::string&) override { return std::vector<std::string>{}; }
  Status validation = ok_status();  // what validate returns
  std::string validated_chip;
  Status validate(const std::string& chip, const std::vector<std::string>&) override {
    validated_chip = chip;
    return validation;
  }
  StatusOr<std::uint32_t> pass_count(const std::string&, const std::vector<std::string>&) override { return 1u; }
  std::string cupti_library_path() override { return ""; }
};

ProfileRequest request(std::string csv, std::string set) {
  ProfileRequest r;
  r.metrics_csv = std::move(csv);
  r.set_name = std::move(set);
  return r;
}

TEST(SelectMetrics, set_and_list_are_expanded_together) {
  FakeMetricQueries q;
  auto m = select_metrics(request("x.sum", "full"), q);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(*m, (std::vector<std::string>{"m1.sum", "m3.max", "x.sum"}));
  EXPECT_EQ(q.last_csv, "x.sum");
  EXPECT_EQ(q.last_set, "full");
}

TEST(SelectMetrics, unknown_set_names_the_closest_sets_without_expanding) {
  FakeMetricQueries q;
  auto m = select_metrics(request("", "fulll"), q);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(m.status().message(), "unknown set 'fulll' (closest: full); 'rangereplay --list-sets' lists the sets");
  EXPECT_EQ(q.expand_calls, 0);
  EXPECT_EQ(exit_code_for(m.status()), kExitUsage);
}

TEST(SelectMetrics, unknown_set_with_nothing_close_still_points_to_list_sets) {
  FakeMetricQueries q;
  auto m = select_metrics(request("", "zzzzzzzzzz"), q);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "unknown set 'zzzzzzzzzz'; 'rangereplay --list-sets' lists the sets");
}

TEST(SelectMetrics, metrics_without_a_set_skip_the_set_check) {
  FakeMetricQueries q;
  auto m = select_metrics(request("dram__bytes_read.sum", ""), q);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, (std::vector<std::string>{"dram__bytes_read.sum"}));
}

TEST(SelectMetrics, an_empty_expansion_is_an_error) {
  FakeMetricQueries q;
  q.sets.clear();  // no sets to compare against: the expansion decides
  auto m = select_metrics(request(",", "basic"), q);
  EXPECT_TRUE(m.ok());  // the fake returns "," itself; a real catalog rejects it
  auto none = select_metrics(request("", "basic"), q);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "--metrics '' names no metric; give names like dram__bytes_read.sum, or --set NAME");
}

TEST(ExitCodeFor, user_errors_exit_2_and_the_rest_exit_1) {
  EXPECT_EQ(exit_code_for(invalid_argument("x")), 2);
  EXPECT_EQ(exit_code_for(not_found("x")), 2);
  EXPECT_EQ(exit_code_for(out_of_range("x")), 2);
  EXPECT_EQ(exit_code_for(permission_denied("x")), 2);
  EXPECT_EQ(exit_code_for(unavailable("no CUDA device")), 1);
  EXPECT_EQ(exit_code_for(internal_error("x")), 1);
  EXPECT_EQ(exit_code_for(unimplemented("x")), 1);
  EXPECT_EQ(exit_code_for(failed_precondition("x")), 1);
}

TEST(RunLauncher, option_errors_exit_2_before_anything_starts) {
  EXPECT_EQ(run_launcher({"rangereplay", "profile", "--", "/bin/true"}), 2);  // no range selected
  EXPECT_EQ(run_launcher({"rangereplay", "profile", "--profiler-api", "--", "./surely_missing_app"}), 2);
  EXPECT_EQ(run_launcher({"rangereplay", "--bogus"}), 2);
  EXPECT_EQ(run_launcher({"rangereplay"}), 2);
}

const Status kNoDevice =
    unavailable("no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE); the profiler needs an NVIDIA GPU");

TEST(NoDeviceError, an_unknown_metric_is_reported_as_checked_against_gh100) {
  FakeMetricQueries q;
  q.validation = invalid_argument("unknown metric 'dram__bytes_reed.sum'; closest: dram__bytes_read.sum");
  Status s = no_device_error(request("dram__bytes_reed.sum", ""), &q, kNoDevice);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(
      s.message(),
      "unknown metric 'dram__bytes_reed.sum'; closest: dram__bytes_read.sum (checked against GH100; no GPU found)");
  EXPECT_EQ(exit_code_for(s), kExitUsage);
  EXPECT_EQ(q.validated_chip, "GH100");
}

TEST(NoDeviceError, valid_names_or_a_set_alone_give_the_no_device_error) {
  FakeMetricQueries q;
  Status s = no_device_error(request("dram__bytes_read.sum", ""), &q, kNoDevice);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), kNoDevice.message());
  EXPECT_EQ(exit_code_for(s), kExitFailure);
  FakeMetricQueries sets_only;
  EXPECT_EQ(no_device_error(request("", "full"), &sets_only, kNoDevice).message(), kNoDevice.message());
  EXPECT_EQ(sets_only.expand_calls, 0);
}

TEST(NoDeviceError, names_that_cannot_be_checked_say_so) {
  const std::string unchecked = kNoDevice.message() + "; the --metrics names could not be checked without a GPU";
  Status no_module = no_device_error(request("a.sum", ""), nullptr, kNoDevice);
  EXPECT_EQ(no_module.code(), StatusCode::kUnavailable);
  EXPECT_EQ(no_module.message(), unchecked);
  FakeMetricQueries q;
  q.validation = failed_precondition("cannot read the GH100 metric tables");
  Status no_catalog = no_device_error(request("a.sum", ""), &q, kNoDevice);
  EXPECT_EQ(no_catalog.message(), unchecked);
  EXPECT_EQ(exit_code_for(no_catalog), kExitFailure);
}

TEST(ListMetricsNoDeviceError, points_to_the_offline_list_on_one_line) {
  const Status s = list_metrics_no_device_error(kNoDevice);
  EXPECT_EQ(s.code(), kNoDevice.code());
  EXPECT_EQ(s.message(),
            kNoDevice.message() +
                "; without a GPU, `rangereplay-metrics-probe --chip GH100 --list-all` lists GH100's names (in a build "
                "folder: tools/metrics-probe/metrics-probe)");
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(ExitCodeAfterUnsavedReport, is_never_zero_and_keeps_an_application_failure) {
  EXPECT_EQ(exit_code_after_unsaved_report(0), 1);
  EXPECT_EQ(exit_code_after_unsaved_report(3), 3);
  EXPECT_EQ(exit_code_after_unsaved_report(139), 139);
}

// Runs the launcher, returning its exit code and what it printed on stderr.
std::pair<int, std::string> run_capturing_stderr(const std::vector<std::string>& args) {
  ::testing::internal::CaptureStderr();
  const int code = run_launcher(args);
  return {code, ::testing::internal::GetCapturedStderr()};
}

TEST(RunLauncher, an_unwritable_output_exits_2_before_the_application_starts) {
  auto [code, err] =
      run_capturing_stderr({"rangereplay", "profile", "--profiler-api", "-o", "/proc/x.json", "--", "/bin/true"});
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err.rfind("rangereplay: output '/proc/x.json' cannot be ", 0), 0u) << err;
  EXPECT_TRUE(err.ends_with("; give --output a path in a writable folder\n")) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST(RunLauncher, control_bytes_in_the_application_name_are_escaped_in_its_error) {
  // ESC [2J clears the screen, BEL rings, CR overwrites the line, DEL, CSI.
  auto [code, err] =
      run_capturing_stderr({"rangereplay", "profile", "--profiler-api", "--", "./missing\x1b[2J\a\r\x7f\xc2\x9b\x9b"});
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("./missing\\x1b[2J\\x07\\x0d\\x7f\\u009b\\x9b"), std::string::npos) << err;
  for (const char c : {'\x1b', '\a', '\r', '\x7f', '\x9b'}) EXPECT_EQ(err.find(c), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST(RunLauncher, report_to_a_shared_folder_does_not_follow_a_planted_link) {
  TempTree tree;
  const std::string victim = tree.file("victim", 0644, "precious");
  const std::string in = tree.path("in.json");
  ASSERT_TRUE(report::write_report_json(report::Report{}, in).ok());
  const std::string shared = tree.folder("shared");
  // Every name the old writer could take for the launcher's own pid.
  std::filesystem::create_symlink(victim, shared + "/out.json.tmp." + std::to_string(::getpid()));
  EXPECT_EQ(run_launcher({"rangereplay", "report", in, "-o", shared + "/out.json"}), 0);
  EXPECT_EQ(*report::read_text_file(victim), "precious");
  EXPECT_TRUE(report::read_report_json(shared + "/out.json").ok());
}

TEST(RunLauncher, a_mistyped_set_exits_2_naming_the_closest_set_without_a_gpu) {
  auto [code, err] =
      run_capturing_stderr({"rangereplay", "profile", "--profiler-api", "--set", "fulll", "--", "/bin/true"});
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err, "rangereplay: unknown set 'fulll' (closest: full); 'rangereplay --list-sets' lists the sets\n");
}

TEST(RunLauncher, empty_values_exit_2) {
  auto [code, err] =
      run_capturing_stderr({"rangereplay", "profile", "--profiler-api", "--metrics", "", "--", "/bin/true"});
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err,
            "rangereplay: --metrics needs a value (metric names separated by commas, e.g. dram__bytes_read.sum)\n");
}

TEST(RunLauncher, a_launcher_that_cannot_profile_never_starts_the_application) {
  // The unit-test binary's folder has no metric module; without libcuda (a
  // CPU machine) the device probe fails first. Either way profiling cannot
  // start, and the application must not have run at all.
  TempTree t;
  const std::string marker = t.path("started");
  ASSERT_EQ(::setenv("RANGEREPLAY_INJECT_LIB", "/bin/sh", 1), 0);  // any file
  auto [code, err] = run_capturing_stderr({"rangereplay", "profile", "--profiler-api", "--metrics",
                                           "dram__bytes_read.sum", "--", "/bin/sh", "-c", ": > '" + marker + "'"});
  ::unsetenv("RANGEREPLAY_INJECT_LIB");
  EXPECT_NE(code, 0) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(std::filesystem::exists(marker)) << err;
  if (!load_libcuda().ok()) {
    EXPECT_EQ(code, kExitFailure);
    const bool stub = err.find("is the CUDA toolkit's stub library") != std::string::npos;
    EXPECT_EQ(err.rfind(stub ? "rangereplay: libcuda.so.1 ("
                             : "rangereplay: the NVIDIA driver's libcuda.so.1 cannot be "
                               "loaded (",
                        0),
              0u)
        << err;
    EXPECT_TRUE(
        err.ends_with(stub ? "remove the stubs folder from LD_LIBRARY_PATH (the profiler needs an NVIDIA GPU and "
                             "its driver); the --metrics names could not be checked without a GPU\n"
                           : "install the driver, or add the folder holding libcuda.so.1 to LD_LIBRARY_PATH; "
                             "the --metrics names could not be checked without a GPU\n"))
        << err;
  }
}

TEST(RunLauncher, version_and_help_exit_0) {
  EXPECT_EQ(run_launcher({"rangereplay", "--version"}), 0);
  EXPECT_EQ(run_launcher({"rangereplay", "--help"}), 0);
}

const char* const kStdoutFull =
    "rangereplay: cannot write to standard output: No space left on device; redirect it to a file or pipe that can "
    "take it\n";

TEST(WriteStdout, writes_the_text_or_names_the_cause) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  EXPECT_TRUE(write_stdout("abc\n", file).ok());
  std::rewind(file);
  char buf[8] = {};
  EXPECT_EQ(std::fread(buf, 1, sizeof buf, file), 4u);
  EXPECT_STREQ(buf, "abc\n");
  std::fclose(file);

  std::FILE* full = std::fopen("/dev/full", "w");
  ASSERT_NE(full, nullptr);
  const Status s = write_stdout("abc\n", full);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ("rangereplay: " + s.message() + "\n", kStdoutFull);
  std::fclose(full);
}

TEST(WrittenClock, a_file_just_written_reads_as_now_on_the_monotonic_clock) {
  testing::TempTree tree;
  const std::string path = tree.file("report.42.json");
  const double now = monotonic_ms();
  // The modification time's resolution is the file system's (ns on ext4, tmpfs).
  EXPECT_NEAR(written_clock_ms(path), now, 50.0);
  EXPECT_EQ(written_clock_ms(tree.path("missing.json")), 0.0);
}

// A pipe whose reader has gone (`rangereplay profile ... | head`): with
// SIGPIPE ignored, as the launcher has it once the application runs, the
// write fails with EPIPE and says so.
TEST(WriteStdout, a_pipe_without_a_reader_is_named) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  const auto previous = std::signal(SIGPIPE, SIG_IGN);
  std::FILE* pipe_end = ::fdopen(fds[1], "w");
  ASSERT_NE(pipe_end, nullptr);
  const Status s = write_stdout("abc\n", pipe_end);
  std::fclose(pipe_end);
  std::signal(SIGPIPE, previous);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("Broken pipe"), std::string::npos) << s.message();
}

// Runs the launcher with its standard output on /dev/full: its exit code
// and what it printed on stderr.
std::pair<int, std::string> run_with_stdout_full(const std::vector<std::string>& args) {
  std::fflush(stdout);
  const int saved = ::dup(1);
  const int full = ::open("/dev/full", O_WRONLY);
  EXPECT_GE(full, 0);
  EXPECT_EQ(::dup2(full, 1), 1);
  ::close(full);
  auto result = run_capturing_stderr(args);
  std::fflush(stdout);  // drops anything left, which /dev/full refuses too
  std::clearerr(stdout);
  EXPECT_EQ(::dup2(saved, 1), 1);
  ::close(saved);
  return result;
}

TEST(RunLauncher, help_version_and_lists_exit_1_naming_the_cause_when_stdout_cannot_be_written) {
  for (const char* word : {"--help", "--version", "list-sets", "--list-sets"}) {
    SCOPED_TRACE(word);
    const auto [code, err] = run_with_stdout_full({"rangereplay", word});
    EXPECT_EQ(code, 1);
    EXPECT_EQ(err, kStdoutFull);
  }
}

TEST(RunLauncher, a_diff_that_cannot_be_printed_exits_1_naming_the_cause) {
  TempTree tree;
  const std::string base = tree.path("base.json"), next = tree.path("new.json");
  ASSERT_TRUE(report::write_report_json(report::testing::sample_report(), base).ok());
  ASSERT_TRUE(report::write_report_json(report::testing::sample_report(), next).ok());
  for (const std::vector<std::string>& format : {std::vector<std::string>{}, {"--csv"}, {"--json"}}) {
    std::vector<std::string> args = {"rangereplay", "diff", base, next};
    args.insert(args.end(), format.begin(), format.end());
    SCOPED_TRACE(args.size());
    const auto [code, err] = run_with_stdout_full(args);
    EXPECT_EQ(code, 1);
    EXPECT_EQ(err, kStdoutFull);
  }
}

TEST(RunLauncher, a_diff_that_pairs_nothing_exits_1_with_one_line_naming_the_cause_and_the_fix) {
  TempTree tree;
  const std::string base = tree.path("base.json"), next = tree.path("new.json");
  report::Report other = report::testing::sample_report();
  for (report::RangeRecord& range : other.ranges) range.name = "eval";
  ASSERT_TRUE(report::write_report_json(report::testing::sample_report(), base).ok());
  ASSERT_TRUE(report::write_report_json(other, next).ok());
  ::testing::internal::CaptureStdout();
  const auto [code, err] = run_capturing_stderr({"rangereplay", "diff", base, next});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 1);
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "rangereplay: diff: 0 values compared between " + base + " and " + next +
                     " (range 'step #0' only in the baseline): compare reports of the same program, ranges and "
                     "metrics (ranges pair by name and instance, kernels by name, grid, block and order)\n");
}

TEST(RunLauncher, report_without_an_output_prints_the_view_of_the_kernels_asked_for) {
  TempTree tree;
  const std::string in = tree.path("in.json");
  ASSERT_TRUE(report::write_report_json(report::testing::sample_report(), in).ok());
  ::testing::internal::CaptureStdout();
  const int code = run_launcher({"rangereplay", "report", in, "--page", "summary", "--kernel-name", "regex:^scale"});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_NE(out.find("scale("), std::string::npos) << out;
  EXPECT_NE(out.find("summary: "), std::string::npos) << out;
  const auto [bad, err] = run_capturing_stderr({"rangereplay", "report", in, "--kernel-name", "no_such_kernel"});
  EXPECT_EQ(bad, 2);
  EXPECT_TRUE(err.starts_with("rangereplay: --kernel-name 'no_such_kernel' matches none of the ")) << err;
}

TEST(RunLauncher, report_writes_an_older_report_again_without_inventing_its_missing_fields) {
  TempTree tree;
  report::Report old;
  old.ranges.resize(1);
  old.ranges[0].kernels.resize(1);
  old.ranges[0].kernels[0].launch_index = std::nullopt;
  old.ranges[0].restore = std::nullopt;
  old.ranges[0].counter_ranges = std::nullopt;
  old.ranges[0].timings.pass0_ms = std::nullopt;
  old.launcher_ms = old.gate_wait_ms = std::nullopt;
  old.time_budget = std::nullopt;
  const std::string in = tree.path("old.json"), out = tree.path("new.json");
  ASSERT_TRUE(report::write_report_json(old, in).ok());
  EXPECT_EQ(run_launcher({"rangereplay", "report", in, "-o", out}), 0);
  const StatusOr<std::string> written = report::read_text_file(out);
  ASSERT_TRUE(written.ok());
  for (const char* key :
       {"launch_index", "restore", "counter_ranges", "pass0_ms", "launcher_ms", "gate_wait_ms", "time_budget"}) {
    EXPECT_EQ(written->find(std::string("\"") + key + "\""), std::string::npos) << key << " in " << *written;
  }
  const StatusOr<report::Report> back = report::read_report_json(out);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, old);
}

TEST(ApplicationEnvironment, sets_the_injection_nvtx_config_and_gate_variables_and_nothing_else) {
  const std::map<std::string, std::string> env = application_environment(
      "/opt/rr/librangereplay_inject.so", "/usr/local/cuda/lib64/libcupti.so.13", "/tmp/c.json", "5:123456");
  const std::map<std::string, std::string> expected{{"CUDA_INJECTION64_PATH", "/opt/rr/librangereplay_inject.so"},
                                                    {"NVTX_INJECTION64_PATH", "/usr/local/cuda/lib64/libcupti.so.13"},
                                                    {"RANGEREPLAY_CONFIG", "/tmp/c.json"},
                                                    {"RANGEREPLAY_GATE", "5:123456"}};
  EXPECT_EQ(env, expected);
  EXPECT_EQ(env.count("CUDA_MODULE_LOADING"), 0u) << "the user's module loading mode is left alone";
}

// --replay-mode app-range and --set triage profile in the application's
// own run (the launcher's one-run path); range replay does not.
TEST(Launcher, app_range_and_triage_profile_in_the_application_run) {
  ProfileRequest request;
  EXPECT_FALSE(profiles_in_the_application_run(request));
  request.set_name = "full";
  EXPECT_FALSE(profiles_in_the_application_run(request));
  request.set_name = "triage";
  EXPECT_TRUE(profiles_in_the_application_run(request));
  request.set_name = "basic";
  request.replay_mode = ReplayMode::kAppRange;
  EXPECT_TRUE(profiles_in_the_application_run(request));
}

}  // namespace
}  // namespace rangereplay::cli
