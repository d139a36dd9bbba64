// The CPU tests' fixture for the whole tool (tests/tool): a ProfilerTool of
// its own per test, started as the injection starts it (its configuration
// written to a file named by RANGEREPLAY_CONFIG, CUPTI subscribed: here the
// fake's), over a fresh fake device, with a test kernel that adds 1 to each
// int of a buffer (so a replay without a restore would leave it visibly
// wrong). The "application" calls the driver through fake::app_* and marks
// ranges with fake::nvtx_push/nvtx_pop; the report is read back from the
// JSON the tool writes at finish().
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/config/profile_config.h"
#include "report/report_json.h"
#include "support/child_wait.h"
#include "tool/fakes/fake_counters.h"
#include "tool/fakes/fake_cuda.h"
#include "tool/profiler_tool.h"

namespace rangereplay::tool::testing {

/// Ints in the buffers the tests' ranges run add_one over.
inline constexpr int kInts = 4096;

/// Each range runs add_one once: after N ranges the buffer holds N, as
/// without the tool, however many passes each range was replayed.
inline void expect_all(const std::vector<int>& values, int expected) {
  ASSERT_EQ(values.size(), static_cast<std::size_t>(kInts));
  for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(values[i], expected) << "int " << i;
}

/// The report's one range (a copy: the report is a temporary).
inline report::RangeRecord only_range(const report::Report& report) {
  EXPECT_EQ(report.ranges.size(), 1u);
  return report.ranges.empty() ? report::RangeRecord{} : report.ranges[0];
}

/// The environment is read once per process. Runs the test
/// ToolHarness.`name` (or `name` itself when it names the suite, as
/// "Suite.test") of this binary again in a process of its own with the
/// environment variable `variable` set to `value` (unset for nullptr), and
/// expects that run to pass within 30 s. The child's environment is built
/// before the fork: between fork and exec the child only calls execve and
/// _exit.
inline void expect_test_passes_with(const char* variable, const char* name, const char* value) {
  using namespace std::chrono_literals;
  const std::string filter =
      std::string("--gtest_filter=") + (std::string(name).find('.') == std::string::npos ? "ToolHarness." : "") + name;
  const std::string prefix = std::string(variable) + "=";
  std::vector<std::string> variables;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::string(*e).rfind(prefix, 0) != 0) variables.emplace_back(*e);
  if (value != nullptr) variables.push_back(prefix + value);
  std::vector<char*> envp;
  for (std::string& v : variables) envp.push_back(v.data());
  envp.push_back(nullptr);
  char self[] = "/proc/self/exe";
  char* argv[] = {self, const_cast<char*>(filter.c_str()), nullptr};
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::execve(self, argv, envp.data());
    ::_exit(127);
  }
  // Within ctest's limit on this test, so that the message below is seen.
  int status = 0;
  ASSERT_TRUE(rangereplay::testing::ended_within(child, 30s, &status)) << name << " ran for more than 30 s";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << name << " failed with " << variable << "="
                                    << (value == nullptr ? "(unset)" : value);
}

class ToolHarness : public ::testing::Test {
 protected:
  void SetUp() override {
    fake::reset(device_);
    fake::configure_counters({});
    // One folder per process: the tool reads $RANGEREPLAY_CONFIG once per
    // process (environment.h), so every test's configuration has one path.
    dir_ = std::filesystem::temp_directory_path() / ("rangereplay_tool_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    config_.nvtx_include = {*range::parse_nvtx_expression("step/")};
    config_.metrics = {"sm__cycles_elapsed.avg", "dram__bytes.sum"};
    config_.quiet = true;
    config_.report_path = (dir_ / "report.json").string();
    add_one_ = fake::register_kernel("add_one", {sizeof(CUdeviceptr), sizeof(int)}, [](void** params) {
      int* data = reinterpret_cast<int*>(*static_cast<CUdeviceptr*>(params[0]));
      const int n = *static_cast<int*>(params[1]);
      for (int i = 0; i < n; ++i) data[i] += 1;
    });
  }
  void TearDown() override {
    tool_.reset();
    fake::reset();
    ::unsetenv("RANGEREPLAY_CONFIG");
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  /// Writes config_ and starts a tool on it (subscribed to the fake).
  void start() {
    const std::string path = (dir_ / "config.json").string();
    ASSERT_TRUE(write_profile_config(config_, path).ok());
    ::setenv("RANGEREPLAY_CONFIG", path.c_str(), 1);
    tool_ = std::make_unique<ProfilerTool>();
    const Status s = tool_->initialize();
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(fake::subscribed());
  }

  /// A device buffer of `n` ints, all `value`.
  CUdeviceptr buffer(int n, int value = 0) {
    CUdeviceptr p = 0;
    EXPECT_EQ(fake::app_mem_alloc(&p, sizeof(int) * static_cast<std::size_t>(n)), CUDA_SUCCESS);
    const std::vector<int> host(static_cast<std::size_t>(n), value);
    EXPECT_EQ(fake::app_memcpy_htod(p, host.data(), host.size() * sizeof(int)), CUDA_SUCCESS);
    return p;
  }
  std::vector<int> read(CUdeviceptr p, int n) {
    std::vector<int> host(static_cast<std::size_t>(n));
    EXPECT_EQ(fake::app_memcpy_dtoh(host.data(), p, host.size() * sizeof(int)), CUDA_SUCCESS);
    return host;
  }
  /// The application's launch of add_one over `n` ints at `p`.
  void add_one(CUdeviceptr p, int n) {
    void* params[] = {&p, &n};
    ASSERT_EQ(fake::app_launch(add_one_, params), CUDA_SUCCESS);
  }
  /// One NVTX range `name` around `body`.
  template <class Body>
  void range(const char* name, Body body) {
    fake::nvtx_push(name);
    body();
    fake::nvtx_pop();
  }

  /// Ends the process's profile (the exit handlers' steps) and reads the report.
  report::Report finish() {
    tool_->replay_deferred_at_exit();
    tool_->finish();
    StatusOr<report::Report> r = report::read_report_json(config_.report_path);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : report::Report{};
  }

  std::filesystem::path dir_;
  // The fake device SetUp() configures (set it in a fixture's constructor).
  // Its 1 GiB leaves the device tier no budget: snapshots lie in the pinned
  // tier unless a fixture gives it more.
  fake::DeviceOptions device_;
  ProfileConfig config_;
  CUfunction add_one_ = nullptr;
  std::unique_ptr<ProfilerTool> tool_;
};

}  // namespace rangereplay::tool::testing
