// RecordSession: the record side of the tool, one per process, owned by the
// ProfilerTool (tool/profiler_tool.h), which hands it the driver-API and
// resource callbacks that are not range selection. It owns what recording
// keeps across ranges: the stream captures open in the process
// (core/record/capture_state.h), the executable graphs' table (tool/graph_execs.h),
// the allocation inventory (core/record/allocation_inventory.h) and the module
// registry (core/record/module_registry.h). The RangeController
// (tool/range_controller.h), the replay side, is given references to the
// captures, the inventory and the module registry; this session is their one
// owner. Inside a range it records the driver calls into the active range
// through a RangeRecorder (tool/logic/range_recorder.h) over the range's
// program and eligibility, after the CUDA-facing parts of recording (kernel
// arguments, module variables, pinned buffers, graph launches judged by
// their exec's entry); it asks the controller which range is active and
// calls its flush points (deferred ranges replayed before a free, a capture
// begin, a write into untracked memory).
//
// Its members are defined in record_session.cpp (routing in and out of
// ranges, inventory and module events), recording.cpp (kernel launches and
// allocations), graph_recording.cpp (executable graphs) and
// capture_tracking.cpp (stream captures).
//
// Thread-safety: callbacks come from any application thread. Each method
// says which lock it takes: the tool's lock (the ToolMutex of
// RecordSessionParts, taken here as the ProfilerTool takes it, with its
// journal hook) guards recording and the graph table; the inventory, the
// captures and the module registry have their own locks. Lock order: the
// tool's lock, then the inventory's, then a leaf lock (docs/architecture.md,
// "Locks"). Nothing here throws by design: failures become a declined
// range (an exception that still comes, std::bad_alloc say, is caught at the
// CUPTI callback in profiler_tool.cpp, which then stops the tool).
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "core/config/profile_config.h"
#include "core/record/allocation_inventory.h"
#include "core/record/capture_state.h"
#include "core/record/module_registry.h"
#include "tool/active_range.h"
#include "tool/graph_execs.h"
#include "tool/logic/driver_calls.h"
#include "tool/logic/range_recorder.h"
#include "tool/logic/tool_mutex.h"
#include "tool/tool_thread.h"

namespace rangereplay::tool {

class RangeController;

/// Whether the driver call a CUPTI exit callback reports returned
/// CUDA_SUCCESS (false at an entry callback, where there is no result yet).
inline bool call_succeeded(const CUpti_CallbackData* data) {
  return data->callbackSite == CUPTI_API_EXIT && data->functionReturnValue != nullptr &&
         *static_cast<const CUresult*>(data->functionReturnValue) == CUDA_SUCCESS;
}

/// Declines `range` with collective_in_range when `kernel` (its symbol, as
/// CUPTI names it) is a collective-communication kernel (core/
/// collective_kernels.h) and `mode` is kDecline; with kReplay it notes the
/// first such kernel in range.collective_kernel instead. `what` says where
/// it was launched ("kernel", "graph kernel"). recording.cpp; called under
/// the tool lock.
void decline_collective(ActiveRange& range, const std::string& kernel, const char* what, CollectivesMode mode);

/// The capture key (stream_key, core/record/capture_state.h) of the stream
/// `params` (decoded by `call`'s row) names, for the calling thread; 0 for a
/// call submitted to no stream. capture_tracking.cpp.
std::uint64_t capture_key(const DriverCall& call, const CallParams& params);

/// What the session uses of the tool around it; every reference outlives
/// the session. The controller and the range flags may be constructed after
/// the session (they are only used from its callbacks).
struct RecordSessionParts {
  /// The configuration (its collectives mode, read at each launch).
  const ProfileConfig& config;
  /// The tool's lock and what its release runs (the journal).
  ToolMutex& mutex;
  ToolLock::Hook lock_hook;
  /// The replay side: the active range and the deferred ranges' flush points.
  RangeController& ranges;
  /// Whether the controller has an active range, and whether one is
  /// beginning (kept by the ProfilerTool; read without the tool's lock, for
  /// the capture-begin handshake).
  const std::atomic<bool>& range_open;
  const std::atomic<bool>& range_beginning;
};

class RecordSession {
 public:
  explicit RecordSession(RecordSessionParts parts);
  RecordSession(const RecordSession&) = delete;
  RecordSession& operator=(const RecordSession&) = delete;

  /// Stream captures open in the process (their own leaf lock).
  CaptureState& captures() { return captures_; }
  /// The allocation inventory (its own lock).
  AllocationInventory& inventory() { return inventory_; }
  /// Loaded modules' writable __device__ variables and the open range's
  /// module loads and unloads (their own leaf lock).
  ModuleRegistry& modules() { return modules_; }

  // Stream capture (capture_tracking.cpp). on_capture_api updates captures_
  // from a capture begin/end, a thread's mode exchange, an event record, a
  // stream wait or a stream's destruction (a row of kind kCapture*, kEvent*,
  // kStreamWaitEvent or kStreamDestroy; no tool lock taken but at a capture
  // begin inside a range, or one while ranges are deferred).
  void on_capture_api(const DriverCall& call, const CUpti_CallbackData* data);

  // An allocation or free row's call, in or out of ranges: declines an open
  // range and updates the inventory (takes the tool's lock).
  void on_memory_api(const DriverCall& call, const CUpti_CallbackData* data);
  // cuStreamAttachMemAsync (a kStreamAttachMemory row): at its successful
  // exit, the managed memory's host attachment in the inventory (the
  // inventory's own lock; no tool lock is waited for).
  void on_stream_attach_memory(const DriverCall& call, const CUpti_CallbackData* data);
  // cuMemCreate (a kPhysicalAllocation row): at its entry, with physical
  // memory on a device asked for, the controller makes room for it if the
  // tool's memory is in the way (RangeController::before_device_allocation;
  // the tool's lock). Nothing else: inside a range the call passes through.
  void on_physical_allocation(const DriverCall& call, const CUpti_CallbackData* data);
  // A module loaded or about to unload (CUPTI's resource domain; other ids
  // are ignored): the module registry's leaf lock only, never the tool's.
  void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData* data);

  // Graphs (graph_recording.cpp): the executable graphs' table, followed
  // in and out of ranges, and graph launches as one recorded op.
  /// Instantiation, update, parameter changes and destruction of executable
  /// graphs (any callback site; takes the tool's lock). Inside a range,
  /// destroying or changing an exec the range launched declines it.
  void on_graph_exec_api(const DriverCall& call, const CUpti_CallbackData* data);

  // A call's part inside a range by its row's InRange: recorded, declining
  // or passed through (work a capture records into a graph is left out);
  // tracked rows were handled by their kind.
  void observe_by_row(const DriverCall& call, const CUpti_CallbackData* data);
  // Recording. A call without a row (`call` null) is observed inside a range
  // like one that is passed through, and declines when its name is a family
  // of GPU work. Takes the tool's lock while a range is open or ranges are
  // deferred.
  void observe_if_in_range(const DriverCall* call, const CUpti_CallbackData* data);
  // A kernel launch (`call`, at its entry) while the caller holds the tool's
  // lock and is in an InToolScope: recorded into the recording range, or
  // noted in the kernel list of a range an application range replay run
  // counts.
  void observe_launch(const DriverCall& call, const CUpti_CallbackData* data);
  // At the entry of a call that writes device memory no deferred range's
  // snapshot may hold (writes_untracked_device_memory): the deferred ranges
  // are replayed first (takes the tool's lock only then). Called while
  // ranges are deferred and no capture is open.
  void replay_deferred_before_untracked_write(const DriverCall* call, const CUpti_CallbackData* data);

 private:
  // A capture begin call is about to run while a range is open: the range
  // is declined (its work from now on would not execute) and, before the
  // capture exists, its counters are stopped (takes the tool's lock).
  void capture_begins_in_range(const char* call);

  // The range being recorded: active, profiled, not an application range
  // replay run's and not declined; or null.
  // Caller holds the tool's lock.
  ActiveRange* recording() const;
  // `range` is recording() (active, profiled, not declined). recording.cpp.
  void observe_in_range(ActiveRange& range, const DriverCall* call, const CUpti_CallbackData* data);
  // A kernel or graph launch (`call`, at its entry) inside a range an
  // application range replay run counts: noted in the range's kernel list.
  // Caller holds the tool's lock. recording.cpp.
  void note_app_range_work(ActiveRange& range, const DriverCall& call, const CUpti_CallbackData* data);
  // The recorder over `range`'s program and eligibility, reading the
  // inventory. Caller holds the tool's lock.
  RangeRecorder range_recorder(ActiveRange& range);
  // A kernel launch's event for the recorder: captures the kernel's module
  // variables (declining when they cannot be), then copies its arguments.
  // Caller holds the tool's lock and InToolScope. recording.cpp.
  void prepare_launch(ActiveRange& range, const CallParams& params, const CUpti_CallbackData* data,
                      DriverCallEvent& event);
  /// A graph launch inside the recording range: recorded when its exec's
  /// entry is known and its nodes are supported (core/record/graph_nodes.h), with
  /// its kernels' module variables captured; declined otherwise. Caller
  /// holds the tool's lock and InToolScope; `range` is recording().
  /// graph_recording.cpp.
  void record_graph_launch(ActiveRange& range, const CallParams& params, const CUpti_CallbackData* data);

  // The inventory's part of an allocation or free row's call (recording.cpp).
  void track_allocation(const DriverCall& call, const CallParams& params, const CUpti_CallbackData* data);
  // Adds pinned host memory at `host` (`bytes` long) to the inventory at its
  // device address, when a device can reach it.
  void track_mapped_host(void* host, std::uint64_t bytes, const char* origin);

  // The tool's lock for the calling thread in API `call`, with the hook the
  // ProfilerTool gave (the journal is written before its release).
  ToolLock lock_tool(const char* call) {
    return ToolLock(mutex_, tool_thread_number(), call, debug_enabled_, lock_hook_);
  }

  const ProfileConfig& config_;
  ToolMutex& mutex_;
  const ToolLock::Hook lock_hook_;
  RangeController& ranges_;
  const std::atomic<bool>& range_open_;
  const std::atomic<bool>& range_beginning_;
  const bool debug_enabled_ = debug_enabled();
  // By exec handle (the tool's lock).
  GraphExecTable graph_execs_;
  // Stream captures open in the process (its own leaf lock).
  CaptureState captures_;
  AllocationInventory inventory_;
  // Filled by resource callbacks, which must not wait for the tool's lock
  // (core/record/module_registry.h).
  ModuleRegistry modules_;
};

}  // namespace rangereplay::tool
