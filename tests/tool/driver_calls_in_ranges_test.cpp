// Driver calls other than launches, in and around ranges, on the fakes
// (tool_harness.h): memsets and copies replayed with the kernels,
// device-to-host copies and host functions left out, mapped host memory a
// kernel writes, write-set snapshots, stream captures and graphs, profiler
// API ranges, teardown calls that replay a deferred batch, and application
// range runs.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "tool/tool_harness.h"

namespace rangereplay::tool::testing {
namespace {

bool has_note(const report::RangeRecord& r, const std::string& part) {
  for (const std::string& note : r.notes)
    if (note.find(part) != std::string::npos) return true;
  return false;
}

CUresult app_memset(CUdeviceptr dst, unsigned char value, std::size_t n) {
  cuMemsetD8_v2_params p{dst, value, n};
  return fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, "cuMemsetD8_v2", p,
                        [&] { return cuMemsetD8Async(dst, value, n, nullptr); });
}

CUresult app_copy_dtod(CUdeviceptr dst, CUdeviceptr src, std::size_t n) {
  cuMemcpyDtoD_v2_params p{dst, src, n};
  return fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, "cuMemcpyDtoD_v2", p,
                        [&] { return cuMemcpyDtoDAsync(dst, src, n, nullptr); });
}

TEST_F(ToolHarness, memsets_and_copies_in_a_range_replay_and_device_to_host_copies_do_not) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr a = buffer(kInts);
  const CUdeviceptr b = buffer(kInts, 7);
  std::vector<int> out(kInts);
  range("step", [&] {
    ASSERT_EQ(app_memset(a, 0, kInts * sizeof(int)), CUDA_SUCCESS);
    add_one(a, kInts);
    ASSERT_EQ(app_copy_dtod(b, a, kInts * sizeof(int)), CUDA_SUCCESS);
    add_one(b, kInts);
    ASSERT_EQ(fake::app_memcpy_dtoh(out.data(), b, out.size() * sizeof(int)), CUDA_SUCCESS);
  });
  for (int v : read(a, kInts)) ASSERT_EQ(v, 1);
  for (int v : read(b, kInts)) ASSERT_EQ(v, 2);
  for (int v : out) ASSERT_EQ(v, 2);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.kernels.size(), 2u);
  EXPECT_TRUE(has_note(r, "device-to-host")) << ::testing::PrintToString(r.notes);
}

TEST_F(ToolHarness, mapped_host_memory_a_kernel_writes_is_restored_before_each_replay) {
  config_.batch_ranges = 0;
  start();
  void* host = nullptr;
  cuMemHostAlloc_params p{&host, kInts * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP};
  ASSERT_EQ(fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, "cuMemHostAlloc", p,
                           [&] { return cuMemHostAlloc(&host, kInts * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP); }),
            CUDA_SUCCESS);
  const CUdeviceptr mapped = reinterpret_cast<CUdeviceptr>(host);
  range("step", [&] { add_one(mapped, kInts); });
  const int* ints = static_cast<const int*>(host);
  for (int i = 0; i < kInts; ++i) ASSERT_EQ(ints[i], 1) << i;
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 4u);
}

TEST_F(ToolHarness, a_region_over_both_snapshot_limits_is_snapshotted_as_its_write_set) {
  config_.batch_ranges = 0;
  config_.snapshot_device_limit = 2 << 20;
  config_.snapshot_host_limit = 2 << 20;
  start();
  constexpr int kBig = 16 << 20;  // 64 MiB of ints, a write set's least; the kernel writes the first kInts
  const CUdeviceptr data = buffer(kBig);
  ASSERT_EQ(app_memset(data + (40 << 20), 7, 1 << 20), CUDA_SUCCESS);  // one chunk not zero
  for (int i = 0; i < 2; ++i) range("step", [&] { add_one(data, kInts); });
  const std::vector<int> after = read(data, kBig);
  for (int i = 0; i < kBig; ++i) {
    const int expected = i < kInts ? 2 : (i >= (10 << 20) && i < (10 << 20) + (1 << 18)) ? 0x07070707 : 0;
    ASSERT_EQ(after[static_cast<std::size_t>(i)], expected) << i;
  }
  const report::Report report = finish();
  ASSERT_EQ(report.ranges.size(), 2u);
  // The first instance snapshots the one chunk not zero at entry and
  // restores the chunk it writes, zero at entry, by zeroing it; the second
  // snapshots the chunk the first wrote.
  const report::RangeRecord& first = report.ranges[0];
  EXPECT_FALSE(first.declined) << first.decline_reason << ": " << first.decline_detail;
  EXPECT_EQ(first.passes, 4u);
  EXPECT_EQ(first.footprint_bytes, std::uint64_t{1} << 20);
  EXPECT_TRUE(has_note(first, "the chunks not zero at entry")) << ::testing::PrintToString(first.notes);
  EXPECT_TRUE(has_note(first, "1.0 MiB of chunks zero at entry, restored by zeroing"))
      << ::testing::PrintToString(first.notes);
  const report::RangeRecord& second = report.ranges[1];
  EXPECT_FALSE(second.declined) << second.decline_reason << ": " << second.decline_detail;
  EXPECT_EQ(second.passes, 4u);
  EXPECT_EQ(second.footprint_bytes, std::uint64_t{1} << 20);
  EXPECT_TRUE(has_note(second, "write set from range 0")) << ::testing::PrintToString(second.notes);
}

TEST_F(ToolHarness, a_first_write_set_instance_whose_non_zero_chunks_do_not_fit_learns_the_write_set) {
  config_.batch_ranges = 0;
  config_.snapshot_device_limit = 2 << 20;
  config_.snapshot_host_limit = 2 << 20;
  start();
  constexpr int kBig = 16 << 20;  // 64 MiB of ints, 8 MiB of them not zero: more than the limits hold
  const CUdeviceptr data = buffer(kBig);
  ASSERT_EQ(app_memset(data + (32 << 20), 1, 8 << 20), CUDA_SUCCESS);
  ASSERT_EQ(app_memset(data, 1, 1 << 20), CUDA_SUCCESS);  // the chunk the kernel writes
  for (int i = 0; i < 2; ++i) range("step", [&] { add_one(data, kInts); });
  const std::vector<int> after = read(data, kInts);
  for (int v : after) ASSERT_EQ(v, 0x01010101 + 2);
  const report::Report report = finish();
  ASSERT_EQ(report.ranges.size(), 2u);
  EXPECT_TRUE(report.ranges[0].declined);
  EXPECT_EQ(report.ranges[0].decline_reason, "write_set_learned");
  EXPECT_NE(report.ranges[0].decline_detail.find("not zero at entry did not fit the snapshot"), std::string::npos)
      << report.ranges[0].decline_detail;
  const report::RangeRecord& second = report.ranges[1];
  EXPECT_FALSE(second.declined) << second.decline_reason << ": " << second.decline_detail;
  EXPECT_EQ(second.footprint_bytes, std::uint64_t{1} << 20);
}

TEST_F(ToolHarness, zero_chunks_changed_past_the_host_limit_count_as_unpredicted) {
  config_.batch_ranges = 0;
  config_.snapshot_device_limit = 2 << 20;
  config_.snapshot_host_limit = 2 << 20;  // caps the zeroed chunks' exit bytes too
  start();
  constexpr int kBig = 16 << 20;     // 64 MiB of zeros
  constexpr int kWritten = 3 << 18;  // 3 MiB of ints, over the 2 MiB cap
  const CUdeviceptr data = buffer(kBig);
  range("step", [&] { add_one(data, kWritten); });
  const std::vector<int> after = read(data, kWritten + 1);
  for (int i = 0; i <= kWritten; ++i) ASSERT_EQ(after[static_cast<std::size_t>(i)], i < kWritten ? 1 : 0) << i;
  const report::RangeRecord r = only_range(finish());
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "write_set_learned");
  EXPECT_NE(r.decline_detail.find("more than the 2.0 MiB restored by zeroing"), std::string::npos) << r.decline_detail;
  EXPECT_NE(r.decline_detail.find("3.0 MiB (3145728 bytes)"), std::string::npos) << r.decline_detail;
}

TEST_F(ToolHarness, zeroed_write_set_chunks_get_the_bytes_pass_0_left_at_the_window_end) {
  config_.batch_ranges = 0;
  config_.verify = true;
  config_.snapshot_device_limit = 2 << 20;
  config_.snapshot_host_limit = 2 << 20;
  start();
  // Writes a number that grows with every run into int 100: the replays
  // leave other bytes there than the application's own run did.
  static std::atomic<int> runs{0};
  runs = 0;
  CUfunction stamp = fake::register_kernel("stamp", {sizeof(CUdeviceptr)}, [](void** params) {
    reinterpret_cast<int*>(*static_cast<CUdeviceptr*>(params[0]))[100] = ++runs;
  });
  constexpr int kBig = 16 << 20;  // 64 MiB of zeros
  const CUdeviceptr data = buffer(kBig);
  range("step", [&] {
    CUdeviceptr p = data;
    void* params[] = {&p};
    ASSERT_EQ(fake::app_launch(stamp, params), CUDA_SUCCESS);
  });
  EXPECT_GT(runs.load(), 1);
  const std::vector<int> after = read(data, kInts);
  for (int i = 0; i < kInts; ++i) ASSERT_EQ(after[static_cast<std::size_t>(i)], i == 100 ? 1 : 0) << i;
  const report::Report report = finish();
  // The window's last digests find pass 0's bytes back in the zeroed chunk.
  EXPECT_TRUE(report.errors.empty()) << ::testing::PrintToString(report.errors);
  ASSERT_EQ(report.ranges.size(), 1u);
  const report::RangeRecord& r = report.ranges[0];
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.footprint_bytes, 0u);
  // Each replay's stamp differs from pass 0's: --verify names the chunk.
  std::size_t diverged = 0;
  for (const report::PassRecord& pass : r.pass_records)
    for (const report::Divergence& d : pass.divergences) {
      ++diverged;
      EXPECT_LE(d.address, data + 100 * sizeof(int));
      EXPECT_GE(d.address + d.size_bytes, data + 101 * sizeof(int));
    }
  EXPECT_GT(diverged, 0u);
}

// A first write-set instance that writes a chunk not zero at entry (held by
// its snapshot) and a chunk zero at entry (restored by zeroing): under
// --verify every replay finds the entry state, and the memory ends as the
// application's own run left it (fails when the snapshot's layout is not the
// chunks not zero at entry).
class FirstWriteSetInstance : public ToolHarness {
 protected:
  void writes_a_non_zero_and_a_zero_chunk(RestoreMode restore) {
    config_.restore = restore;
    config_.batch_ranges = 0;
    config_.verify = true;
    config_.snapshot_device_limit = 2 << 20;
    config_.snapshot_host_limit = 2 << 20;
    start();
    constexpr int kBig = 16 << 20;  // 64 MiB of ints
    const CUdeviceptr data = buffer(kBig);
    ASSERT_EQ(app_memset(data, 1, 1 << 20), CUDA_SUCCESS);  // chunk 0 not zero at entry
    const CUdeviceptr zero_chunk = data + (8 << 20);        // chunk 8 zero at entry
    range("step", [&] {
      add_one(data, kInts);
      add_one(zero_chunk, kInts);
    });
    const std::vector<int> head = read(data, 1 << 18);
    for (int i = 0; i < (1 << 18); ++i) ASSERT_EQ(head[static_cast<std::size_t>(i)], 0x01010101 + (i < kInts)) << i;
    expect_all(read(zero_chunk, kInts), 1);
    const report::Report report = finish();
    EXPECT_TRUE(report.errors.empty()) << ::testing::PrintToString(report.errors);
    ASSERT_EQ(report.ranges.size(), 1u);
    const report::RangeRecord& r = report.ranges[0];
    EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.passes, 4u);
    EXPECT_EQ(r.footprint_bytes, std::uint64_t{1} << 20);
    for (const report::PassRecord& pass : r.pass_records) EXPECT_TRUE(pass.divergences.empty()) << pass.pass;
  }
};

TEST_F(FirstWriteSetInstance, restores_a_non_zero_chunk_it_writes_from_its_snapshot) {
  writes_a_non_zero_and_a_zero_chunk(RestoreMode::kDifferential);
}

TEST_F(FirstWriteSetInstance, restores_a_non_zero_chunk_it_writes_under_full_restores) {
  writes_a_non_zero_and_a_zero_chunk(RestoreMode::kFull);
}

TEST_F(ToolHarness, a_stream_capture_open_at_a_range_begin_declines_the_range) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  CUstream stream = nullptr;
  ASSERT_EQ(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  cuStreamBeginCapture_v2_params begin{stream, CU_STREAM_CAPTURE_MODE_GLOBAL};
  ASSERT_EQ(fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", begin,
                           [] { return CUDA_SUCCESS; }),
            CUDA_SUCCESS);
  range("step", [&] { add_one(data, kInts); });
  CUgraph graph = reinterpret_cast<CUgraph>(0x1000);
  cuStreamEndCapture_params end{stream, &graph};
  ASSERT_EQ(fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", end,
                           [] { return CUDA_SUCCESS; }),
            CUDA_SUCCESS);
  const report::Report report = finish();
  const report::RangeRecord r = only_range(report);
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "stream_capture_active");
  for (int v : read(data, kInts)) ASSERT_EQ(v, 1);
}

CUresult app_instantiate(CUgraphExec* exec, CUgraph graph) {
  cuGraphInstantiateWithFlags_params p{exec, graph, 0};
  return fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", p, [&] {
    *exec = fake::instantiate(graph);
    return CUDA_SUCCESS;
  });
}

CUresult app_graph_launch(CUgraphExec exec) {
  cuGraphLaunch_params p{exec, nullptr};
  return fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", p,
                        [&] { return cuGraphLaunch(exec, nullptr); });
}

TEST_F(ToolHarness, a_graph_launched_in_a_range_is_replayed_with_its_kernel_nodes) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  CUdeviceptr p = data;
  int n = kInts;
  void* params[] = {&p, &n};
  CUgraphExec exec = nullptr;
  ASSERT_EQ(app_instantiate(&exec, fake::make_kernel_graph(add_one_, params)), CUDA_SUCCESS);
  range("step", [&] { ASSERT_EQ(app_graph_launch(exec), CUDA_SUCCESS); });
  EXPECT_EQ(fake::counts().launches, 1u + 3u);
  for (int v : read(data, kInts)) ASSERT_EQ(v, 1);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 4u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "add_one");
}

TEST_F(ToolHarness, a_range_that_launches_a_graph_is_not_deferred) {
  start();  // batching on: a graph launch keeps its range out of the batch
  const CUdeviceptr data = buffer(kInts);
  CUdeviceptr p = data;
  int n = kInts;
  void* params[] = {&p, &n};
  CUgraphExec exec = nullptr;
  ASSERT_EQ(app_instantiate(&exec, fake::make_kernel_graph(add_one_, params)), CUDA_SUCCESS);
  range("step", [&] { add_one(data, kInts); });
  EXPECT_EQ(fake::counts().launches, 1u) << "the first range waits in the batch";
  // The application may destroy the executable graph after the range: the
  // range with the graph is replayed at its own end (its graph launched
  // once per counter pass), and the first range still waits.
  range("step", [&] { ASSERT_EQ(app_graph_launch(exec), CUDA_SUCCESS); });
  EXPECT_EQ(fake::counts().graph_launches, 1u + 3u);
  EXPECT_EQ(fake::counts().launches, 2u + 3u);
  for (int v : read(data, kInts)) ASSERT_EQ(v, 2);
  const report::Report report = finish();
  EXPECT_EQ(fake::counts().launches, 2u + 2u * 3u);
  ASSERT_EQ(report.ranges.size(), 2u);
  for (const report::RangeRecord& r : report.ranges) {
    EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.passes, 4u);
  }
}

// A graph the fake does not know: the tool cannot read it at its
// instantiation, and a range that launches it is declined, naming the call
// that failed.
TEST_F(ToolHarness, a_graph_the_tool_could_not_read_declines_the_range_that_launches_it) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  CUgraph graph = reinterpret_cast<CUgraph>(0x2000);
  CUgraphExec exec = nullptr;
  cuGraphInstantiateWithFlags_params inst{&exec, graph, 0};
  ASSERT_EQ(fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", inst,
                           [&] {
                             exec = reinterpret_cast<CUgraphExec>(0x3000);
                             return CUDA_SUCCESS;
                           }),
            CUDA_SUCCESS);
  range("step", [&] {
    add_one(data, kInts);
    cuGraphLaunch_params launch{exec, nullptr};
    ASSERT_EQ(
        fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch", launch, [] { return CUDA_SUCCESS; }),
        CUDA_SUCCESS);
  });
  cuGraphExecDestroy_params destroy{exec};
  ASSERT_EQ(fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy, "cuGraphExecDestroy", destroy,
                           [] { return CUDA_SUCCESS; }),
            CUDA_SUCCESS);
  const report::Report report = finish();
  const report::RangeRecord r = only_range(report);
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "unsupported_api");
  EXPECT_NE(r.decline_detail.find("cuGraphGetNodes"), std::string::npos) << r.decline_detail;
}

TEST_F(ToolHarness, profiler_api_calls_mark_ranges) {
  config_.nvtx_include.clear();
  config_.profiler_api = true;
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  struct NoParams {
    void* dummy = nullptr;
  } none;
  ASSERT_EQ(
      fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, "cuProfilerStart", none, [] { return CUDA_SUCCESS; }),
      CUDA_SUCCESS);
  add_one(data, kInts);
  ASSERT_EQ(fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, "cuProfilerStop", none, [] { return CUDA_SUCCESS; }),
            CUDA_SUCCESS);
  for (int v : read(data, kInts)) ASSERT_EQ(v, 1);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 4u);
  EXPECT_EQ(r.kernels.size(), 1u);
}

TEST_F(ToolHarness, a_module_unload_replays_the_deferred_batch_first) {
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  EXPECT_EQ(fake::counts().launches, 1u);
  cuModuleUnload_params unload{reinterpret_cast<CUmodule>(0x4000)};
  ASSERT_EQ(
      fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuModuleUnload, "cuModuleUnload", unload, [] { return CUDA_SUCCESS; }),
      CUDA_SUCCESS);
  EXPECT_EQ(fake::counts().launches, 1u + 3u);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
}

TEST_F(ToolHarness, a_context_destroy_replays_the_deferred_batch_first) {
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  cuCtxDestroy_v2_params destroy{fake::context()};
  ASSERT_EQ(
      fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2, "cuCtxDestroy_v2", destroy, [] { return CUDA_SUCCESS; }),
      CUDA_SUCCESS);
  EXPECT_EQ(fake::counts().launches, 1u + 3u);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 4u);
}

TEST_F(ToolHarness, an_application_range_run_collects_one_pass_without_replaying) {
  const std::filesystem::path state = dir_ / "app_range_state";
  std::filesystem::create_directories(state);
  config_.app_range = AppRangeRun{.pass = 0, .state_dir = state.string(), .every_range = true, .ranges = {}};
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  EXPECT_EQ(fake::counts().launches, 1u);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 1u);
  EXPECT_EQ(fake::counters().passes, 1u);
  for (int v : read(data, kInts)) ASSERT_EQ(v, 1);
}

}  // namespace
}  // namespace rangereplay::tool::testing
