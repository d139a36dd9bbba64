// The table of intercepted driver calls (driver_calls.h): decoders of
// CUPTI's parameter structs (generated_cuda_meta.h) and one row per call.
// A _ptsz/_ptds variant's struct has the same layout as its base call's, and
// is read through it.
#include "tool/logic/driver_calls.h"

#include <cupti_driver_cbid.h>
// cupti.h declares CUPTI only (no call is made here) and brings the
// parameter structs with the definitions they need.
#include <cupti.h>

#include <array>
#include <string>

#include "core/record/unrecorded_work.h"
#include "cuda/launch_shape.h"

namespace rangereplay::tool {

namespace {

// --- Kernel and graph launches ----------------------------------------------

// cuLaunchKernel and cuLaunchCooperativeKernel: the same fields, the
// cooperative launch without `extra`.
template <class P>
void launch_fields(const P& p, LaunchParams& l) {
  l.function = p.f;
  cu::copy_launch_shape(p, l);
  l.kernel_params = p.kernelParams;
}

CallParams launch_kernel(const void* params) {
  const auto* p = static_cast<const cuLaunchKernel_params*>(params);
  CallParams c;
  c.launch.api = LaunchApi::kLaunchKernel;
  launch_fields(*p, c.launch);
  c.launch.extra = p->extra;
  c.stream = p->hStream;
  return c;
}

CallParams launch_cooperative(const void* params) {
  const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
  CallParams c;
  c.launch.api = LaunchApi::kCooperative;
  launch_fields(*p, c.launch);
  c.stream = p->hStream;
  return c;
}

CallParams launch_kernel_ex(const void* params) {
  const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
  CallParams c;
  c.launch.api = LaunchApi::kLaunchKernelEx;
  c.launch.function = p->f;
  c.launch.kernel_params = p->kernelParams;
  c.launch.extra = p->extra;
  c.stream = nullptr;  // the legacy default stream unless the config names one
  if (const CUlaunchConfig* k = p->config; k != nullptr) {
    cu::copy_launch_shape(*k, c.launch);
    c.launch.attributes = k->attrs;
    c.launch.attribute_count = k->numAttrs;
    c.stream = k->hStream;
  }
  return c;
}

// cuGraphLaunch_params and cuGraphLaunch_ptsz_params: {exec, stream}.
CallParams graph_launch(const void* params) {
  const auto* p = static_cast<const cuGraphLaunch_params*>(params);
  CallParams c;
  c.graph.exec = p->hGraph;
  c.stream = p->hStream;
  return c;
}

// --- Memsets and copies -----------------------------------------------------

// The stream of an asynchronous call (one capture may record it into a
// graph instead of running it); synchronous calls have none.
template <class P>
void stream_of(const P* p, CallParams& c) {
  if constexpr (requires(const P& q) { q.hStream; }) c.stream = p->hStream;
}

// A 1D memset: `Value` names the struct's value field (uc, us or ui).
template <class P, auto Value, std::uint32_t ElementBytes>
CallParams memset_1d(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.memory.dst = p->dstDevice;
  c.memory.value = p->*Value;
  c.memory.element_bytes = ElementBytes;
  c.memory.count = p->N;
  stream_of<P>(p, c);
  return c;
}

template <class P>
CallParams copy_device_to_device(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.memory.dst = p->dstDevice;
  c.memory.src = p->srcDevice;
  c.memory.bytes = p->ByteCount;
  stream_of<P>(p, c);
  return c;
}

template <class P>
CallParams copy_host_to_device(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.memory.dst = p->dstDevice;
  c.memory.src_host = p->srcHost;
  c.memory.bytes = p->ByteCount;
  stream_of<P>(p, c);
  return c;
}

// cuMemcpy and cuMemcpyAsync: unified addresses on both sides.
template <class P>
CallParams copy_unified(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.memory.dst = p->dst;
  c.memory.src = p->src;
  c.memory.bytes = p->ByteCount;
  stream_of<P>(p, c);
  return c;
}

// --- Allocations and frees --------------------------------------------------

// cuMemAlloc_v2, cuMemAllocManaged (with its flags), cuMemAllocAsync and
// cuMemAllocFromPoolAsync (with their stream): {dptr, bytesize, ...}.
template <class P>
CallParams mem_alloc(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.allocation.address_out = p->dptr;
  c.allocation.bytes = p->bytesize;
  if constexpr (requires(const P& q) { q.flags; }) c.allocation.flags = p->flags;
  if constexpr (requires(const P& q) { q.hStream; }) c.stream = p->hStream;
  return c;
}

CallParams mem_alloc_pitch(const void* params) {
  const auto* p = static_cast<const cuMemAllocPitch_v2_params*>(params);
  CallParams c;
  c.allocation.address_out = p->dptr;
  c.allocation.pitch_out = p->pPitch;
  c.allocation.bytes = p->WidthInBytes;  // per row, before the driver's pitch
  c.allocation.height = p->Height;
  return c;
}

// cuMemFree_v2 and cuMemFreeAsync (with its stream): {dptr, ...}.
template <class P>
CallParams mem_free(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.allocation.address = p->dptr;
  if constexpr (requires(const P& q) { q.hStream; }) c.stream = p->hStream;
  return c;
}

// cuMemMap and cuMemUnmap: {ptr, size, ...}.
template <class P>
CallParams virtual_span(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.allocation.address = p->ptr;
  c.allocation.bytes = p->size;
  return c;
}

CallParams mem_set_access(const void* params) {
  const auto* p = static_cast<const cuMemSetAccess_params*>(params);
  CallParams c;
  c.allocation.address = p->ptr;
  c.allocation.bytes = p->size;
  c.allocation.access = p->desc;
  c.allocation.access_count = p->count;
  return c;
}

// cuMemHostAlloc, cuMemAllocHost, cuMemAllocHost_v2: {pp, bytesize, ...}.
template <class P>
CallParams host_alloc(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.allocation.host_out = p->pp;
  c.allocation.bytes = p->bytesize;
  return c;
}

// Both versions pass (p, bytesize, Flags).
CallParams host_register(const void* params) {
  const auto* p = static_cast<const cuMemHostRegister_v2_params*>(params);
  CallParams c;
  c.allocation.host = p->p;
  c.allocation.bytes = p->bytesize;
  c.allocation.flags = p->Flags;
  return c;
}

// cuMemFreeHost and cuMemHostUnregister: {p}.
template <class P>
CallParams host_release(const void* params) {
  CallParams c;
  c.allocation.host = static_cast<const P*>(params)->p;
  return c;
}

// cuStreamAttachMemAsync (both variants): the managed memory and its flags.
CallParams attach_memory(const void* params) {
  const auto* p = static_cast<const cuStreamAttachMemAsync_params*>(params);
  CallParams c;
  c.allocation.address = p->dptr;
  c.allocation.flags = p->flags;
  return c;
}

// cuMemCreate: its size when the physical memory is on a device (the
// properties are an input, read at the call's entry); 0 for host or other
// locations.
CallParams mem_create(const void* params) {
  const auto* p = static_cast<const cuMemCreate_params*>(params);
  CallParams c;
  if (p->prop != nullptr && p->prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE) c.allocation.bytes = p->size;
  return c;
}

// --- Context teardowns -------------------------------------------------------

template <class Params>
CallParams context_destroy(const void* params) {
  CallParams c;
  c.teardown.what = ContextTeardown::kContext;
  c.teardown.context = static_cast<const Params*>(params)->ctx;
  return c;
}

template <class Params, ContextTeardown kWhat>
CallParams primary_teardown(const void* params) {
  CallParams c;
  c.teardown.what = kWhat;
  c.teardown.device = static_cast<const Params*>(params)->dev;
  return c;
}

// --- Captures, events, streams ----------------------------------------------

// The legacy begin call takes no mode: it captures as the global mode (0) does.
template <class P>
CallParams capture_begin_legacy(const void* params) {
  CallParams c;
  c.stream = static_cast<const P*>(params)->hStream;
  return c;
}

template <class P>
CallParams capture_begin(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.stream = p->hStream;
  c.capture.mode = static_cast<int>(p->mode);
  return c;
}

// cuStreamEndCapture, cuStreamDestroy (both versions): {stream, ...}.
template <class P>
CallParams stream_first(const void* params) {
  CallParams c;
  c.stream = static_cast<const P*>(params)->hStream;
  return c;
}

CallParams capture_mode_exchange(const void* params) {
  CallParams c;
  c.capture.mode_inout = static_cast<const cuThreadExchangeStreamCaptureMode_params*>(params)->mode;
  return c;
}

// cuEventRecord and cuEventRecordWithFlags: {event, stream, ...};
// cuStreamWaitEvent: {stream, event, flags}.
template <class P>
CallParams event_and_stream(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.capture.event = p->hEvent;
  c.stream = p->hStream;
  return c;
}

CallParams event_destroy(const void* params) {
  CallParams c;
  c.capture.event = static_cast<const cuEventDestroy_v2_params*>(params)->hEvent;
  return c;
}

// --- Executable graphs ------------------------------------------------------

// Every instantiate parameter struct starts {CUgraphExec*, CUgraph, ...}.
template <class P>
CallParams instantiate(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.graph.exec_out = p->phGraphExec;
  c.graph.graph = p->hGraph;
  return c;
}

template <class P>
CallParams exec_update(const void* params) {
  const auto* p = static_cast<const P*>(params);
  CallParams c;
  c.graph.exec = p->hGraphExec;
  c.graph.graph = p->hGraph;
  return c;
}

CallParams child_graph_node_params(const void* params) {
  const auto* p = static_cast<const cuGraphExecChildGraphNodeSetParams_params*>(params);
  CallParams c;
  c.graph.exec = p->hGraphExec;
  c.graph.node = p->hNode;
  c.graph.graph = p->childGraph;
  return c;
}

// The other executable-graph calls take the exec as their first parameter.
CallParams exec_first(const void* params) {
  CallParams c;
  c.graph.exec = *static_cast<const CUgraphExec*>(params);
  return c;
}

// The fields every kernel node parameter struct version has (v1 lacks kern and ctx).
template <class V>
CUDA_KERNEL_NODE_PARAMS common_kernel_fields(const V& v) {
  CUDA_KERNEL_NODE_PARAMS k{};
  k.func = v.func;
  k.gridDimX = v.gridDimX;
  k.gridDimY = v.gridDimY;
  k.gridDimZ = v.gridDimZ;
  k.blockDimX = v.blockDimX;
  k.blockDimY = v.blockDimY;
  k.blockDimZ = v.blockDimZ;
  k.sharedMemBytes = v.sharedMemBytes;
  k.kernelParams = v.kernelParams;
  k.extra = v.extra;
  return k;
}

CallParams kernel_node_params_v1(const void* params) {
  const auto* p = static_cast<const cuGraphExecKernelNodeSetParams_params*>(params);
  CallParams c;
  c.graph.exec = p->hGraphExec;
  c.graph.node = p->hNode;
  if (p->nodeParams != nullptr) c.graph.kernel_node = common_kernel_fields(*p->nodeParams);
  return c;
}

CallParams kernel_node_params_v2(const void* params) {
  const auto* p = static_cast<const cuGraphExecKernelNodeSetParams_v2_params*>(params);
  CallParams c;
  c.graph.exec = p->hGraphExec;
  c.graph.node = p->hNode;
  if (p->nodeParams != nullptr) c.graph.kernel_node = *p->nodeParams;
  return c;
}

// cuGraphExecNodeSetParams: a kernel node's CUDA_KERNEL_NODE_PARAMS_v3 has
// the same fields.
CallParams node_params(const void* params) {
  const auto* p = static_cast<const cuGraphExecNodeSetParams_params*>(params);
  CallParams c;
  c.graph.exec = p->hGraphExec;
  c.graph.node = p->hNode;
  if (p->nodeParams != nullptr && p->nodeParams->type == CU_GRAPH_NODE_TYPE_KERNEL) {
    const CUDA_KERNEL_NODE_PARAMS_v3& v3 = p->nodeParams->kernel;
    CUDA_KERNEL_NODE_PARAMS k = common_kernel_fields(v3);
    k.kern = v3.kern;
    k.ctx = v3.ctx;
    c.graph.kernel_node = k;
  }
  return c;
}

// --- The table --------------------------------------------------------------

using K = CallKind;
using R = InRange;
using E = MemoryEffect;
using D = DeclineReason;
constexpr std::optional<DeclineReason> kNoDecline = std::nullopt;
constexpr std::string_view kReleasedMemory =
    "the range's kernels may use its memory, which the tool does not track, and a replay would find it gone";
constexpr std::string_view kDestroyedObject =
    "the range's kernels may read through it, and a replay would use it destroyed";
constexpr std::string_view k2DMemset = "the tool records 1D memsets only, so a replay would leave this 2D memset out";

// Each macro pastes and stringizes `api` itself: cuda.h defines many API
// names as macros of their newest version (cuMemAllocHost is
// cuMemAllocHost_v2), which an argument passed on to another macro would
// expand to.
#define RR_ROW_(cbid, name, kind, in_range, reason, effect, decode) \
  DriverCall {                                                      \
    cbid, name, kind, in_range, reason, effect, decode, {}          \
  }
#define RR_ROW(api, kind, in_range, reason, effect, decode) \
  RR_ROW_(CUPTI_DRIVER_TRACE_CBID_##api, #api, kind, in_range, reason, effect, decode)
// Recorded into the range's program.
#define RR_RECORD(api, kind, decode) \
  RR_ROW_(CUPTI_DRIVER_TRACE_CBID_##api, #api, kind, R::kRecord, kNoDecline, E::kNone, decode)
// Tracked in and out of ranges; inside one, declines.
#define RR_TRACK(api, kind, reason, effect, decode) \
  RR_ROW_(CUPTI_DRIVER_TRACE_CBID_##api, #api, kind, R::kTrackAndDecline, reason, effect, decode)
// Tracked in and out of ranges; inside one, the allocation's bytes are kept.
#define RR_TRACK_KEEP(api, kind, reason, effect, decode) \
  RR_ROW_(CUPTI_DRIVER_TRACE_CBID_##api, #api, kind, R::kTrackAndKeep, reason, effect, decode)
// Capture and stream bookkeeping, no tool lock.
#define RR_CAPTURE(api, kind, in_range, decode) \
  RR_ROW_(CUPTI_DRIVER_TRACE_CBID_##api, #api, kind, in_range, kNoDecline, E::kNone, decode)
// A capture begin: inside a range, declines it before the capture exists.
#define RR_CAPTURE_BEGIN(api, decode)                                                                          \
  RR_ROW_(CUPTI_DRIVER_TRACE_CBID_##api, #api, K::kCaptureBegin, R::kTrackAndDecline, D::kStreamCaptureActive, \
          E::kNone, decode)
// Left out of the recording, declining with `reason`; `why` goes into the
// decline's detail.
#define RR_LEFT_OUT(api, kind, reason, why) \
  DriverCall { CUPTI_DRIVER_TRACE_CBID_##api, #api, kind, R::kDecline, reason, E::kNone, nullptr, why }
// Executable-graph bookkeeping; inside a range, a change of an exec it
// launched declines.
#define RR_EXEC(api, kind, reason, decode) \
  RR_ROW_(CUPTI_DRIVER_TRACE_CBID_##api, #api, kind, R::kDeclineIfLaunched, reason, E::kNone, decode)

constexpr DriverCall kRows[] = {
    // Allocations and frees (the allocation inventory, docs/architecture.md).
    // Virtual memory: a mapping is memory once cuMemSetAccess makes it
    // accessible; cuMemCreate/cuMemRelease/cuMemAddressReserve/Free alone
    // change no accessible memory (cuMemCreate's pass-through row, below,
    // only makes room for it; the others have no row).
    RR_TRACK_KEEP(cuMemAlloc_v2, K::kAllocation, D::kAllocationInRange, E::kAddDevice, mem_alloc<cuMemAlloc_v2_params>),
    RR_TRACK_KEEP(cuMemAllocPitch_v2, K::kAllocation, D::kAllocationInRange, E::kAddPitched, mem_alloc_pitch),
    RR_TRACK(cuMemFree_v2, K::kFree, D::kFreeInRange, E::kRemove, mem_free<cuMemFree_v2_params>),
    RR_RECORD(cuMemcpyHtoD_v2, K::kCopyHostToDevice, copy_host_to_device<cuMemcpyHtoD_v2_params>),
    RR_RECORD(cuMemcpyDtoH_v2, K::kCopyDeviceToHost, nullptr),
    RR_RECORD(cuMemcpyDtoD_v2, K::kCopyDeviceToDevice, copy_device_to_device<cuMemcpyDtoD_v2_params>),
    RR_RECORD(cuMemcpyHtoDAsync_v2, K::kCopyHostToDevice, copy_host_to_device<cuMemcpyHtoDAsync_v2_params>),
    RR_RECORD(cuMemcpyDtoHAsync_v2, K::kCopyDeviceToHost, nullptr),
    RR_RECORD(cuMemcpyDtoDAsync_v2, K::kCopyDeviceToDevice, copy_device_to_device<cuMemcpyDtoDAsync_v2_params>),
    RR_RECORD(cuMemsetD8_v2, K::kMemset, (memset_1d<cuMemsetD8_v2_params, &cuMemsetD8_v2_params::uc, 1>)),
    RR_RECORD(cuMemsetD16_v2, K::kMemset, (memset_1d<cuMemsetD16_v2_params, &cuMemsetD16_v2_params::us, 2>)),
    RR_RECORD(cuMemsetD32_v2, K::kMemset, (memset_1d<cuMemsetD32_v2_params, &cuMemsetD32_v2_params::ui, 4>)),
    RR_TRACK(cuMemHostAlloc, K::kAllocation, D::kAllocationInRange, E::kAddPinnedHost,
             host_alloc<cuMemHostAlloc_params>),
    RR_TRACK(cuMemAllocHost, K::kAllocation, D::kAllocationInRange, E::kAddPinnedHost,
             host_alloc<cuMemAllocHost_params>),
    RR_TRACK(cuMemFreeHost, K::kFree, D::kFreeInRange, E::kRemoveHost, host_release<cuMemFreeHost_params>),
    RR_CAPTURE(cuEventRecord, K::kEventRecord, R::kPassThrough, event_and_stream<cuEventRecord_params>),
    RR_CAPTURE(cuStreamWaitEvent, K::kStreamWaitEvent, R::kPassThrough, event_and_stream<cuStreamWaitEvent_params>),
    RR_CAPTURE(cuStreamDestroy, K::kStreamDestroy, R::kPassThrough, stream_first<cuStreamDestroy_v2_params>),
    RR_CAPTURE(cuEventDestroy, K::kEventDestroy, R::kPassThrough, event_destroy),
    RR_TRACK(cuMemAllocHost_v2, K::kAllocation, D::kAllocationInRange, E::kAddPinnedHost,
             host_alloc<cuMemAllocHost_v2_params>),
    RR_RECORD(cuMemsetD8Async, K::kMemset, (memset_1d<cuMemsetD8Async_params, &cuMemsetD8Async_params::uc, 1>)),
    RR_RECORD(cuMemsetD16Async, K::kMemset, (memset_1d<cuMemsetD16Async_params, &cuMemsetD16Async_params::us, 2>)),
    RR_RECORD(cuMemsetD32Async, K::kMemset, (memset_1d<cuMemsetD32Async_params, &cuMemsetD32Async_params::ui, 4>)),
    RR_RECORD(cuLaunchKernel, K::kKernelLaunch, launch_kernel),
    RR_TRACK(cuMemHostRegister, K::kAllocation, D::kAllocationInRange, E::kRegisterHost, host_register),
    RR_TRACK(cuMemHostUnregister, K::kFree, D::kFreeInRange, E::kRemoveHost, host_release<cuMemHostUnregister_params>),
    RR_RECORD(cuMemcpy, K::kCopyUnified, copy_unified<cuMemcpy_params>),
    RR_RECORD(cuMemcpyAsync, K::kCopyUnified, copy_unified<cuMemcpyAsync_params>),
    RR_CAPTURE(cuStreamDestroy_v2, K::kStreamDestroy, R::kPassThrough, stream_first<cuStreamDestroy_v2_params>),
    RR_CAPTURE(cuEventDestroy_v2, K::kEventDestroy, R::kPassThrough, event_destroy),
    RR_ROW(cuProfilerStart, K::kProfilerStart, R::kTrackOnly, kNoDecline, E::kNone, nullptr),
    RR_ROW(cuProfilerStop, K::kProfilerStop, R::kTrackOnly, kNoDecline, E::kNone, nullptr),
    RR_RECORD(cuMemcpyHtoD_v2_ptds, K::kCopyHostToDevice, copy_host_to_device<cuMemcpyHtoD_v2_params>),
    RR_RECORD(cuMemcpyDtoH_v2_ptds, K::kCopyDeviceToHost, nullptr),
    RR_RECORD(cuMemcpyDtoD_v2_ptds, K::kCopyDeviceToDevice, copy_device_to_device<cuMemcpyDtoD_v2_params>),
    RR_RECORD(cuMemcpy_ptds, K::kCopyUnified, copy_unified<cuMemcpy_params>),
    RR_RECORD(cuMemsetD8_v2_ptds, K::kMemset, (memset_1d<cuMemsetD8_v2_params, &cuMemsetD8_v2_params::uc, 1>)),
    RR_RECORD(cuMemsetD16_v2_ptds, K::kMemset, (memset_1d<cuMemsetD16_v2_params, &cuMemsetD16_v2_params::us, 2>)),
    RR_RECORD(cuMemsetD32_v2_ptds, K::kMemset, (memset_1d<cuMemsetD32_v2_params, &cuMemsetD32_v2_params::ui, 4>)),
    RR_RECORD(cuMemcpyAsync_ptsz, K::kCopyUnified, copy_unified<cuMemcpyAsync_params>),
    RR_RECORD(cuMemcpyHtoDAsync_v2_ptsz, K::kCopyHostToDevice, copy_host_to_device<cuMemcpyHtoDAsync_v2_params>),
    RR_RECORD(cuMemcpyDtoHAsync_v2_ptsz, K::kCopyDeviceToHost, nullptr),
    RR_RECORD(cuMemcpyDtoDAsync_v2_ptsz, K::kCopyDeviceToDevice, copy_device_to_device<cuMemcpyDtoDAsync_v2_params>),
    RR_RECORD(cuMemsetD8Async_ptsz, K::kMemset, (memset_1d<cuMemsetD8Async_params, &cuMemsetD8Async_params::uc, 1>)),
    RR_RECORD(cuMemsetD16Async_ptsz, K::kMemset, (memset_1d<cuMemsetD16Async_params, &cuMemsetD16Async_params::us, 2>)),
    RR_RECORD(cuMemsetD32Async_ptsz, K::kMemset, (memset_1d<cuMemsetD32Async_params, &cuMemsetD32Async_params::ui, 4>)),
    RR_CAPTURE(cuEventRecord_ptsz, K::kEventRecord, R::kPassThrough, event_and_stream<cuEventRecord_params>),
    RR_CAPTURE(cuStreamWaitEvent_ptsz, K::kStreamWaitEvent, R::kPassThrough,
               event_and_stream<cuStreamWaitEvent_params>),
    RR_RECORD(cuLaunchKernel_ptsz, K::kKernelLaunch, launch_kernel),
    RR_TRACK(cuMemHostRegister_v2, K::kAllocation, D::kAllocationInRange, E::kRegisterHost, host_register),
    RR_CAPTURE_BEGIN(cuStreamBeginCapture, capture_begin_legacy<cuStreamBeginCapture_params>),
    RR_CAPTURE(cuStreamEndCapture, K::kCaptureEnd, R::kTrackOnly, stream_first<cuStreamEndCapture_params>),
    RR_CAPTURE_BEGIN(cuStreamBeginCapture_ptsz, capture_begin_legacy<cuStreamBeginCapture_ptsz_params>),
    RR_CAPTURE(cuStreamEndCapture_ptsz, K::kCaptureEnd, R::kTrackOnly, stream_first<cuStreamEndCapture_params>),
    RR_ROW(cuGraphInstantiate, K::kGraphInstantiate, R::kTrackOnly, kNoDecline, E::kNone,
           instantiate<cuGraphInstantiate_params>),
    RR_RECORD(cuGraphLaunch, K::kGraphLaunch, graph_launch),
    RR_RECORD(cuGraphLaunch_ptsz, K::kGraphLaunch, graph_launch),
    RR_EXEC(cuGraphExecDestroy, K::kGraphExecDestroy, D::kGraphDestroyedInRange, exec_first),
    RR_EXEC(cuGraphExecKernelNodeSetParams, K::kGraphExecKernelNodeParams, D::kUnsupportedApi, kernel_node_params_v1),
    RR_RECORD(cuLaunchCooperativeKernel, K::kKernelLaunch, launch_cooperative),
    RR_RECORD(cuLaunchCooperativeKernel_ptsz, K::kKernelLaunch, launch_cooperative),
    RR_ROW(cuLaunchCooperativeKernelMultiDevice, K::kMultiDeviceLaunch, R::kDecline, D::kUnsupportedApi, E::kNone,
           nullptr),
    RR_EXEC(cuGraphExecMemcpyNodeSetParams, K::kGraphExecChange, D::kUnsupportedApi, exec_first),
    RR_EXEC(cuGraphExecMemsetNodeSetParams, K::kGraphExecChange, D::kUnsupportedApi, exec_first),
    RR_EXEC(cuGraphExecHostNodeSetParams, K::kGraphExecChange, D::kUnsupportedApi, exec_first),
    RR_EXEC(cuGraphExecUpdate, K::kGraphExecUpdate, D::kUnsupportedApi, exec_update<cuGraphExecUpdate_params>),
    RR_ROW(cuLaunchHostFunc, K::kHostFunction, R::kDecline, D::kHostFunctionInRange, E::kNone,
           stream_first<cuLaunchHostFunc_params>),
    RR_ROW(cuLaunchHostFunc_ptsz, K::kHostFunction, R::kDecline, D::kHostFunctionInRange, E::kNone,
           stream_first<cuLaunchHostFunc_ptsz_params>),
    RR_CAPTURE_BEGIN(cuStreamBeginCapture_v2, capture_begin<cuStreamBeginCapture_v2_params>),
    RR_CAPTURE_BEGIN(cuStreamBeginCapture_v2_ptsz, capture_begin<cuStreamBeginCapture_v2_ptsz_params>),
    RR_CAPTURE(cuThreadExchangeStreamCaptureMode, K::kCaptureModeExchange, R::kTrackOnly, capture_mode_exchange),
    RR_EXEC(cuGraphExecChildGraphNodeSetParams, K::kGraphExecChildGraph, D::kUnsupportedApi, child_graph_node_params),
    RR_EXEC(cuGraphExecEventRecordNodeSetEvent, K::kGraphExecChange, D::kUnsupportedApi, exec_first),
    RR_EXEC(cuGraphExecEventWaitNodeSetEvent, K::kGraphExecChange, D::kUnsupportedApi, exec_first),
    RR_TRACK(cuMemAllocManaged, K::kAllocation, D::kAllocationInRange, E::kAddManaged,
             mem_alloc<cuMemAllocManaged_params>),
    RR_TRACK(cuMemAllocAsync, K::kAllocation, D::kAllocationInRange, E::kAddStreamOrdered,
             mem_alloc<cuMemAllocAsync_params>),
    RR_TRACK(cuMemAllocAsync_ptsz, K::kAllocation, D::kAllocationInRange, E::kAddStreamOrdered,
             mem_alloc<cuMemAllocAsync_params>),
    RR_TRACK(cuMemFreeAsync, K::kFree, D::kFreeInRange, E::kRemove, mem_free<cuMemFreeAsync_params>),
    RR_TRACK(cuMemFreeAsync_ptsz, K::kFree, D::kFreeInRange, E::kRemove, mem_free<cuMemFreeAsync_params>),
    RR_TRACK(cuMemAllocFromPoolAsync, K::kAllocation, D::kAllocationInRange, E::kAddStreamOrdered,
             mem_alloc<cuMemAllocFromPoolAsync_params>),
    RR_TRACK(cuMemAllocFromPoolAsync_ptsz, K::kAllocation, D::kAllocationInRange, E::kAddStreamOrdered,
             mem_alloc<cuMemAllocFromPoolAsync_params>),
    RR_TRACK(cuMemMap, K::kAllocation, D::kAllocationInRange, E::kMapVirtual, virtual_span<cuMemMap_params>),
    RR_TRACK(cuMemUnmap, K::kFree, D::kFreeInRange, E::kUnmapVirtual, virtual_span<cuMemUnmap_params>),
    RR_TRACK(cuMemSetAccess, K::kAllocation, D::kAllocationInRange, E::kSetAccess, mem_set_access),
    RR_EXEC(cuGraphExecExternalSemaphoresSignalNodeSetParams, K::kGraphExecChange, D::kUnsupportedApi, exec_first),
    RR_EXEC(cuGraphExecExternalSemaphoresWaitNodeSetParams, K::kGraphExecChange, D::kUnsupportedApi, exec_first),
    RR_CAPTURE(cuEventRecordWithFlags, K::kEventRecord, R::kPassThrough,
               event_and_stream<cuEventRecordWithFlags_params>),
    RR_CAPTURE(cuEventRecordWithFlags_ptsz, K::kEventRecord, R::kPassThrough,
               event_and_stream<cuEventRecordWithFlags_params>),
    RR_ROW(cuGraphInstantiate_v2, K::kGraphInstantiate, R::kTrackOnly, kNoDecline, E::kNone,
           instantiate<cuGraphInstantiate_v2_params>),
    RR_EXEC(cuGraphExecKernelNodeSetParams_v2, K::kGraphExecKernelNodeParams, D::kUnsupportedApi,
            kernel_node_params_v2),
    RR_EXEC(cuGraphNodeSetEnabled, K::kGraphExecChange, D::kUnsupportedApi, exec_first),
    RR_ROW(cuGraphInstantiateWithFlags, K::kGraphInstantiate, R::kTrackOnly, kNoDecline, E::kNone,
           instantiate<cuGraphInstantiateWithFlags_params>),
    RR_EXEC(cuGraphExecBatchMemOpNodeSetParams, K::kGraphExecChange, D::kUnsupportedApi, exec_first),
    RR_ROW(cuGraphInstantiateWithParams, K::kGraphInstantiate, R::kTrackOnly, kNoDecline, E::kNone,
           instantiate<cuGraphInstantiateWithParams_params>),
    RR_ROW(cuGraphInstantiateWithParams_ptsz, K::kGraphInstantiate, R::kTrackOnly, kNoDecline, E::kNone,
           instantiate<cuGraphInstantiateWithParams_ptsz_params>),
    RR_EXEC(cuGraphExecUpdate_v2, K::kGraphExecUpdate, D::kUnsupportedApi, exec_update<cuGraphExecUpdate_v2_params>),
    RR_RECORD(cuLaunchKernelEx, K::kKernelLaunch, launch_kernel_ex),
    RR_RECORD(cuLaunchKernelEx_ptsz, K::kKernelLaunch, launch_kernel_ex),
    RR_EXEC(cuGraphExecNodeSetParams, K::kGraphExecNodeParams, D::kUnsupportedApi, node_params),
    RR_CAPTURE_BEGIN(cuStreamBeginCaptureToGraph, capture_begin<cuStreamBeginCaptureToGraph_params>),
    RR_CAPTURE_BEGIN(cuStreamBeginCaptureToGraph_ptsz, capture_begin<cuStreamBeginCaptureToGraph_ptsz_params>),
    // 2D memsets: a recorded memset is one contiguous span (MemsetOp), and
    // replaying one as row-by-row 1D memsets would run other GPU work than
    // the application's.
    RR_LEFT_OUT(cuMemsetD2D8_v2, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D16_v2, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D32_v2, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D8_v2_ptds, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D16_v2_ptds, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D32_v2_ptds, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D8Async, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D16Async, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D32Async, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D8Async_ptsz, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D16Async_ptsz, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_LEFT_OUT(cuMemsetD2D32Async_ptsz, K::kMemset, D::kUnsupportedApi, k2DMemset),
    RR_ROW(cuStreamAttachMemAsync, K::kStreamAttachMemory, R::kPassThrough, kNoDecline, E::kNone, attach_memory),
    // Physical memory for a later mapping (PyTorch's expandable segments):
    // inside a range it changes no accessible memory (the mapping's access
    // change declines); outside, the tool makes room for it (device_room.h).
    RR_ROW(cuMemCreate, K::kPhysicalAllocation, R::kPassThrough, kNoDecline, E::kCreatePhysical, mem_create),
    RR_ROW(cuStreamAttachMemAsync_ptsz, K::kStreamAttachMemory, R::kPassThrough, kNoDecline, E::kNone, attach_memory),
    // Context teardown and module unloads: deferred ranges (--batch-ranges)
    // are replayed at their entry, while the context and the kernels exist.
    // Inside a range they pass through, as calls without a row do (a module
    // unloaded inside a range declines it through the resource callback).
    // The context rows decode what they end: the standing pass is read at
    // their entry too, and a teardown of the profiled context ends the
    // profile at its exit (later ranges decline).
    RR_ROW(cuCtxDestroy, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone, (context_destroy<cuCtxDestroy_params>)),
    RR_ROW(cuModuleUnload, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone, nullptr),
    RR_ROW(cuCtxDestroy_v2, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone,
           (context_destroy<cuCtxDestroy_v2_params>)),
    RR_ROW(cuDevicePrimaryCtxRelease, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone,
           (primary_teardown<cuDevicePrimaryCtxRelease_params, ContextTeardown::kPrimaryRelease>)),
    RR_ROW(cuDevicePrimaryCtxReset, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone,
           (primary_teardown<cuDevicePrimaryCtxReset_params, ContextTeardown::kPrimaryReset>)),
    RR_ROW(cuDevicePrimaryCtxRelease_v2, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone,
           (primary_teardown<cuDevicePrimaryCtxRelease_v2_params, ContextTeardown::kPrimaryRelease>)),
    RR_ROW(cuDevicePrimaryCtxReset_v2, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone,
           (primary_teardown<cuDevicePrimaryCtxReset_v2_params, ContextTeardown::kPrimaryReset>)),
    RR_ROW(cuLibraryUnload, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone, nullptr),
    RR_ROW(cuGreenCtxDestroy, K::kTeardown, R::kPassThrough, kNoDecline, E::kNone, nullptr),
    // Objects a deferred range's kernels may use that the allocation
    // inventory does not hold: replayed before they go, as for a teardown.
    // Textures, surfaces and the arrays behind them, destroyed inside a
    // range, decline it: a kernel launched before may have read through one
    // (a texture made and destroyed around each launch, as image pipelines
    // do, left a replay reading through destroyed handles; H200).
    RR_LEFT_OUT(cuArrayDestroy, K::kTeardown, D::kFreeInRange, kDestroyedObject),
    RR_LEFT_OUT(cuMipmappedArrayDestroy, K::kTeardown, D::kFreeInRange, kDestroyedObject),
    RR_LEFT_OUT(cuTexRefDestroy, K::kTeardown, D::kFreeInRange, kDestroyedObject),
    RR_LEFT_OUT(cuSurfRefDestroy, K::kTeardown, D::kFreeInRange, kDestroyedObject),
    RR_LEFT_OUT(cuTexObjectDestroy, K::kTeardown, D::kFreeInRange, kDestroyedObject),
    RR_LEFT_OUT(cuSurfObjectDestroy, K::kTeardown, D::kFreeInRange, kDestroyedObject),
    // Memory of other origins (interop, IPC, external, a pool) released
    // inside a range declines it too.
    RR_LEFT_OUT(cuGraphicsUnregisterResource, K::kTeardown, D::kFreeInRange, kReleasedMemory),
    RR_LEFT_OUT(cuGraphicsUnmapResources, K::kTeardown, D::kFreeInRange, kReleasedMemory),
    RR_LEFT_OUT(cuIpcCloseMemHandle, K::kTeardown, D::kFreeInRange, kReleasedMemory),
    RR_LEFT_OUT(cuDestroyExternalMemory, K::kTeardown, D::kFreeInRange, kReleasedMemory),
    RR_LEFT_OUT(cuMemPoolDestroy, K::kTeardown, D::kFreeInRange, kReleasedMemory),
};

#undef RR_EXEC
#undef RR_LEFT_OUT
#undef RR_CAPTURE_BEGIN
#undef RR_CAPTURE
#undef RR_TRACK
#undef RR_RECORD
#undef RR_ROW
#undef RR_ROW_

// Index of each callback id's row in kRows, by id (-1: no row); built at
// compile time, where a callback id listed twice fails the build.
constexpr auto kIndex = [] {
  std::array<std::int16_t, CUPTI_DRIVER_TRACE_CBID_SIZE> index{};
  for (auto& i : index) i = -1;
  for (std::size_t i = 0; i < std::size(kRows); ++i) {
    if (index[kRows[i].cbid] != -1) throw "a callback id has two rows";
    index[kRows[i].cbid] = static_cast<std::int16_t>(i);
  }
  return index;
}();

}  // namespace

std::span<const DriverCall> driver_calls() { return kRows; }

const DriverCall* find_driver_call(std::uint32_t cbid) {
  if (cbid >= kIndex.size() || kIndex[cbid] < 0) return nullptr;
  return &kRows[kIndex[cbid]];
}

bool is_work_after_free(const DriverCall* call, std::string_view function_name) {
  if (call == nullptr) return unrecorded_call_decline(nullptr, function_name).has_value();
  if (call->kind == CallKind::kCopyDeviceToHost || call->kind == CallKind::kTeardown) return false;
  return call->in_range == InRange::kRecord || call->in_range == InRange::kDecline;
}

std::optional<CallDecline> unrecorded_call_decline(const DriverCall* call, std::string_view function_name) {
  if (call != nullptr) {
    if (call->in_range != InRange::kDecline || !call->reason) return std::nullopt;
    std::string detail = std::string(call->base_name()) + " inside the range";
    if (!call->why.empty()) detail += ": " + std::string(call->why);
    return CallDecline{*call->reason, std::move(detail)};
  }
  if (!is_unrecorded_gpu_work(function_name)) return std::nullopt;
  return CallDecline{DeclineReason::kUnsupportedApi,
                     std::string(function_name) +
                         " inside the range: the tool does not record this call, so a replay would leave it out"};
}

bool writes_untracked_device_memory(const DriverCall* call, std::string_view function_name, const CallParams& params,
                                    const std::function<bool(std::uint64_t)>& tracked,
                                    const std::function<bool(std::uint64_t)>& device_address) {
  if (call == nullptr) return is_unrecorded_gpu_work(function_name);
  if (!may_write_device_memory(call->kind)) return false;
  if (call->decode == nullptr) return true;
  const std::uint64_t dst = params.memory.dst;
  if (tracked(dst)) return false;
  return call->kind != CallKind::kCopyUnified || device_address(dst);
}

}  // namespace rangereplay::tool
