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
#include <vector>

#include "core/base/environment.h"
#include "support/child_wait.h"
#include "tool/fakes/fake_counters.h"
#include "tool/fakes/fake_cuda.h"
#include "tool_harness.h"

namespace rangereplay::tool::testing {
namespace {

using namespace std::chrono_literals;

// Runs the test `name` again in a process of its own with the variable set
// to `value` (tool_harness.h).
void expect_passes_with(const char* name, const char* value) {
  expect_test_passes_with(environment::kMetricHostWarmUp, name, value);
}

// The default: run with the variable unset.
TEST_F(ToolHarness, the_first_context_starts_the_metric_host_library_once_on_a_thread_of_the_tool) {
  if (::getenv(environment::kMetricHostWarmUp) != nullptr) {
    expect_passes_with("the_first_context_starts_the_metric_host_library_once_on_a_thread_of_the_tool", nullptr);
    return;
  }
  ASSERT_TRUE(environment::metric_host_warm_up());
  fake::set_metric_host_warm_up_time(500ms);
  start();
  const std::size_t before = fake::metric_host_warm_ups();
  const std::size_t begun = fake::metric_host_warm_ups_begun();
  fake::context_created();
  fake::context_created();  // a second context: nothing more starts
  // Begun, and most likely still running when the range begins: the counter
  // set-up waits for it.
  ASSERT_TRUE(fake::metric_host_warm_ups_begun_over(begun, 5s));
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();
  fake::set_metric_host_warm_up_time(0ms);
  EXPECT_TRUE(fake::counters().set_up);
  EXPECT_FALSE(fake::counters().set_up_during_metric_host_warm_up);
  EXPECT_EQ(fake::metric_host_warm_ups(), before + 1);
  EXPECT_NE(fake::last_metric_host_warm_up_thread(), std::this_thread::get_id());
  // The range is profiled as without the warm-up.
  const report::RangeRecord r = only_range(report);
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 1u + 3u);
  expect_all(read(data, kInts), 1);
}

// A warm-up that runs past the set-up's wait: the range declines, and so
// does every later one (the counters stay off, as after any failed set-up),
// with no device-side set-up call; the application's work runs on.
TEST_F(ToolHarness, a_warm_up_past_the_wait_declines_the_ranges_counters_unavailable) {
  fake::configure_counters(
      {.pass_count = 3, .host_ready_error = unavailable("CUPTI's profiler host library has been initializing")});
  start();
  fake::context_created();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();
  EXPECT_FALSE(fake::counters().set_up);
  ASSERT_EQ(report.ranges.size(), 2u);
  for (const report::RangeRecord& r : report.ranges) {
    EXPECT_TRUE(r.declined);
    EXPECT_EQ(r.decline_reason, "counters_unavailable");
    EXPECT_NE(r.decline_detail.find("host library has been initializing"), std::string::npos) << r.decline_detail;
  }
  expect_all(read(data, kInts), 2);
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
