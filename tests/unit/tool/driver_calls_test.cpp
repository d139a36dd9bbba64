// The table of intercepted driver calls (tool/logic/driver_calls.h): every row's
// classification, the unrecorded-work classifier for calls with and without
// a row, and the decoders, fed synthetic CUPTI parameter structs.
#include "tool/logic/driver_calls.h"

#include <cupti.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace rangereplay::tool {
namespace {

using K = CallKind;
using R = InRange;
using E = MemoryEffect;
using D = DeclineReason;
constexpr std::optional<DeclineReason> kNoDecline = std::nullopt;

struct Expected {
  std::uint32_t cbid;
  CallKind kind;
  InRange in_range;
  std::optional<DeclineReason> reason;
  MemoryEffect effect;
};

// One line per row, in callback-id order. A change here is a change of what
// the tool does with that call.
constexpr Expected kExpected[] = {
    {CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuModuleUnload, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kAddPinnedHost},
    {CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost, K::kFree, R::kTrackAndDecline, D::kFreeInRange, E::kRemoveHost},
    {CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kAddPinnedHost},
    {CUPTI_DRIVER_TRACE_CBID_cuArrayDestroy, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuTexRefDestroy, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecord, K::kEventRecord, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuEventDestroy, K::kEventDestroy, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy, K::kStreamDestroy, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphicsUnregisterResource, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuSurfRefDestroy, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, K::kAllocation, R::kTrackAndKeep, D::kAllocationInRange, E::kAddDevice},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, K::kAllocation, R::kTrackAndKeep, D::kAllocationInRange,
     E::kAddPitched},
    {CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, K::kFree, R::kTrackAndDecline, D::kFreeInRange, E::kRemove},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, K::kCopyHostToDevice, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, K::kCopyHostToDevice, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, K::kCopyDeviceToHost, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, K::kCopyDeviceToHost, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, K::kCopyDeviceToDevice, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2, K::kCopyDeviceToDevice, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kAddPinnedHost},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, K::kStreamWaitEvent, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kRegisterHost},
    {CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister, K::kFree, R::kTrackAndDecline, D::kFreeInRange, E::kRemoveHost},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy, K::kCopyUnified, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, K::kCopyUnified, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, K::kKernelLaunch, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, K::kProfilerStart, R::kTrackOnly, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, K::kProfilerStop, R::kTrackOnly, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2, K::kEventDestroy, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, K::kStreamDestroy, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuIpcCloseMemHandle, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuTexObjectDestroy, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuSurfObjectDestroy, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMipmappedArrayDestroy, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kAddManaged},
    {CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2_ptds, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async_ptsz, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz, K::kMemset, R::kDecline, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamAttachMemAsync, K::kStreamAttachMemory, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemCreate, K::kPhysicalAllocation, R::kPassThrough, kNoDecline, E::kCreatePhysical},
    {CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kRegisterHost},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds, K::kCopyHostToDevice, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, K::kCopyDeviceToHost, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds, K::kCopyDeviceToDevice, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds, K::kCopyUnified, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz, K::kCopyUnified, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, K::kCopyHostToDevice, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz, K::kCopyDeviceToHost, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz, K::kCopyDeviceToDevice, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz, K::kMemset, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, K::kStreamWaitEvent, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamAttachMemAsync_ptsz, K::kStreamAttachMemory, R::kPassThrough, kNoDecline,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz, K::kEventRecord, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, K::kKernelLaunch, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, K::kKernelLaunch, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, K::kKernelLaunch, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice, K::kMultiDeviceLaunch, R::kDecline,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuDestroyExternalMemory, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture, K::kCaptureBegin, R::kTrackAndDecline, D::kStreamCaptureActive,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz, K::kCaptureBegin, R::kTrackAndDecline, D::kStreamCaptureActive,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, K::kCaptureEnd, R::kTrackOnly, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz, K::kCaptureEnd, R::kTrackOnly, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate, K::kGraphInstantiate, R::kTrackOnly, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, K::kGraphLaunch, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz, K::kGraphLaunch, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy, K::kGraphExecDestroy, R::kDeclineIfLaunched, D::kGraphDestroyedInRange,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, K::kHostFunction, R::kDecline, D::kHostFunctionInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz, K::kHostFunction, R::kDecline, D::kHostFunctionInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams, K::kGraphExecKernelNodeParams, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, K::kCaptureBegin, R::kTrackAndDecline, D::kStreamCaptureActive,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz, K::kCaptureBegin, R::kTrackAndDecline,
     D::kStreamCaptureActive, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuThreadExchangeStreamCaptureMode, K::kCaptureModeExchange, R::kTrackOnly, kNoDecline,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease_v2, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemMap, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange, E::kMapVirtual},
    {CUPTI_DRIVER_TRACE_CBID_cuMemUnmap, K::kFree, R::kTrackAndDecline, D::kFreeInRange, E::kUnmapVirtual},
    {CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange, E::kSetAccess},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate, K::kGraphExecUpdate, R::kDeclineIfLaunched, D::kUnsupportedApi,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams, K::kGraphExecChange, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams, K::kGraphExecChange, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams, K::kGraphExecChange, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2, K::kGraphInstantiate, R::kTrackOnly, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams, K::kGraphExecChildGraph, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, K::kEventRecord, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz, K::kEventRecord, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecEventRecordNodeSetEvent, K::kGraphExecChange, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecEventWaitNodeSetEvent, K::kGraphExecChange, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kAddStreamOrdered},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kAddStreamOrdered},
    {CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, K::kFree, R::kTrackAndDecline, D::kFreeInRange, E::kRemove},
    {CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz, K::kFree, R::kTrackAndDecline, D::kFreeInRange, E::kRemove},
    {CUPTI_DRIVER_TRACE_CBID_cuMemPoolDestroy, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kAddStreamOrdered},
    {CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, K::kAllocation, R::kTrackAndDecline, D::kAllocationInRange,
     E::kAddStreamOrdered},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecExternalSemaphoresSignalNodeSetParams, K::kGraphExecChange,
     R::kDeclineIfLaunched, D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecExternalSemaphoresWaitNodeSetParams, K::kGraphExecChange, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, K::kGraphInstantiate, R::kTrackOnly, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphNodeSetEnabled, K::kGraphExecChange, R::kDeclineIfLaunched, D::kUnsupportedApi,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, K::kKernelLaunch, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, K::kKernelLaunch, R::kRecord, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams, K::kGraphInstantiate, R::kTrackOnly, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz, K::kGraphInstantiate, R::kTrackOnly, kNoDecline,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecBatchMemOpNodeSetParams, K::kGraphExecChange, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2, K::kGraphExecKernelNodeParams, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2, K::kGraphExecUpdate, R::kDeclineIfLaunched, D::kUnsupportedApi,
     E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams, K::kGraphExecNodeParams, R::kDeclineIfLaunched,
     D::kUnsupportedApi, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, K::kCaptureBegin, R::kTrackAndDecline,
     D::kStreamCaptureActive, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz, K::kCaptureBegin, R::kTrackAndDecline,
     D::kStreamCaptureActive, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGreenCtxDestroy, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone},
    {CUPTI_DRIVER_TRACE_CBID_cuGraphicsUnmapResources, K::kTeardown, R::kDecline, D::kFreeInRange, E::kNone},
};

TEST(DriverCalls, every_row_is_classified_as_pinned) {
  std::set<std::uint32_t> expected_ids;
  for (const Expected& e : kExpected) {
    expected_ids.insert(e.cbid);
    const DriverCall* row = find_driver_call(e.cbid);
    ASSERT_NE(row, nullptr) << "no row for callback id " << e.cbid;
    SCOPED_TRACE(std::string(row->name));
    EXPECT_EQ(row->cbid, e.cbid);
    EXPECT_EQ(row->kind, e.kind);
    EXPECT_EQ(row->in_range, e.in_range);
    EXPECT_EQ(row->reason, e.reason);
    EXPECT_EQ(row->effect, e.effect);
  }
  // No row beyond the pinned ones, and no callback id twice.
  EXPECT_EQ(expected_ids.size(), std::size(kExpected));
  EXPECT_EQ(driver_calls().size(), std::size(kExpected));
  std::set<std::uint32_t> row_ids;
  for (const DriverCall& row : driver_calls()) EXPECT_TRUE(row_ids.insert(row.cbid).second) << row.name;
}

TEST(DriverCalls, rows_name_their_callback_id) {
  // The name is the enumerator's tail: cuda.h's version macros
  // (cuMemAllocHost -> cuMemAllocHost_v2) must not have renamed a row.
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost)->name, "cuMemAllocHost");
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2)->name, "cuMemAllocHost_v2");
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture)->name, "cuStreamBeginCapture");
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate)->name, "cuGraphExecUpdate");
  for (const DriverCall& row : driver_calls()) {
    EXPECT_TRUE(row.name.starts_with("cu")) << row.name;
    // Every row reads parameters but the trigger's, the device-to-host copies
    // (counted only) and the calls left out of the recording (but host
    // functions, whose stream says whether a capture records them).
    // Of the teardowns, those that end a context read what they end.
    const bool ends_context = row.name.starts_with("cuCtxDestroy") || row.name.starts_with("cuDevicePrimaryCtx");
    const bool reads_none = row.kind == K::kProfilerStart || row.kind == K::kProfilerStop ||
                            (row.kind == K::kTeardown && !ends_context) || row.kind == K::kCopyDeviceToHost ||
                            (row.in_range == R::kDecline && row.kind != K::kHostFunction);
    EXPECT_EQ(row.decode == nullptr, reads_none) << row.name;
  }
}

TEST(DriverCalls, calls_without_a_row_are_not_found) {
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent), nullptr);
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2), nullptr);
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_INVALID), nullptr);
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_SIZE), nullptr);
  EXPECT_EQ(find_driver_call(0xffffffffu), nullptr);
}

TEST(DriverCalls, per_thread_variants_and_base_names) {
  const DriverCall* ptsz = find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz);
  EXPECT_TRUE(ptsz->per_thread_stream());
  EXPECT_EQ(ptsz->base_name(), "cuMemAllocAsync");
  const DriverCall* ptds = find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds);
  EXPECT_TRUE(ptds->per_thread_stream());
  EXPECT_EQ(ptds->base_name(), "cuMemsetD8_v2");
  const DriverCall* plain = find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2);
  EXPECT_FALSE(plain->per_thread_stream());
  EXPECT_EQ(plain->base_name(), "cuMemHostRegister_v2");
}

TEST(DriverCalls, unrecorded_calls_without_a_row_decline_by_family) {
  auto d = unrecorded_call_decline(nullptr, "cuMemcpy2DAsync_v2_ptsz");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reason, D::kUnsupportedApi);
  EXPECT_EQ(d->detail,
            "cuMemcpy2DAsync_v2_ptsz inside the range: the tool does not record this call, so a replay would leave "
            "it out");
  // A new API of a known family declines as well.
  ASSERT_TRUE(unrecorded_call_decline(nullptr, "cuMemcpyWithAttributesAsync").has_value());
  EXPECT_FALSE(unrecorded_call_decline(nullptr, "cuCtxGetCurrent").has_value());
  EXPECT_FALSE(unrecorded_call_decline(nullptr, "").has_value());
}

TEST(DriverCalls, work_after_a_free_is_recorded_or_declined_work_but_copies_back_teardowns_and_queries) {
  const auto row = [](CUpti_CallbackId cbid) { return find_driver_call(cbid); };
  EXPECT_TRUE(is_work_after_free(row(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel), "cuLaunchKernel"));
  EXPECT_TRUE(is_work_after_free(row(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2), "cuMemcpyHtoD_v2"));
  EXPECT_TRUE(is_work_after_free(row(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2), "cuMemsetD32_v2"));
  EXPECT_TRUE(is_work_after_free(row(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc), "cuLaunchHostFunc"));
  EXPECT_TRUE(is_work_after_free(row(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz), "cuMemsetD2D32Async_ptsz"));
  // A copy back to the host is never re-executed; a teardown or a query changes nothing the replay measured.
  EXPECT_FALSE(is_work_after_free(row(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2), "cuMemcpyDtoH_v2"));
  EXPECT_FALSE(is_work_after_free(row(CUPTI_DRIVER_TRACE_CBID_cuTexObjectDestroy), "cuTexObjectDestroy"));
  EXPECT_FALSE(is_work_after_free(nullptr, "cuCtxSynchronize"));
  EXPECT_FALSE(is_work_after_free(nullptr, "cuStreamSynchronize"));
  // A call without a row of a family of GPU work is work.
  EXPECT_TRUE(is_work_after_free(nullptr, "cuMemcpy2DAsync_v2_ptsz"));
}

TEST(DriverCalls, rows_decline_by_their_reason_or_not_at_all) {
  auto host =
      unrecorded_call_decline(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz), "cuLaunchHostFunc_ptsz");
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(host->reason, D::kHostFunctionInRange);
  EXPECT_EQ(host->detail, "cuLaunchHostFunc inside the range");
  auto multi = unrecorded_call_decline(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice),
                                       "cuLaunchCooperativeKernelMultiDevice");
  ASSERT_TRUE(multi.has_value());
  EXPECT_EQ(multi->reason, D::kUnsupportedApi);
  EXPECT_EQ(multi->detail, "cuLaunchCooperativeKernelMultiDevice inside the range");
  // 2D memsets: left out with their reason, named by their family.
  auto memset_2d = unrecorded_call_decline(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz),
                                           "cuMemsetD2D32Async_ptsz");
  ASSERT_TRUE(memset_2d.has_value());
  EXPECT_EQ(memset_2d->reason, D::kUnsupportedApi);
  EXPECT_EQ(memset_2d->detail,
            "cuMemsetD2D32Async inside the range: the tool records 1D memsets only, so a replay would leave this 2D "
            "memset out");
  // Recorded, tracked and passed-through rows are not unrecorded work, even
  // when their name is of a family (cuMemsetD8_v2 is a cuMemset).
  for (std::uint32_t id : {CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
                           CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_DRIVER_TRACE_CBID_cuEventRecord}) {
    const DriverCall* row = find_driver_call(id);
    EXPECT_FALSE(unrecorded_call_decline(row, row->name).has_value()) << row->name;
  }
}

CallParams decode(std::uint32_t cbid, const void* params) { return find_driver_call(cbid)->decode(params); }

CUstream fake_stream(std::uintptr_t v) { return reinterpret_cast<CUstream>(v); }

TEST(DriverCalls, memset_and_copy_decoders) {
  cuMemsetD16Async_params set{0x7000, 0xbeef, 96, fake_stream(0x55)};
  const MemoryOpParams m = decode(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz, &set).memory;
  EXPECT_EQ(m.dst, 0x7000u);
  EXPECT_EQ(m.value, 0xbeefu);
  EXPECT_EQ(m.element_bytes, 2u);
  EXPECT_EQ(m.count, 96u);
  cuMemsetD32_v2_params set32{0x8000, 0xdeadbeef, 4};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, &set32).memory.element_bytes, 4u);
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, &set32).memory.value, 0xdeadbeefu);

  const char host[] = "abc";
  cuMemcpyHtoDAsync_v2_params h2d{0x9000, host, 3, nullptr};
  const MemoryOpParams h = decode(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, &h2d).memory;
  EXPECT_EQ(h.dst, 0x9000u);
  EXPECT_EQ(h.src_host, host);
  EXPECT_EQ(h.bytes, 3u);
  cuMemcpyDtoD_v2_params d2d{0xa000, 0xb000, 64};
  const MemoryOpParams d = decode(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds, &d2d).memory;
  EXPECT_EQ(d.dst, 0xa000u);
  EXPECT_EQ(d.src, 0xb000u);
  EXPECT_EQ(d.bytes, 64u);
  cuMemcpyAsync_params any{0xc000, 0xd000, 8, nullptr};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz, &any).memory.src, 0xd000u);
}

// A capture records asynchronous work into a graph instead of running it:
// the tool reads each asynchronous call's stream to leave such work out.
TEST(DriverCalls, asynchronous_work_names_its_stream_and_synchronous_work_none) {
  cuMemsetD16Async_params set{0x7000, 0xbeef, 96, fake_stream(0x55)};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz, &set).stream, fake_stream(0x55));
  cuMemcpyAsync_params any{0xc000, 0xd000, 8, fake_stream(0x56)};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, &any).stream, fake_stream(0x56));
  cuMemcpyDtoDAsync_v2_params d2d{0xa000, 0xb000, 64, fake_stream(0x57)};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2, &d2d).stream, fake_stream(0x57));
  const char host[] = "abc";
  cuMemcpyHtoDAsync_v2_params h2d{0x9000, host, 3, fake_stream(0x58)};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, &h2d).stream, fake_stream(0x58));
  cuLaunchHostFunc_params host_function{fake_stream(0x59), nullptr, nullptr};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, &host_function).stream, fake_stream(0x59));
  cuMemsetD32_v2_params set32{0x8000, 0xdeadbeef, 4};
  EXPECT_FALSE(decode(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, &set32).stream.has_value());
}

TEST(DriverCalls, child_graph_node_change_names_the_exec_the_node_and_the_new_graph) {
  cuGraphExecChildGraphNodeSetParams_params p{reinterpret_cast<CUgraphExec>(0x71), reinterpret_cast<CUgraphNode>(0x72),
                                              reinterpret_cast<CUgraph>(0x73)};
  const GraphExecParams g = decode(CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams, &p).graph;
  EXPECT_EQ(g.exec, reinterpret_cast<CUgraphExec>(0x71));
  EXPECT_EQ(g.node, reinterpret_cast<CUgraphNode>(0x72));
  EXPECT_EQ(g.graph, reinterpret_cast<CUgraph>(0x73));
}

TEST(DriverCalls, launch_decoders) {
  void* args[1] = {nullptr};
  cuLaunchKernel_params k{reinterpret_cast<CUfunction>(0x10), 1, 2, 3, 4, 5, 6, 128, fake_stream(0x20), args, nullptr};
  const CallParams c = decode(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, &k);
  EXPECT_EQ(c.launch.api, LaunchApi::kLaunchKernel);
  EXPECT_EQ(c.launch.function, reinterpret_cast<CUfunction>(0x10));
  EXPECT_EQ(c.launch.grid[2], 3u);
  EXPECT_EQ(c.launch.block[0], 4u);
  EXPECT_EQ(c.launch.shared_mem_bytes, 128u);
  EXPECT_EQ(c.launch.kernel_params, args);
  ASSERT_TRUE(c.stream.has_value());
  EXPECT_EQ(*c.stream, fake_stream(0x20));

  cuLaunchCooperativeKernel_params coop{reinterpret_cast<CUfunction>(0x11), 7, 1, 1, 32, 1, 1, 0, nullptr, args};
  const CallParams cc = decode(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, &coop);
  EXPECT_EQ(cc.launch.api, LaunchApi::kCooperative);
  EXPECT_EQ(cc.launch.grid[0], 7u);
  EXPECT_EQ(cc.launch.extra, nullptr);

  CUlaunchAttribute attrs[2]{};
  CUlaunchConfig config{};
  config.gridDimX = 9;
  config.blockDimY = 2;
  config.sharedMemBytes = 64;
  config.hStream = fake_stream(0x30);
  config.attrs = attrs;
  config.numAttrs = 2;
  cuLaunchKernelEx_params ex{&config, reinterpret_cast<CUfunction>(0x12), args, nullptr};
  const CallParams e = decode(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &ex);
  EXPECT_EQ(e.launch.api, LaunchApi::kLaunchKernelEx);
  EXPECT_EQ(e.launch.grid[0], 9u);
  EXPECT_EQ(e.launch.block[1], 2u);
  EXPECT_EQ(e.launch.attributes, attrs);
  EXPECT_EQ(e.launch.attribute_count, 2u);
  EXPECT_EQ(e.stream, fake_stream(0x30));
  // A launch without a configuration names no stream (the call fails).
  cuLaunchKernelEx_params none{nullptr, reinterpret_cast<CUfunction>(0x12), args, nullptr};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, &none).stream, nullptr);
}

TEST(DriverCalls, allocation_decoders_keep_outputs_as_pointers) {
  CUdeviceptr out = 0;
  std::size_t pitch = 0;
  cuMemAllocPitch_v2_params pitched{&out, &pitch, 100, 7, 4};
  const AllocationParams a = decode(CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, &pitched).allocation;
  EXPECT_EQ(a.address_out, &out);
  EXPECT_EQ(a.pitch_out, &pitch);
  EXPECT_EQ(a.height, 7u);
  EXPECT_EQ(a.bytes, 100u);  // the width of a row
  cuMemAllocFromPoolAsync_params pool{&out, 4096, nullptr, fake_stream(0x40)};
  const CallParams p = decode(CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, &pool);
  EXPECT_EQ(p.allocation.bytes, 4096u);
  EXPECT_TRUE(p.stream.has_value());
  EXPECT_EQ(p.stream, fake_stream(0x40));
  // A classic allocation goes to no stream: its capture key is 0.
  cuMemAlloc_v2_params plain{&out, 16};
  EXPECT_FALSE(decode(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &plain).stream.has_value());
  int host = 0;
  cuMemHostRegister_params reg{&host, sizeof host, CU_MEMHOSTREGISTER_READ_ONLY};
  const AllocationParams r = decode(CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister, &reg).allocation;
  EXPECT_EQ(r.host, &host);
  EXPECT_EQ(r.flags, static_cast<unsigned>(CU_MEMHOSTREGISTER_READ_ONLY));
}

TEST(DriverCalls, physical_memory_counts_its_size_on_a_device_only) {
  CUmemGenericAllocationHandle handle = 0;
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  cuMemCreate_params create{&handle, std::size_t{2} << 20, &prop, 0};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &create).allocation.bytes, std::size_t{2} << 20);
  prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &create).allocation.bytes, 0u);
  create.prop = nullptr;
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &create).allocation.bytes, 0u);
}

TEST(DriverCalls, capture_and_graph_decoders) {
  cuStreamBeginCapture_v2_params begin{fake_stream(0x50), CU_STREAM_CAPTURE_MODE_RELAXED};
  const CallParams b = decode(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, &begin);
  EXPECT_EQ(b.stream, fake_stream(0x50));
  EXPECT_EQ(b.capture.mode, 2);
  cuStreamBeginCapture_params legacy{fake_stream(0x51)};
  EXPECT_EQ(decode(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture, &legacy).capture.mode, 0);
  cuStreamWaitEvent_params wait{fake_stream(0x52), reinterpret_cast<CUevent>(0x53), 0};
  const CallParams w = decode(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, &wait);
  EXPECT_EQ(w.stream, fake_stream(0x52));
  EXPECT_EQ(w.capture.event, reinterpret_cast<CUevent>(0x53));

  CUgraphExec exec = reinterpret_cast<CUgraphExec>(0x60);
  cuGraphInstantiateWithFlags_params inst{&exec, reinterpret_cast<CUgraph>(0x61), 0};
  const GraphExecParams i = decode(CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags, &inst).graph;
  EXPECT_EQ(i.exec_out, &exec);
  EXPECT_EQ(i.graph, reinterpret_cast<CUgraph>(0x61));
  CUgraphNodeParams node{};
  node.type = CU_GRAPH_NODE_TYPE_KERNEL;
  node.kernel.gridDimX = 12;
  cuGraphExecNodeSetParams_params set{exec, reinterpret_cast<CUgraphNode>(0x62), &node};
  const GraphExecParams k = decode(CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams, &set).graph;
  EXPECT_EQ(k.exec, exec);
  EXPECT_EQ(k.node, reinterpret_cast<CUgraphNode>(0x62));
  ASSERT_TRUE(k.kernel_node.has_value());
  EXPECT_EQ(k.kernel_node->gridDimX, 12u);
  node.type = CU_GRAPH_NODE_TYPE_MEMSET;
  EXPECT_FALSE(decode(CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams, &set).graph.kernel_node.has_value());
  cuGraphLaunch_params launch{exec, fake_stream(0x63)};
  const CallParams g = decode(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz, &launch);
  EXPECT_EQ(g.graph.exec, exec);
  EXPECT_EQ(g.stream, fake_stream(0x63));
}

// Tracked memory in these cases: [0x1000, 0x2000). Untracked device memory:
// [0x9000, 0xa000) (a __constant__ variable's address, say).
bool tracked(std::uint64_t a) { return a >= 0x1000 && a < 0x2000; }
bool device(std::uint64_t a) { return a >= 0x9000 && a < 0xa000; }

bool untracked_write(std::uint32_t cbid, std::uint64_t dst, std::string_view name = "") {
  const DriverCall* call = find_driver_call(cbid);
  CallParams params;
  params.memory.dst = dst;
  return writes_untracked_device_memory(call, call != nullptr ? call->name : name, params, tracked, device);
}

TEST(DriverCalls, deferred_ranges_replay_before_a_write_into_memory_no_snapshot_holds) {
  // Host-to-device copies and memsets into untracked memory (cudaMemcpyToSymbol
  // of a __constant__ variable reaches cuMemcpyHtoD): replay first.
  EXPECT_TRUE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, 0x9000));
  EXPECT_TRUE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, 0x9000));
  EXPECT_TRUE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, 0x9000));
  EXPECT_TRUE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, 0x9000));
  // Into tracked memory the flush's own capture of the current state holds
  // them: no replay.
  EXPECT_FALSE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, 0x1800));
  EXPECT_FALSE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, 0x1000));
  // A unified copy into untracked memory replays first only when that is
  // device memory (not a pageable host buffer the results go to).
  EXPECT_TRUE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpy, 0x9800));
  EXPECT_FALSE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpy, 0x50000));
  EXPECT_FALSE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, 0x1100));
  // Device-to-host copies write no device memory.
  EXPECT_FALSE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, 0x50000));
  // A 2D memset's row decodes no destination: replay first.
  EXPECT_TRUE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2, 0x1000));
  // Calls without a row: copies into arrays, 2D and 3D copies, stream memory
  // operations replay first; anything else does not.
  EXPECT_TRUE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2, 0, "cuMemcpy2D_v2"));
  EXPECT_TRUE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoA_v2, 0, "cuMemcpyHtoA_v2"));
  EXPECT_TRUE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuStreamWriteValue32_v2, 0, "cuStreamWriteValue32_v2"));
  EXPECT_FALSE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent, 0, "cuCtxGetCurrent"));
  // Rows of other kinds never do (a launch, an allocation, a teardown: those
  // have their own handling).
  EXPECT_FALSE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 0x9000));
  EXPECT_FALSE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, 0x9000));
  EXPECT_FALSE(untracked_write(CUPTI_DRIVER_TRACE_CBID_cuTexObjectDestroy, 0x9000));
}

TEST(DriverCalls, releasing_memory_the_tool_does_not_track_declines_a_range_and_replays_deferred_ones_first) {
  for (std::uint32_t cbid :
       {CUPTI_DRIVER_TRACE_CBID_cuDestroyExternalMemory, CUPTI_DRIVER_TRACE_CBID_cuIpcCloseMemHandle,
        CUPTI_DRIVER_TRACE_CBID_cuMemPoolDestroy, CUPTI_DRIVER_TRACE_CBID_cuGraphicsUnregisterResource,
        CUPTI_DRIVER_TRACE_CBID_cuGraphicsUnmapResources}) {
    const DriverCall* call = find_driver_call(cbid);
    ASSERT_NE(call, nullptr) << cbid;
    EXPECT_EQ(call->kind, K::kTeardown) << call->name;
    const std::optional<CallDecline> d = unrecorded_call_decline(call, call->name);
    ASSERT_TRUE(d.has_value()) << call->name;
    EXPECT_EQ(d->reason, D::kFreeInRange);
  }
  // A green context's teardown passes through inside a range, as without a row.
  const DriverCall* green = find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuGreenCtxDestroy);
  ASSERT_NE(green, nullptr);
  EXPECT_EQ(green->kind, K::kTeardown);
  EXPECT_EQ(green->in_range, R::kPassThrough);
}

TEST(DriverCalls, context_teardowns_decode_what_they_end) {
  const auto ctx = reinterpret_cast<CUcontext>(std::uintptr_t{0xc7c});
  const cuCtxDestroy_v2_params destroy{ctx};
  const TeardownParams d = find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2)->decode(&destroy).teardown;
  EXPECT_EQ(d.what, ContextTeardown::kContext);
  EXPECT_EQ(d.context, ctx);
  const cuCtxDestroy_params destroy_v1{ctx};
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy)->decode(&destroy_v1).teardown.context, ctx);
  const cuDevicePrimaryCtxReset_v2_params reset{3};
  const TeardownParams r =
      find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2)->decode(&reset).teardown;
  EXPECT_EQ(r.what, ContextTeardown::kPrimaryReset);
  EXPECT_EQ(r.device, 3);
  const cuDevicePrimaryCtxRelease_v2_params release{2};
  const TeardownParams l =
      find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease_v2)->decode(&release).teardown;
  EXPECT_EQ(l.what, ContextTeardown::kPrimaryRelease);
  EXPECT_EQ(l.device, 2);
  const cuDevicePrimaryCtxReset_params reset_v1{1};
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset)->decode(&reset_v1).teardown.what,
            ContextTeardown::kPrimaryReset);
  const cuDevicePrimaryCtxRelease_params release_v1{1};
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease)->decode(&release_v1).teardown.what,
            ContextTeardown::kPrimaryRelease);
  // A module unload ends no context and decodes nothing.
  EXPECT_EQ(find_driver_call(CUPTI_DRIVER_TRACE_CBID_cuModuleUnload)->decode, nullptr);
}

TEST(DriverCalls, destroying_a_texture_surface_or_array_inside_a_range_declines_it) {
  for (std::uint32_t cbid : {CUPTI_DRIVER_TRACE_CBID_cuArrayDestroy, CUPTI_DRIVER_TRACE_CBID_cuMipmappedArrayDestroy,
                             CUPTI_DRIVER_TRACE_CBID_cuTexObjectDestroy, CUPTI_DRIVER_TRACE_CBID_cuSurfObjectDestroy,
                             CUPTI_DRIVER_TRACE_CBID_cuTexRefDestroy, CUPTI_DRIVER_TRACE_CBID_cuSurfRefDestroy}) {
    const DriverCall* call = find_driver_call(cbid);
    ASSERT_NE(call, nullptr) << cbid;
    // Outside ranges, a teardown: deferred ranges are replayed first.
    EXPECT_EQ(call->kind, K::kTeardown) << call->name;
    const std::optional<CallDecline> d = unrecorded_call_decline(call, call->name);
    ASSERT_TRUE(d.has_value()) << call->name;
    EXPECT_EQ(d->reason, D::kFreeInRange);
    EXPECT_EQ(d->detail, std::string(call->name) +
                             " inside the range: the range's kernels may read through it, and a replay would use it "
                             "destroyed");
  }
}

}  // namespace
}  // namespace rangereplay::tool
