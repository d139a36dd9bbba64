// The counter set-up on a tool thread before the first range (the default,
// unless RANGEREPLAY_COUNTER_PREWARM=0) as the whole tool runs it: started
// at the application's first allocation, adopted by the first range, kept
// out of an open capture's way, dropped before a context's end; with the
// variable at 0 the first range sets the counters up itself. The variable is read
// once per process: each test runs itself again in a process of its own
// with the value it needs.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/base/environment.h"
#include "tool/fakes/fake_counters.h"
#include "tool/fakes/fake_cuda.h"
#include "tool_harness.h"

namespace rangereplay::tool::testing {
namespace {

using namespace std::chrono_literals;

// The running test's name (for running it again in a process of its own).
const char* this_test() { return ::testing::UnitTest::GetInstance()->current_test_info()->name(); }

// Whether this process runs with the prewarm on (the variable unset, the
// default); if not, runs this test again without it and returns false (the
// caller returns).
bool with_prewarm() {
  if (environment::counter_prewarm()) return true;
  expect_test_passes_with(environment::kCounterPrewarm, this_test(), nullptr);
  return false;
}

// Waits until the fake set-up has begun a step (at most 10 s).
bool a_step_began() {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (fake::setup_steps_begun() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  return fake::setup_steps_begun() > 0;
}

CUresult destroy_context(CUcontext ctx) {
  cuCtxDestroy_v2_params destroy{ctx};
  return fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2, "cuCtxDestroy_v2", destroy,
                        [] { return CUDA_SUCCESS; });
}

CUresult begin_capture(CUstream stream) {
  cuStreamBeginCapture_v2_params begin{stream, CU_STREAM_CAPTURE_MODE_GLOBAL};
  return fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", begin,
                        [] { return CUDA_SUCCESS; });
}

CUresult end_capture(CUstream stream) {
  CUgraph graph = nullptr;
  cuStreamEndCapture_params end{stream, &graph};
  return fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", end,
                        [] { return CUDA_SUCCESS; });
}

TEST_F(ToolHarness, the_first_allocation_sets_the_counters_up_on_a_tool_thread_for_the_first_range) {
  if (!with_prewarm()) return;
  fake::configure_counters({.pass_count = 3, .setup_step_time = 20ms});
  start();
  fake::context_created();
  const CUdeviceptr data = buffer(kInts);  // the first allocation: the set-up starts
  range("step", [&] { add_one(data, kInts); });
  range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();
  const fake::CounterLog log = fake::counters();
  EXPECT_EQ(log.set_ups, 1u);
  EXPECT_NE(log.set_up_thread, std::this_thread::get_id()) << "set up on a thread of the tool";
  ASSERT_EQ(report.ranges.size(), 2u);
  for (const report::RangeRecord& r : report.ranges) {
    EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.passes, 1u + 3u);
  }
  expect_all(read(data, kInts), 2);
}

TEST_F(ToolHarness, the_set_up_on_a_tool_thread_makes_no_call_while_a_capture_is_open) {
  if (!with_prewarm()) return;
  fake::configure_counters({.pass_count = 3, .setup_step_time = 150ms});
  start();
  fake::context_created();
  const CUdeviceptr data = buffer(kInts);
  // Inside the set-up's first step: the capture begin waits for it to end.
  ASSERT_TRUE(a_step_began());
  CUstream stream = nullptr;
  ASSERT_EQ(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  ASSERT_EQ(begin_capture(stream), CUDA_SUCCESS);
  EXPECT_FALSE(fake::setup_step_in_flight()) << "the capture began while a step of the set-up was in flight";
  const std::size_t steps = fake::setup_steps_begun();
  std::this_thread::sleep_for(400ms);  // longer than two steps
  EXPECT_EQ(fake::setup_steps_begun(), steps) << "a step began while the capture was open";
  ASSERT_EQ(end_capture(stream), CUDA_SUCCESS);
  range("step", [&] { add_one(data, kInts); });
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(fake::counters().set_ups, 1u);
  EXPECT_NE(fake::counters().set_up_thread, std::this_thread::get_id());
  expect_all(read(data, kInts), 1);
}

// The range `r` was profiled, over the set-up made on a tool thread
// (`adopted`), or over one it made again on its own thread after that one
// was dropped.
void expect_set_up_once_more(const report::RangeRecord& r, bool adopted) {
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(fake::counters().set_ups, adopted ? 1u : 2u);
  EXPECT_EQ(fake::counters().set_up_thread == std::this_thread::get_id(), !adopted);
}

TEST_F(ToolHarness, the_end_of_its_context_drops_the_set_up_made_on_a_tool_thread) {
  if (!with_prewarm()) return;
  start();
  fake::context_created();
  const CUdeviceptr data = buffer(kInts);
  // The fake's one context lives on for the range below.
  ASSERT_EQ(destroy_context(fake::context()), CUDA_SUCCESS);
  range("step", [&] { add_one(data, kInts); });
  expect_set_up_once_more(only_range(finish()), /*adopted=*/false);
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, another_contexts_end_leaves_the_set_up_made_on_a_tool_thread) {
  if (!with_prewarm()) return;
  start();
  fake::context_created();
  const CUdeviceptr data = buffer(kInts);
  ASSERT_EQ(destroy_context(reinterpret_cast<CUcontext>(0x1234)), CUDA_SUCCESS);
  range("step", [&] { add_one(data, kInts); });
  expect_set_up_once_more(only_range(finish()), /*adopted=*/true);
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, with_the_variable_at_0_the_first_range_sets_the_counters_up_itself) {
  if (environment::counter_prewarm()) {
    expect_test_passes_with(environment::kCounterPrewarm, this_test(), "0");
    return;
  }
  start();
  fake::context_created();
  const CUdeviceptr data = buffer(kInts);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(fake::setup_steps_begun(), 0u);
  range("step", [&] { add_one(data, kInts); });
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(fake::counters().set_ups, 1u);
  EXPECT_EQ(fake::counters().set_up_thread, std::this_thread::get_id());
}

}  // namespace
}  // namespace rangereplay::tool::testing
