// The driver API calls the tool intercepts: one row per CUPTI driver
// callback id (cupti_driver_cbid.h) saying what kind of call it is, how its
// parameters are decoded, what it does to a range open when it is made, and
// for memory calls, what it does to the allocation inventory. The router
// (ProfilerTool::on_driver_api), the recorder, the capture and graph
// bookkeeping and the unrecorded-work classifier all read it; adding a call
// is one row here and its line in tests/unit/tool/driver_calls_test.cpp.
//
// Calls without a row still reach the tool: CUPTI's whole driver domain is
// enabled, since inside a range any call may be GPU work the recorder does
// not know. Such a call declines the range unsupported_api when its name
// belongs to a family of GPU work (core/record/unrecorded_work.h), and passes
// otherwise.
//
// The table and the decoders call no CUDA function: they are tested on the
// CPU with synthetic parameter structs. Thread-safety: the table is constant;
// decoders are pure functions of the parameter struct they are given.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/base/decline_reason.h"
#include "core/record/recorded_program.h"

namespace rangereplay::tool {

/// What a call is.
enum class CallKind : std::uint8_t {
  kKernelLaunch,               // cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel
  kGraphLaunch,                // cuGraphLaunch: one recorded op
  kHostFunction,               // cuLaunchHostFunc
  kMultiDeviceLaunch,          // cuLaunchCooperativeKernelMultiDevice
  kMemset,                     // cuMemsetD8/D16/D32: a MemsetOp; the 2D cuMemsetD2D* decline
  kCopyDeviceToDevice,         // a CopyDeviceOp
  kCopyHostToDevice,           // a CopyFromHostOp, its source bytes captured
  kCopyDeviceToHost,           // not re-executed (counted as skipped)
  kCopyUnified,                // cuMemcpy, cuMemcpyAsync: the direction follows from the inventory
  kAllocation,                 // makes memory accessible to kernels (allocation_in_range)
  kFree,                       // releases tracked memory (free_in_range)
  kCaptureBegin,               // opens a stream capture
  kCaptureEnd,                 // closes one
  kCaptureModeExchange,        // cuThreadExchangeStreamCaptureMode
  kEventRecord,                // an event recorded in a stream (capture membership)
  kStreamWaitEvent,            // a stream waits on an event (joins the event's capture)
  kEventDestroy,               // the event leaves its capture
  kStreamDestroy,              // the stream leaves its capture
  kGraphInstantiate,           // an executable graph is made: its graph is read
  kGraphExecUpdate,            // cuGraphExecUpdate: the exec's new graph is read
  kGraphExecDestroy,           // the exec is forgotten
  kGraphExecKernelNodeParams,  // a kernel node's new parameters, followed
  kGraphExecNodeParams,        // cuGraphExecNodeSetParams: followed for a kernel node, otherwise a change
  kGraphExecChildGraph,        // cuGraphExecChildGraphNodeSetParams: the child graph's nodes are read again
  kGraphExecChange,            // any other change of an exec's nodes: its summary becomes unknown
  kStreamAttachMemory,         // cuStreamAttachMemAsync: managed memory attached to the host or not
  kPhysicalAllocation,         // cuMemCreate: physical memory, accessible only once mapped and given access
  kProfilerStart,              // cuProfilerStart (range trigger)
  kProfilerStop,               // cuProfilerStop (range trigger)
  kTeardown,  // ends a context, unloads a module or destroys an object kernels may use (an array, a texture or
              // surface, external or IPC memory, a pool): deferred replays run at its entry
};

/// What the call does to a range open when it is made.
enum class InRange : std::uint8_t {
  kRecord,             // recorded into the range's program (a device-to-host copy: counted as skipped)
  kDecline,            // left out of the recording: declines the range with the row's reason
  kTrackAndDecline,    // tracked by the tool (inventory, captures) and declines the range with the row's reason
  kTrackAndKeep,       // tracked (inventory); inside a range, device memory it allocates keeps its bytes as
                       // the replays' entry state (EntrySnapshots::keep_allocation); declines with the row's
                       // reason only when they cannot be kept
  kDeclineIfLaunched,  // executable-graph calls: tracked; declines with the row's reason when the range launched the
                       // exec
  kPassThrough,        // reaches the recorder, which records nothing (a call from a second context still declines)
  kTrackOnly,          // tracked by the tool (captures, graphs, the range trigger); never reaches the recorder
};

/// What an allocation or free row does to the allocation inventory.
enum class MemoryEffect : std::uint8_t {
  kNone,
  kAddDevice,         // cuMemAlloc: device memory, writable by the allocating device
  kAddPitched,        // cuMemAllocPitch: pitch * height bytes
  kAddManaged,        // cuMemAllocManaged
  kAddStreamOrdered,  // cuMemAllocAsync, cuMemAllocFromPoolAsync
  kMapVirtual,        // cuMemMap: a span writable by no device yet
  kSetAccess,         // cuMemSetAccess: read-write access per device
  kUnmapVirtual,      // cuMemUnmap, at its entry
  kAddPinnedHost,     // cuMemHostAlloc, cuMemAllocHost: at its device address
  kRegisterHost,      // cuMemHostRegister: unless read-only or I/O memory
  kRemove,            // cuMemFree, cuMemFreeAsync, at its entry
  kRemoveHost,        // cuMemFreeHost, cuMemHostUnregister, by host address, at its entry
  kCreatePhysical,    // cuMemCreate: device memory of `bytes` (0 for other locations), not yet mapped
};

/// A kernel launch's parameters (kKernelLaunch rows).
struct LaunchParams {
  LaunchApi api = LaunchApi::kLaunchKernel;
  CUfunction function = nullptr;
  std::uint32_t grid[3] = {0, 0, 0};
  std::uint32_t block[3] = {0, 0, 0};
  std::uint32_t shared_mem_bytes = 0;
  void** kernel_params = nullptr;
  void** extra = nullptr;                         // null for cooperative launches
  const CUlaunchAttribute* attributes = nullptr;  // cuLaunchKernelEx only
  std::uint32_t attribute_count = 0;
};

/// A memset's or copy's parameters (kMemset and kCopy* rows). Memsets set
/// `count` elements of `element_bytes` (1, 2 or 4) to `value` at `dst`;
/// copies move `bytes` from `src` (a device or unified address) or
/// `src_host` to `dst`.
struct MemoryOpParams {
  std::uint64_t dst = 0;
  std::uint64_t src = 0;
  const void* src_host = nullptr;
  std::uint64_t bytes = 0;
  std::uint32_t value = 0;
  std::uint32_t element_bytes = 0;
  std::uint64_t count = 0;
};

/// An allocation's or free's parameters (kAllocation and kFree rows).
/// Outputs (`address_out`, `host_out`, `pitch_out`) point at the caller's
/// variables, which hold the result at the call's exit once it succeeded.
struct AllocationParams {
  CUdeviceptr address = 0;  // freed, mapped, unmapped or access-changed span
  const CUdeviceptr* address_out = nullptr;
  void* host = nullptr;  // registered or freed host memory
  void* const* host_out = nullptr;
  std::size_t bytes = 0;
  const std::size_t* pitch_out = nullptr;
  std::size_t height = 0;
  unsigned flags = 0;                       // cuMemAllocManaged's and cuMemHostRegister's flags
  const CUmemAccessDesc* access = nullptr;  // cuMemSetAccess's descriptors
  std::size_t access_count = 0;
};

/// The bytes a kAddDevice, kAddPitched or kAddStreamOrdered row's call
/// allocated, read at its successful exit: pitch * height for a pitched
/// allocation (the pitch is an output), the requested size otherwise.
inline std::uint64_t allocated_bytes(MemoryEffect effect, const AllocationParams& p) {
  return effect == MemoryEffect::kAddPitched ? std::uint64_t{*p.pitch_out} * p.height : p.bytes;
}

/// A capture, event or stream call's parameters (kCapture* rows, kEvent*,
/// kStreamWaitEvent, kStreamDestroy).
struct CaptureParams {
  CUevent event = nullptr;
  int mode = 0;                                     // the capture mode of a begin (0, global, for the legacy begin)
  const CUstreamCaptureMode* mode_inout = nullptr;  // cuThreadExchangeStreamCaptureMode
};

/// An executable-graph call's parameters (kGraph* rows but kGraphLaunch,
/// whose exec is `exec` too).
struct GraphExecParams {
  CUgraphExec exec = nullptr;
  const CUgraphExec* exec_out = nullptr;  // instantiations: the new exec, at a successful exit
  CUgraph graph = nullptr;     // instantiations and updates: the source graph; child-graph changes: the new child
  CUgraphNode node = nullptr;  // kernel-node and child-graph-node changes
  /// A kernel node's new parameters (kGraphExecKernelNodeParams, and
  /// kGraphExecNodeParams for a kernel node); nullopt when the call passes
  /// none or, for cuGraphExecNodeSetParams, another node type.
  std::optional<CUDA_KERNEL_NODE_PARAMS> kernel_node;
};

/// What a kTeardown row that ends a context ends (the rows of other
/// teardowns, modules and objects, decode nothing).
enum class ContextTeardown : std::uint8_t {
  kNone,
  kContext,         // cuCtxDestroy: `context`
  kPrimaryReset,    // cuDevicePrimaryCtxReset: the primary context of `device`, always
  kPrimaryRelease,  // cuDevicePrimaryCtxRelease: that context, when this was its last reference
};

/// A context teardown's parameters.
struct TeardownParams {
  ContextTeardown what = ContextTeardown::kNone;
  CUcontext context = nullptr;
  CUdevice device = 0;
};

/// One call's parameters as its row's decoder reads them from CUPTI's
/// parameter struct; the parts its kind does not use stay empty.
struct CallParams {
  /// The stream the call is submitted to (kernel and graph launches,
  /// stream-ordered allocations and frees, capture, event and stream calls;
  /// nullptr is the default stream); none for other calls.
  std::optional<CUstream> stream;
  LaunchParams launch;
  MemoryOpParams memory;
  AllocationParams allocation;
  CaptureParams capture;
  GraphExecParams graph;
  TeardownParams teardown;
};

/// Reads a call's parameters from its CUPTI parameter struct
/// (CUpti_CallbackData::functionParams); dereferences no output pointer.
using CallDecoder = CallParams (*)(const void* params);

/// One intercepted driver call.
struct DriverCall {
  std::uint32_t cbid = 0;  // CUpti_CallbackId, CUPTI_DRIVER_TRACE_CBID_*
  std::string_view name;   // the API's name as CUPTI reports it
  CallKind kind = CallKind::kKernelLaunch;
  InRange in_range = InRange::kPassThrough;
  /// The decline inside a range (kDecline, kTrackAndDecline and
  /// kDeclineIfLaunched rows; none for an instantiation or a graph launch).
  std::optional<DeclineReason> reason;
  MemoryEffect effect = MemoryEffect::kNone;  // kAllocation and kFree rows
  CallDecoder decode = nullptr;               // null: the tool reads no parameter of the call
  /// kDecline rows: why, appended to the decline's detail ("" for none).
  std::string_view why;

  /// A _ptsz or _ptds variant: stream 0 is the calling thread's per-thread
  /// default stream.
  constexpr bool per_thread_stream() const { return name.ends_with("_ptsz") || name.ends_with("_ptds"); }
  /// The name without a _ptsz or _ptds suffix (allocation origins, decline
  /// details that name the family).
  constexpr std::string_view base_name() const { return per_thread_stream() ? name.substr(0, name.size() - 5) : name; }
};

/// Every row (no two with the same callback id).
std::span<const DriverCall> driver_calls();

/// The row of callback id `cbid`, or null for a call the table does not list.
/// Constant time.
const DriverCall* find_driver_call(std::uint32_t cbid);

/// A decline: its reason and its detail (the report's text before the fix).
struct CallDecline {
  DeclineReason reason;
  std::string detail;
};

/// The decline of a call made inside a profiled range that the recorder
/// leaves out. A kDecline row: its reason, detail "<base name> inside the
/// range[: why]". A call without a row (`call` null) whose name belongs to
/// a family of GPU work (core/record/unrecorded_work.h): unsupported_api, detail
/// "<name> inside the range: the tool does not record this call, so a
/// replay would leave it out". nullopt for any other call (recorded,
/// tracked, passed through, or of no family).
std::optional<CallDecline> unrecorded_call_decline(const DriverCall* call, std::string_view function_name);

/// Whether a call made inside a range that was replayed at a free
/// (RangeController::replay_before_free) is work that replay misses: a
/// recorded or declined row, but a device-to-host copy (never re-executed)
/// or a teardown; a call without a row (`call` null) of a family of GPU work
/// (unrecorded_call_decline). Not a pass-through row (a synchronization, a
/// query).
bool is_work_after_free(const DriverCall* call, std::string_view function_name);

/// Whether a call of this kind may write device memory: memsets, copies
/// into device or unified memory (the rows writes_untracked_device_memory
/// looks further into).
constexpr bool may_write_device_memory(CallKind kind) {
  return kind == CallKind::kMemset || kind == CallKind::kCopyHostToDevice || kind == CallKind::kCopyDeviceToDevice ||
         kind == CallKind::kCopyUnified;
}

/// While ranges are deferred (--batch-ranges): whether the call about to
/// run writes device memory that no deferred range's snapshot may hold, so
/// that they must be replayed first (their replays would read its new
/// bytes). `call` is the call's row (null for a call without one, named
/// `function_name`) and `params` its decoded parameters; `tracked(address)`
/// says whether an address lies in memory the allocation inventory holds,
/// `device_address(address)` whether an untracked address is device memory
/// (asked only for cuMemcpy's unified copies, whose destination may be
/// pageable host memory). True for a memset or a host-to-device or
/// device-to-device copy into untracked memory (a `__constant__` variable,
/// another allocator's memory) or whose destination the row does not
/// decode (2D memsets), a unified copy into untracked device memory, and a
/// call without a row of a family of GPU work (core/record/unrecorded_work.h:
/// copies into CUDA arrays, 2D and 3D copies, stream memory operations),
/// whose destination is not read. False for anything else. Pure: the
/// predicates are the only lookups.
bool writes_untracked_device_memory(const DriverCall* call, std::string_view function_name, const CallParams& params,
                                    const std::function<bool(std::uint64_t)>& tracked,
                                    const std::function<bool(std::uint64_t)>& device_address);

}  // namespace rangereplay::tool
