// The metric host library's warm-up (RANGEREPLAY_METRIC_HOST_WARMUP=1) as the
// whole tool runs it: started on a thread of the tool at the application's
// first context, once per process, waited for at finish, and the ranges
// profiled as without it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <thread>

#include "core/base/environment.h"
#include "tool/fakes/fake_counters.h"
#include "tool/fakes/fake_cuda.h"
#include "tool_harness.h"

namespace rangereplay::tool::testing {
namespace {

// The environment is read once per process: set before any test runs.
const bool kWarmUpOn = ::setenv(environment::kMetricHostWarmUp, "1", 1) == 0;

TEST_F(ToolHarness, the_first_context_starts_the_metric_host_library_once_on_a_thread_of_the_tool) {
  ASSERT_TRUE(kWarmUpOn);
  ASSERT_TRUE(environment::metric_host_warm_up());
  start();
  const std::size_t before = fake::metric_host_warm_ups();
  fake::context_created();
  fake::context_created();  // a second context: nothing more starts
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();  // waits for the warm-up thread
  EXPECT_EQ(fake::metric_host_warm_ups(), before + 1);
  EXPECT_NE(fake::last_metric_host_warm_up_thread(), std::this_thread::get_id());
  // The range is profiled as without the warm-up.
  const report::RangeRecord r = only_range(report);
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 1u + 3u);
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, a_process_that_creates_no_context_starts_no_warm_up) {
  ASSERT_TRUE(kWarmUpOn);
  start();
  const std::size_t before = fake::metric_host_warm_ups();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();
  EXPECT_EQ(fake::metric_host_warm_ups(), before);
  EXPECT_FALSE(only_range(report).declined);
}

}  // namespace
}  // namespace rangereplay::tool::testing
