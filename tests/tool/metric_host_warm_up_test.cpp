// The metric host library's warm-up (RANGEREPLAY_METRIC_HOST_WARMUP, on
// unless "0") as the whole tool runs it: started on a thread of the tool at
// the application's first context, once per process, waited for at finish,
// and the ranges profiled as without it; with the variable 0, nothing starts.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "core/base/environment.h"
#include "tool/fakes/fake_counters.h"
#include "tool/fakes/fake_cuda.h"
#include "tool_harness.h"

namespace rangereplay::tool::testing {
namespace {

using namespace std::chrono_literals;

// The environment is read once per process. Runs the test `name` of this
// binary again in a process of its own with RANGEREPLAY_METRIC_HOST_WARMUP
// set to `value` (unset for nullptr) and expects that run to pass.
void expect_passes_with(const char* name, const char* value) {
  const std::string filter = std::string("--gtest_filter=ToolHarness.") + name;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (value == nullptr)
      ::unsetenv(environment::kMetricHostWarmUp);
    else
      ::setenv(environment::kMetricHostWarmUp, value, 1);
    char self[] = "/proc/self/exe";
    char* argv[] = {self, const_cast<char*>(filter.c_str()), nullptr};
    ::execv(self, argv);
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << name << " failed with RANGEREPLAY_METRIC_HOST_WARMUP="
                                    << (value == nullptr ? "(unset)" : value);
}

// The default: run with the variable unset.
TEST_F(ToolHarness, the_first_context_starts_the_metric_host_library_once_on_a_thread_of_the_tool) {
  if (::getenv(environment::kMetricHostWarmUp) != nullptr) {
    expect_passes_with("the_first_context_starts_the_metric_host_library_once_on_a_thread_of_the_tool", nullptr);
    return;
  }
  ASSERT_TRUE(environment::metric_host_warm_up());
  fake::set_metric_host_warm_up_time(200ms);  // still running when the range ends
  start();
  const std::size_t before = fake::metric_host_warm_ups();
  fake::context_created();
  fake::context_created();  // a second context: nothing more starts
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();  // the tool's exit step waits for the thread
  fake::set_metric_host_warm_up_time(0ms);
  EXPECT_EQ(fake::metric_host_warm_ups(), before + 1);
  EXPECT_NE(fake::last_metric_host_warm_up_thread(), std::this_thread::get_id());
  // The range is profiled as without the warm-up.
  const report::RangeRecord r = only_range(report);
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 1u + 3u);
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, a_process_that_creates_no_context_starts_no_warm_up) {
  start();
  const std::size_t before = fake::metric_host_warm_ups();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();
  EXPECT_EQ(fake::metric_host_warm_ups(), before);
  EXPECT_FALSE(only_range(report).declined);
}

// With the variable 0 (run in a process of its own), nothing starts.
TEST_F(ToolHarness, with_the_variable_0_the_first_context_starts_nothing) {
  if (environment::metric_host_warm_up()) {
    expect_passes_with("with_the_variable_0_the_first_context_starts_nothing", "0");
    return;
  }
  start();
  const std::size_t before = fake::metric_host_warm_ups();
  fake::context_created();
  const report::Report report = finish();
  EXPECT_EQ(fake::metric_host_warm_ups(), before);
}

}  // namespace
}  // namespace rangereplay::tool::testing
