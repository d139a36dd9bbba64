// The metric host library's warm-up (RANGEREPLAY_METRIC_HOST_WARMUP=1) as the
// whole tool runs it: started on a thread of the tool at the application's
// first context, once per process, waited for at finish, and the ranges
// profiled as without it; without the variable, nothing starts.
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

// The environment is read once per process: set before any test runs,
// unless the test that checks the default re-ran this binary with it off.
const bool kWarmUpSet = ::setenv(environment::kMetricHostWarmUp, "1", /*overwrite=*/0) == 0;

TEST_F(ToolHarness, the_first_context_starts_the_metric_host_library_once_on_a_thread_of_the_tool) {
  ASSERT_TRUE(kWarmUpSet);
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
  ASSERT_TRUE(kWarmUpSet);
  start();
  const std::size_t before = fake::metric_host_warm_ups();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();
  EXPECT_EQ(fake::metric_host_warm_ups(), before);
  EXPECT_FALSE(only_range(report).declined);
}

// The default: with the variable off, this test runs its checks; with it on
// (the rest of this binary), it runs itself again in a process of its own
// with RANGEREPLAY_METRIC_HOST_WARMUP=0 and passes when that run does.
TEST_F(ToolHarness, without_the_variable_the_first_context_starts_nothing) {
  if (environment::metric_host_warm_up()) {
    const std::string filter = "--gtest_filter=ToolHarness.without_the_variable_the_first_context_starts_nothing";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::setenv(environment::kMetricHostWarmUp, "0", 1);
      char self[] = "/proc/self/exe";
      char* argv[] = {self, const_cast<char*>(filter.c_str()), nullptr};
      ::execv(self, argv);
      ::_exit(127);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the run with RANGEREPLAY_METRIC_HOST_WARMUP=0 failed";
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
