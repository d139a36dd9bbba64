// RangeRecorder (tool/logic/range_recorder.h) with synthetic driver-call events:
// what pass 0 records, and the declines of what it leaves out.
#include "tool/logic/range_recorder.h"

#include <cupti_driver_cbid.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace rangereplay::tool {
namespace {

constexpr std::uint64_t kContext = 0x1c0;
constexpr int kDevice = 0;

// A range over an inventory with one device allocation at 0x10000 (4 KiB)
// and one device-mapped pinned host buffer at 0x90000 (4 KiB).
class RangeRecorderTest : public ::testing::Test {
 protected:
  RangeRecorderTest() {
    inventory.add({MemoryRange(DevicePtr(0x10000), 0x1000), AllocationKind::kDevice, "cuMemAlloc_v2", 0});
    Allocation pinned{MemoryRange(DevicePtr(0x90000), 0x1000), AllocationKind::kMappedHost, "cuMemHostAlloc", 0};
    pinned.host_address = 0x90000;
    inventory.add(std::move(pinned));
  }

  static DriverCallEvent event(std::uint32_t cbid, std::string_view name = {}) {
    DriverCallEvent e;
    e.call = find_driver_call(cbid);
    e.name = name.empty() && e.call != nullptr ? e.call->name : name;
    return e;
  }

  // Records `e` as the tool does for one call: record, then after_call.
  bool submit(const DriverCallEvent& e) {
    const std::size_t first = program.ops.size();
    if (!recorder.record(e)) return false;
    recorder.after_call(first, kContext, kDevice);
    return true;
  }

  AllocationInventory inventory;
  RecordedProgram program;
  Eligibility eligibility;
  RangeRecorder recorder{program, eligibility, inventory};
};

TEST_F(RangeRecorderTest, kernel_launch_is_recorded_with_its_argument_bytes) {
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  e.kernel.name = "_Z4axpyPfi";
  e.kernel.grid[0] = 80;
  e.kernel.block[0] = 256;
  e.kernel.arg_bytes = {0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00};
  e.kernel.arg_offsets = {0, 8};
  e.kernel.arg_sizes = {8, 4};
  ASSERT_TRUE(submit(e));
  ASSERT_EQ(program.ops.size(), 1u);
  const auto& k = std::get<KernelLaunchOp>(program.ops[0]);
  EXPECT_EQ(k.name, "_Z4axpyPfi");
  EXPECT_EQ(k.grid[0], 80u);
  EXPECT_EQ(k.block[0], 256u);
  EXPECT_EQ(k.arg_bytes, e.kernel.arg_bytes);
  EXPECT_EQ(k.arg_offsets, (std::vector<std::uint32_t>{0, 8}));
  EXPECT_FALSE(eligibility.declined());
  EXPECT_EQ(eligibility.operations(), 1u);
  EXPECT_EQ(eligibility.kernel_operations(), 1u);
}

TEST_F(RangeRecorderTest, launch_whose_arguments_could_not_be_copied_declines) {
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
  e.kernel.name = "k";
  e.arguments = invalid_argument("no parameter layout");
  ASSERT_TRUE(submit(e));
  EXPECT_TRUE(program.ops.empty());
  EXPECT_EQ(eligibility.reason(), DeclineReason::kUnsupportedApi);
  EXPECT_EQ(eligibility.detail(), "cannot copy the arguments of kernel k: no parameter layout");
}

TEST_F(RangeRecorderTest, memset_is_recorded_and_one_into_pinned_memory_is_skipped) {
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async);
  e.memory.dst = 0x10100;
  e.memory.value = 0xdeadbeef;
  e.memory.element_bytes = 4;
  e.memory.count = 64;
  ASSERT_TRUE(submit(e));
  ASSERT_EQ(program.ops.size(), 1u);
  const auto& m = std::get<MemsetOp>(program.ops[0]);
  EXPECT_EQ(m.dst, 0x10100u);
  EXPECT_EQ(m.value, 0xdeadbeefu);
  EXPECT_EQ(m.element_bytes, 4u);
  EXPECT_EQ(m.count, 64u);
  e.memory.dst = 0x90010;  // pinned host memory: a host-visible result
  ASSERT_TRUE(submit(e));
  EXPECT_EQ(program.ops.size(), 1u);
  EXPECT_EQ(program.skipped_device_to_host, 1u);
}

TEST_F(RangeRecorderTest, copies_are_recorded_by_direction) {
  const std::vector<std::uint8_t> host = {1, 2, 3, 4, 5, 6, 7, 8};
  DriverCallEvent h2d = event(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2);
  h2d.memory.dst = 0x10000;
  h2d.memory.src_host = host.data();
  h2d.memory.bytes = host.size();
  ASSERT_TRUE(submit(h2d));
  // cuMemcpy from an untracked (host) address to device memory: its bytes
  // are captured now.
  DriverCallEvent unified = event(CUPTI_DRIVER_TRACE_CBID_cuMemcpy);
  unified.memory.dst = 0x10800;
  unified.memory.src = reinterpret_cast<std::uint64_t>(host.data());
  unified.memory.bytes = 4;
  ASSERT_TRUE(submit(unified));
  DriverCallEvent d2d = event(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds);
  d2d.memory.dst = 0x10400;
  d2d.memory.src = 0x10000;
  d2d.memory.bytes = 16;
  ASSERT_TRUE(submit(d2d));
  DriverCallEvent d2h = event(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2);
  ASSERT_TRUE(submit(d2h));

  ASSERT_EQ(program.ops.size(), 3u);
  const auto& a = std::get<CopyFromHostOp>(program.ops[0]);
  EXPECT_EQ(a.dst, 0x10000u);
  EXPECT_EQ(a.data, host);
  const auto& b = std::get<CopyFromHostOp>(program.ops[1]);
  EXPECT_EQ(b.dst, 0x10800u);
  EXPECT_EQ(b.data, (std::vector<std::uint8_t>{1, 2, 3, 4}));
  const auto& c = std::get<CopyDeviceOp>(program.ops[2]);
  EXPECT_EQ(c.dst, 0x10400u);
  EXPECT_EQ(c.src, 0x10000u);
  EXPECT_EQ(c.bytes, 16u);
  EXPECT_EQ(program.skipped_device_to_host, 1u);
  EXPECT_EQ(eligibility.captured_host_bytes(), 12u);
  EXPECT_FALSE(eligibility.declined());
}

TEST_F(RangeRecorderTest, copy_between_untracked_addresses_declines) {
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz);
  e.memory.dst = 0x5000000;
  e.memory.src = 0x6000000;
  e.memory.bytes = 8;
  ASSERT_TRUE(submit(e));
  EXPECT_EQ(eligibility.reason(), DeclineReason::kUnsupportedApi);
  EXPECT_EQ(eligibility.detail(), "cuMemcpyAsync_ptsz between untracked addresses");
}

TEST_F(RangeRecorderTest, copy_from_untracked_device_memory_declines_without_reading_it) {
  // 0x7000000 stands for device memory the inventory does not hold (another
  // allocator's, an IPC mapping): read on the host, it would fault.
  RangeRecorder with_driver{program, eligibility, inventory, [](std::uint64_t a) { return a == 0x7000000; }};
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync);
  e.memory.dst = 0x10000;  // tracked device memory (the fixture's)
  e.memory.src = 0x7000000;
  e.memory.bytes = 1 << 20;
  ASSERT_TRUE(with_driver.record(e));
  EXPECT_TRUE(program.ops.empty());
  EXPECT_EQ(eligibility.reason(), DeclineReason::kUnsupportedApi);
  EXPECT_EQ(eligibility.detail(),
            "cuMemcpyAsync from device memory the tool does not track (allocated by another allocator, imported or "
            "mapped); a replay could not restore it");
}

TEST_F(RangeRecorderTest, a_copy_over_the_host_bytes_cap_declines_before_its_bytes_are_copied) {
  Eligibility capped(EligibilityLimits{kMaxRecordedOperations, 16});
  RangeRecorder small{program, capped, inventory};
  const std::vector<std::uint8_t> host(8, 7);
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2);
  e.memory.dst = 0x10000;
  e.memory.src_host = host.data();
  e.memory.bytes = 8;
  ASSERT_TRUE(small.record(e));
  ASSERT_EQ(program.ops.size(), 1u);
  // 8 + 8 = 16 bytes still fit; 8 more do not. The source of this last
  // copy claims 1 TiB: were its bytes copied first, the test would fault.
  ASSERT_TRUE(small.record(e));
  e.memory.bytes = std::uint64_t{1} << 40;
  ASSERT_TRUE(small.record(e));
  EXPECT_EQ(program.ops.size(), 2u);
  EXPECT_EQ(capped.reason(), DeclineReason::kHostDataTooLarge);
}

TEST_F(RangeRecorderTest, a_host_to_device_copy_whose_source_is_device_memory_declines_without_reading_it) {
  RangeRecorder with_driver{program, eligibility, inventory, [](std::uint64_t a) { return a == 0x7000000; }};
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2);
  e.memory.dst = 0x10000;
  e.memory.src_host = reinterpret_cast<const void*>(std::uintptr_t{0x7000000});
  e.memory.bytes = 64;
  ASSERT_TRUE(with_driver.record(e));
  EXPECT_TRUE(program.ops.empty());
  EXPECT_EQ(eligibility.reason(), DeclineReason::kUnsupportedApi);
  EXPECT_EQ(eligibility.detail(), "cuMemcpyHtoDAsync_v2 from a source that is device memory, not host memory");
}

TEST_F(RangeRecorderTest, a_host_to_device_copy_from_tracked_device_memory_declines_without_reading_it) {
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2);
  e.memory.dst = 0x10000;
  e.memory.src_host = reinterpret_cast<const void*>(std::uintptr_t{0x10800});  // the fixture's device allocation
  e.memory.bytes = 64;
  ASSERT_TRUE(recorder.record(e));
  EXPECT_TRUE(program.ops.empty());
  EXPECT_EQ(eligibility.reason(), DeclineReason::kUnsupportedApi);
  EXPECT_EQ(eligibility.detail(), "cuMemcpyHtoD_v2 from a source that is device memory, not host memory");
}

TEST_F(RangeRecorderTest, unrecorded_call_declines_unsupported_api_naming_it) {
  DriverCallEvent memset = event(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2);
  memset.memory = {0x10000, 0, nullptr, 0, 7, 1, 16};
  ASSERT_TRUE(submit(memset));
  ASSERT_EQ(program.ops.size(), 1u);
  // No row: declined by its family; what was recorded is freed.
  ASSERT_TRUE(submit(event(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2, "cuMemcpy2DAsync_v2")));
  EXPECT_EQ(eligibility.reason(), DeclineReason::kUnsupportedApi);
  EXPECT_EQ(eligibility.detail(),
            "cuMemcpy2DAsync_v2 inside the range: the tool does not record this call, so a replay would leave it out");
  EXPECT_TRUE(program.ops.empty());
}

TEST_F(RangeRecorderTest, calls_of_no_family_pass_through) {
  ASSERT_TRUE(submit(event(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent, "cuCtxGetCurrent")));
  ASSERT_TRUE(submit(event(CUPTI_DRIVER_TRACE_CBID_cuEventRecord)));
  EXPECT_FALSE(eligibility.declined());
  EXPECT_EQ(eligibility.operations(), 0u);
}

TEST_F(RangeRecorderTest, host_functions_after_the_last_work_are_counted_and_left_out_of_the_recording) {
  DriverCallEvent memset = event(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2);
  memset.memory = {0x10000, 0, nullptr, 0, 7, 1, 16};
  ASSERT_TRUE(submit(memset));
  EXPECT_FALSE(submit(event(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz)));
  EXPECT_FALSE(submit(event(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc)));
  // A call that records nothing (an event record) does not follow it as work.
  ASSERT_TRUE(submit(event(CUPTI_DRIVER_TRACE_CBID_cuEventRecord)));
  EXPECT_FALSE(eligibility.declined());
  EXPECT_EQ(program.ops.size(), 1u);
  EXPECT_EQ(program.host_functions, 2u);
  EXPECT_EQ(program.ops_before_host_function, 1u);
}

TEST_F(RangeRecorderTest, work_after_a_host_function_declines_host_function_in_range_and_frees_the_recording) {
  DriverCallEvent memset = event(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2);
  memset.memory = {0x10000, 0, nullptr, 0, 7, 1, 16};
  ASSERT_TRUE(submit(memset));
  EXPECT_FALSE(submit(event(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc)));
  ASSERT_TRUE(submit(memset));
  EXPECT_EQ(eligibility.reason(), DeclineReason::kHostFunctionInRange);
  EXPECT_NE(eligibility.detail().find("cuLaunchHostFunc inside the range with work submitted after it"),
            std::string::npos)
      << eligibility.detail();
  EXPECT_TRUE(program.ops.empty());
}

TEST_F(RangeRecorderTest, two_dimensional_memset_declines_by_its_row_and_frees_what_was_recorded) {
  DriverCallEvent memset = event(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2);
  memset.memory = {0x10000, 0, nullptr, 0, 7, 1, 16};
  ASSERT_TRUE(submit(memset));
  ASSERT_EQ(program.ops.size(), 1u);
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds);
  EXPECT_TRUE(submit(e));  // after_call follows, as for a call without a row
  EXPECT_TRUE(program.ops.empty());
  EXPECT_EQ(eligibility.reason(), DeclineReason::kUnsupportedApi);
  EXPECT_EQ(eligibility.detail(),
            "cuMemsetD2D8_v2 inside the range: the tool records 1D memsets only, so a replay would leave this 2D "
            "memset out");
}

TEST_F(RangeRecorderTest, allocation_inside_the_range_declines_allocation_in_range) {
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz);
  e.entry = false;  // an allocation declines at either site
  recorder.observe_memory_api(e);
  EXPECT_EQ(eligibility.reason(), DeclineReason::kAllocationInRange);
  EXPECT_EQ(eligibility.detail(), "cuMemAllocAsync_ptsz inside the range");
}

TEST_F(RangeRecorderTest, free_inside_the_range_declines_free_in_range_at_its_entry) {
  DriverCallEvent e = event(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2);
  e.entry = false;
  recorder.observe_memory_api(e);
  EXPECT_FALSE(eligibility.declined());  // its exit: the entry has declined already
  e.entry = true;
  recorder.observe_memory_api(e);
  EXPECT_EQ(eligibility.reason(), DeclineReason::kFreeInRange);
  EXPECT_EQ(eligibility.detail(), "cuMemFree_v2 inside the range");
}

TEST(RangeRecorder, too_many_operations_declines_and_frees_the_recording) {
  AllocationInventory inventory;
  inventory.add({MemoryRange(DevicePtr(0x10000), 0x1000), AllocationKind::kDevice, "cuMemAlloc_v2", 0});
  RecordedProgram program;
  Eligibility eligibility(EligibilityLimits{.max_operations = 3, .max_captured_host_bytes = kMaxCapturedHostBytes});
  RangeRecorder recorder(program, eligibility, inventory);
  DriverCallEvent e;
  e.call = find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async);
  e.name = "cuMemsetD8Async";
  e.memory = {0x10000, 0, nullptr, 0, 0, 1, 32};
  for (int i = 0; i < 3; ++i) {
    const std::size_t first = program.ops.size();
    ASSERT_TRUE(recorder.record(e));
    recorder.after_call(first, kContext, kDevice);
  }
  EXPECT_FALSE(eligibility.declined());
  EXPECT_EQ(program.ops.size(), 3u);
  const std::size_t first = program.ops.size();
  ASSERT_TRUE(recorder.record(e));
  recorder.after_call(first, kContext, kDevice);
  EXPECT_EQ(eligibility.reason(), DeclineReason::kTooManyOperations);
  EXPECT_EQ(eligibility.detail(), "more than 3 operations recorded");
  EXPECT_TRUE(program.ops.empty());
}

TEST(RangeRecorder, operation_in_a_second_context_declines_multiple_contexts) {
  AllocationInventory inventory;
  inventory.add({MemoryRange(DevicePtr(0x10000), 0x1000), AllocationKind::kDevice, "cuMemAlloc_v2", 0});
  RecordedProgram program;
  Eligibility eligibility;
  RangeRecorder recorder(program, eligibility, inventory);
  DriverCallEvent e;
  e.call = find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2);
  e.name = "cuMemcpyDtoD_v2";
  e.memory = {0x10000, 0x10800, nullptr, 8, 0, 0, 0};
  ASSERT_TRUE(recorder.record(e));
  recorder.after_call(0, kContext, kDevice);
  ASSERT_TRUE(recorder.record(e));
  recorder.after_call(1, kContext + 1, kDevice);
  EXPECT_EQ(eligibility.reason(), DeclineReason::kMultipleContexts);
  EXPECT_TRUE(program.ops.empty());
}

}  // namespace
}  // namespace rangereplay::tool
