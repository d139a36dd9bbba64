// The whole tool on the fakes (tool_harness.h): ranges from NVTX markers,
// recorded, snapshotted, replayed once per counter pass with the memory
// restored before each, deferred and replayed in a batch or at their own
// end, declined with their reason, and the fake counters' values in the
// report.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/base/environment.h"
#include "tool/tool_harness.h"

namespace rangereplay::tool::testing {
namespace {

TEST_F(ToolHarness, an_immediate_range_is_replayed_once_per_pass_and_memory_is_restored) {
  config_.batch_ranges = 0;  // --batch-ranges off
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  // Replayed at its own end: pass 0 (the application's run) and one replay
  // per counter pass, and the buffer holds what one run leaves.
  EXPECT_EQ(fake::counts().launches, 1u + 3u);
  expect_all(read(data, kInts), 1);
  const report::Report report = finish();
  ASSERT_EQ(report.ranges.size(), 1u);
  const report::RangeRecord& r = report.ranges[0];
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.name, "step");
  EXPECT_EQ(r.passes, 1u + 3u);
  EXPECT_EQ(fake::counters().passes, 3u);
  EXPECT_EQ(report.counter_backend, "fake");  // the backend set_up_counters named
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "add_one");
  ASSERT_EQ(r.kernels[0].metrics.size(), 2u);
  EXPECT_EQ(r.kernels[0].metrics[0].name, "sm__cycles_elapsed.avg");
  // Each pass's first counter range is the lead-in L2 flush's, left out:
  // the kernel's values are the fake's second row.
  EXPECT_EQ(r.kernels[0].metrics[0].value, fake::counter_value(1, 0));
  EXPECT_EQ(r.kernels[0].metrics[1].value, fake::counter_value(1, 1));
}

TEST_F(ToolHarness, ranges_are_deferred_and_replayed_together_at_the_flush) {
  start();  // --batch-ranges 16, the default
  const CUdeviceptr data = buffer(kInts);
  for (int i = 0; i < 3; ++i) range("step", [&] { add_one(data, kInts); });
  // Pass 0 of each ran in the application's time; their replays wait.
  EXPECT_EQ(fake::counts().launches, 3u);
  expect_all(read(data, kInts), 3);
  const report::Report report = finish();
  // The exit flush replayed each range once per counter pass, restoring
  // its entry state, and left the memory as the application did.
  EXPECT_EQ(fake::counts().launches, 3u + 3u * 3u);
  expect_all(read(data, kInts), 3);
  ASSERT_EQ(report.ranges.size(), 3u);
  for (const report::RangeRecord& r : report.ranges) {
    EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.passes, 1u + 3u);
    ASSERT_EQ(r.kernels.size(), 1u);
    EXPECT_EQ(r.kernels[0].metrics.size(), 2u);
  }
}

TEST_F(ToolHarness, memory_allocated_in_a_range_starts_every_replay_with_its_bytes_when_allocated) {
  start();  // batching on: a range that allocated is replayed at its own end
  // Notes the first int it finds, then overwrites it: every pass must find
  // the bytes the allocation had. The second int numbers the passes (1 to
  // 4): the application must be left with pass 0's, which only the exit
  // restore gives back (every replay would leave the same value otherwise).
  static std::vector<int> seen;
  seen.clear();
  CUfunction note_and_stamp = fake::register_kernel("note_and_stamp", {sizeof(CUdeviceptr)}, [](void** params) {
    int* p = reinterpret_cast<int*>(*static_cast<CUdeviceptr*>(params[0]));
    seen.push_back(p[0]);
    p[0] = 99;
    p[1] = static_cast<int>(seen.size());
  });
  const CUdeviceptr data = buffer(kInts);
  CUdeviceptr extra = 0;
  range("step", [&] {
    add_one(data, kInts);
    ASSERT_EQ(fake::app_mem_alloc(&extra, 4096), CUDA_SUCCESS);  // the fake's memory starts as zeros
    void* params[] = {&extra};
    ASSERT_EQ(fake::app_launch(note_and_stamp, params), CUDA_SUCCESS);
  });
  EXPECT_EQ(seen.size(), 4u) << "replayed at its own end, not deferred to a batch";
  expect_all(read(data, kInts), 1);
  const std::vector<int> after = read(extra, 2);
  EXPECT_EQ(after, (std::vector<int>{99, 1})) << "the application's memory is what its own run (pass 0) left";
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 4u);
  EXPECT_EQ(seen, std::vector<int>(4, 0)) << ::testing::PrintToString(seen);
  bool noted = false;
  for (const std::string& note : r.notes) noted = noted || note.find("4096 bytes of device memory allocated") == 0;
  EXPECT_TRUE(noted) << ::testing::PrintToString(r.notes);
}

// A pitched allocation of kPitchedRows rows of kPitchedWidth bytes, which
// the fake's cuMemAllocPitch widens to kPitchedPitch bytes per row.
constexpr std::size_t kPitchedWidth = 200;
constexpr std::size_t kPitchedPitch = 256;
constexpr std::size_t kPitchedRows = 4;

TEST_F(ToolHarness, pitched_memory_allocated_in_a_range_is_kept_to_the_end_of_its_last_pitch) {
  config_.batch_ranges = 0;
  start();
  // Notes and overwrites the last int of the last row's padding: kept only
  // when the driver's pitch, not the requested width, sizes the allocation.
  static std::vector<int> seen;
  seen.clear();
  CUfunction stamp_last = fake::register_kernel("stamp_last", {sizeof(CUdeviceptr)}, [](void** params) {
    int* p = reinterpret_cast<int*>(*static_cast<CUdeviceptr*>(params[0]));
    int& last = p[kPitchedPitch * kPitchedRows / sizeof(int) - 1];
    seen.push_back(last);
    last = 7;
  });
  const CUdeviceptr data = buffer(kInts);
  CUdeviceptr pitched = 0;
  std::size_t pitch = 0;
  range("step", [&] {
    add_one(data, kInts);
    cuMemAllocPitch_v2_params p{&pitched, &pitch, kPitchedWidth, kPitchedRows, 4};
    ASSERT_EQ(fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, "cuMemAllocPitch_v2", p,
                             [&] {
                               pitch = kPitchedPitch;
                               return cuMemAlloc(&pitched, kPitchedPitch * kPitchedRows);
                             }),
              CUDA_SUCCESS);
    void* params[] = {&pitched};
    ASSERT_EQ(fake::app_launch(stamp_last, params), CUDA_SUCCESS);
  });
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 4u);
  EXPECT_EQ(seen, std::vector<int>(4, 0)) << ::testing::PrintToString(seen);
  bool noted = false;
  for (const std::string& note : r.notes) noted = noted || note.find("1024 bytes of device memory allocated") == 0;
  EXPECT_TRUE(noted) << ::testing::PrintToString(r.notes);
}

TEST_F(ToolHarness, memory_allocated_and_freed_in_a_range_is_replayed_before_the_free) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] {
    CUdeviceptr extra = 0;
    ASSERT_EQ(fake::app_mem_alloc(&extra, 4096), CUDA_SUCCESS);
    add_one(extra, 1024);
    add_one(data, kInts);
    ASSERT_EQ(fake::app_mem_free(extra), CUDA_SUCCESS);
  });
  EXPECT_EQ(fake::counts().launches, 2u + 2u * 3u) << "replayed while the memory existed";
  expect_all(read(data, kInts), 1);
  const report::RangeRecord r = only_range(finish());
  ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.kernels.size(), 2u);
}

TEST_F(ToolHarness, memory_allocated_while_pass_0_is_counted_stops_pass_0s_counters_first) {
  config_.batch_ranges = 0;  // a whole-range pass 0 that is not deferred counts the application's run
  config_.range_metrics = RangeMetrics::kWholeRange;
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] {
    add_one(data, kInts);
    CUdeviceptr extra = 0;
    ASSERT_EQ(fake::app_mem_alloc(&extra, 4096), CUDA_SUCCESS);
    add_one(extra, 1024);
  });
  expect_all(read(data, kInts), 1);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  // The tool's copy of the new memory is in no counted pass: the 3 counter
  // passes are all replays after pass 0.
  EXPECT_EQ(r.passes, 4u);
  bool stopped = false;
  for (const std::string& note : r.notes)
    stopped = stopped || note.find("pass 0's counters were stopped when device memory was allocated") == 0;
  EXPECT_TRUE(stopped) << ::testing::PrintToString(r.notes);
}

TEST_F(ToolHarness, memory_allocated_in_a_range_past_the_cap_declines_it_with_its_reason) {
  config_.batch_ranges = 0;
  config_.snapshot_host_limit = 2 << 20;  // half of it for the allocations' two copies
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] {
    CUdeviceptr extra = 0;
    ASSERT_EQ(fake::app_mem_alloc(&extra, (1 << 20) + 16), CUDA_SUCCESS);
    add_one(data, kInts);
  });
  EXPECT_EQ(fake::counts().launches, 1u) << "a declined range is not replayed";
  expect_all(read(data, kInts), 1);
  const report::Report report = finish();
  ASSERT_EQ(report.ranges.size(), 1u);
  EXPECT_TRUE(report.ranges[0].declined);
  EXPECT_EQ(report.ranges[0].decline_reason, "allocation_in_range");
  EXPECT_NE(report.ranges[0].decline_detail.find("cuMemAlloc_v2 inside the range: the range allocated 1.0 MiB"),
            std::string::npos)
      << report.ranges[0].decline_detail;
}

TEST_F(ToolHarness, counters_that_cannot_be_set_up_decline_the_range) {
  fake::configure_counters({.pass_count = 3, .setup_error = failed_precondition("no counters on the fake")});
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();
  ASSERT_EQ(report.ranges.size(), 1u);
  EXPECT_TRUE(report.ranges[0].declined);
  EXPECT_EQ(report.ranges[0].decline_reason, "counters_unavailable");
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, a_range_outside_the_expression_is_not_profiled) {
  // Without the counter prewarm, which sets the counters up at the first
  // allocation whether a range follows or not.
  if (environment::counter_prewarm()) {
    expect_test_passes_with(environment::kCounterPrewarm, "ToolHarness.a_range_outside_the_expression_is_not_profiled",
                            "0");
    return;
  }
  start();
  const CUdeviceptr data = buffer(kInts);
  range("warmup", [&] { add_one(data, kInts); });
  const report::Report report = finish();
  EXPECT_TRUE(report.ranges.empty());
  EXPECT_EQ(fake::counts().launches, 1u);
  EXPECT_FALSE(fake::counters().set_up);
}

}  // namespace
}  // namespace rangereplay::tool::testing
