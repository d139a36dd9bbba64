// ProfilerTool: the injection object inside the application's process. It
// subscribes to CUPTI (driver API, NVTX, resource) and routes each callback:
// range markers to the trigger (core/range/range_trigger.h) and its events
// to the RangeController (tool/range_controller.h), the replay half;
// allocations to the inventory; stream captures and executable graphs to
// their bookkeeping; driver calls inside a range to the RangeRecorder
// (tool/logic/range_recorder.h), the recording half, after the CUDA-facing parts
// of recording (kernel arguments, module variables, pinned buffers). The
// report is written as JSON when the process exits (docs/architecture.md).
//
// One instance per process (instance()). Callbacks may come from any
// application thread: `mutex_` guards range state and recording; the
// inventory has its own lock, held for a whole replay window. Nothing here
// throws: failures become a declined range or a line in report.errors.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "core/allocation_inventory.h"
#include "core/capture_state.h"
#include "core/module_registry.h"
#include "core/profile_config.h"
#include "core/range/range_event.h"
#include "core/range/range_trigger.h"
#include "core/status.h"
#include "report/report_journal.h"
#include "report/report_model.h"
#include "tool/active_range.h"
#include "tool/graph_execs.h"
#include "tool/logic/driver_calls.h"
#include "tool/logic/nvtx_calls.h"
#include "tool/logic/range_recorder.h"
#include "tool/logic/tool_mutex.h"
#include "tool/range_controller.h"
#include "tool/tool_thread.h"

namespace rangereplay::tool {

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

class ProfilerTool {
 public:
  static ProfilerTool& instance();

  /// Takes the launcher gate ($RANGEREPLAY_GATE, core/launcher_gate.h)
  /// without waiting (the first range's begin waits at it), then reads the
  /// configuration ($RANGEREPLAY_CONFIG) and subscribes to CUPTI.
  Status initialize();
  /// Writes the report (at process exit).
  void finish();
  /// At process exit, before the runtime's own exit handler: replays the
  /// deferred ranges (--batch-ranges) while their kernels exist.
  void replay_deferred_at_exit();

  void on_driver_api(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data);
  void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData* data);

 private:
  /// initialize() after taking the gate: configuration, range trigger, CUPTI
  /// subscription and domains.
  Status configure_and_subscribe();
  // The report's process id, host name and the environment variables the
  // configuration names (and the ranks' variables) that are set here.
  void record_process_identity();
  // True in a child forked (without exec) from the profiled process after
  // the tool initialized: its pid differs from the one recorded then.
  bool forked_child() const;

  // Range selection (profiler_tool.cpp): acts on what the trigger decided
  // (the controller begins and ends ranges) and keeps range_open_ and
  // range_beginning_ in step.
  void on_range_event(const range::RangeEvent& event, CUcontext ctx);
  void on_launch_site(const DriverCall& call, const CUpti_CallbackData* data);
  /// One NVTX call of tool thread `thread`, decoded by decode_nvtx_call
  /// (nvtx_calls.h) and not kIgnored: keeps the names of domains and
  /// registered strings, turns range markers into trigger calls (names
  /// resolved from those) and acts on the event. Caller holds mutex_ and is
  /// in an InToolScope.
  void on_nvtx_locked(std::uint64_t thread, NvtxCall call);

  // Stream capture (capture_tracking.cpp). on_capture_api updates captures_
  // from a capture begin/end, a thread's mode exchange, an event record, a
  // stream wait or a stream's destruction (a row of kind kCapture*, kEvent*,
  // kStreamWaitEvent or kStreamDestroy; no tool lock taken but at a capture
  // begin inside a range).
  void on_capture_api(const DriverCall& call, const CUpti_CallbackData* data);
  // cuProfilerStart (at its exit) and cuProfilerStop (at its entry): the
  // trigger's range events, when ranges are the profiler API's (takes mutex_).
  void on_profiler_api(const DriverCall& call, const CUpti_CallbackData* data);
  // A teardown row's call (context, module or object end): deferred ranges
  // are replayed and the standing pass read before a context ends, and a
  // context's end is noted after it (takes mutex_ then).
  void on_teardown_api(const DriverCall& call, const CUpti_CallbackData* data);
  // A call's part inside a range by its row's InRange: recorded, declining
  // or passed through (work a capture records into a graph is left out);
  // tracked rows were handled by their kind.
  void observe_by_row(const DriverCall& call, const CUpti_CallbackData* data);
  // The capture key (stream_key) of the stream `params` (decoded by `call`'s
  // row) names; 0 for a call submitted to no stream.
  static std::uint64_t capture_key(const DriverCall& call, const CallParams& params);
  // A capture begin call is about to run while a range is open: the range
  // is declined (its work from now on would not execute) and, before the
  // capture exists, its counters are stopped (takes mutex_).
  void capture_begins_in_range(const char* call);

  // Recording (profiler_tool.cpp routes to the range recorder,
  // tool/logic/range_recorder.h; recording.cpp does its CUDA-facing parts). A call
  // without a row (`call` null) is observed inside a range like one that is
  // passed through, and declines when its name is a family of GPU work.
  void observe_if_in_range(const DriverCall* call, const CUpti_CallbackData* data);
  // Whether `address`, which the inventory does not hold, is device memory
  // the host cannot read, as the driver sees it (cuPointerGetAttribute: a
  // memory type other than host, not managed). Caller holds InToolScope.
  static bool untracked_device_memory(std::uint64_t address);
  // Whether the driver knows `address` as memory of another type than host
  // memory (device, managed, array). Caller holds InToolScope.
  static bool device_memory(std::uint64_t address);
  // At the entry of a call that writes device memory no deferred range's
  // snapshot may hold (writes_untracked_device_memory): the deferred ranges
  // are replayed first (takes mutex_ only then). Called while ranges are
  // deferred and no capture is open.
  void replay_deferred_before_untracked_write(const DriverCall* call, const CUpti_CallbackData* data);
  // Whether `data`'s call went to another context than `range`'s; if so the
  // range is declined (multiple_devices for another device's context, else
  // multiple_contexts). Caller holds mutex_.
  static bool in_other_context(ActiveRange& range, const CUpti_CallbackData* data);
  // The launch's kernel, number, function, grid, block and shared memory as a
  // KernelLaunchOp (recording.cpp); no stream, attributes or arguments.
  static KernelLaunchOp launch_shape(const LaunchParams& launch, const char* symbol);
  // A kernel or graph launch (`call`, at its entry) inside a range an
  // application range replay run counts: noted in the range's kernel list.
  // Caller holds mutex_.
  void note_app_range_work(ActiveRange& range, const DriverCall& call, const CUpti_CallbackData* data);
  // The range being recorded: active, profiled, not an application range
  // replay run's and not declined; or null.
  // Caller holds mutex_.
  ActiveRange* recording() const;
  // `range` is recording() (active, profiled, not declined).
  void observe_in_range(ActiveRange& range, const DriverCall* call, const CUpti_CallbackData* data);
  // The recorder over `range`'s program and eligibility. Caller holds mutex_.
  RangeRecorder range_recorder(ActiveRange& range) {
    return RangeRecorder(range.program, range.eligibility, inventory_, untracked_device_memory);
  }
  // A kernel launch's event for the recorder: captures the kernel's module
  // variables (declining when they cannot be), then copies its arguments.
  // Caller holds mutex_ and InToolScope.
  void prepare_launch(ActiveRange& range, const CallParams& params, const CUpti_CallbackData* data,
                      DriverCallEvent& event);
  // An allocation or free row's call, in or out of ranges: declines an open
  // range and updates the inventory (takes mutex_).
  void on_memory_api(const DriverCall& call, const CUpti_CallbackData* data);
  void track_allocation(const DriverCall& call, const CallParams& params, const CUpti_CallbackData* data);
  // Adds pinned host memory at `host` (`bytes` long) to the inventory at its
  // device address, when a device can reach it.
  void track_mapped_host(void* host, std::uint64_t bytes, const char* origin);

  // Graphs (graph_recording.cpp): the executable graphs' table, followed
  // in and out of ranges, and graph launches as one recorded op.
  /// Instantiation, update, parameter changes and destruction of executable
  /// graphs (any callback site; takes mutex_). Inside a range, destroying or
  /// changing an exec the range launched declines it.
  void on_graph_exec_api(const DriverCall& call, const CUpti_CallbackData* data);
  /// A graph launch inside the recording range: recorded when its exec's
  /// entry is known and its nodes are supported (core/graph_nodes.h), with
  /// its kernels' module variables captured; declined otherwise. Caller
  /// holds mutex_ and InToolScope; `range` is recording().
  void record_graph_launch(ActiveRange& range, const CallParams& params, const CUpti_CallbackData* data);
  // By exec handle (mutex_).
  GraphExecTable graph_execs_;

  ProfileConfig config_;
  bool enabled_ = false;
  // Stream captures open in the process (its own leaf lock).
  CaptureState captures_;
  AllocationInventory inventory_;
  // The tool's lock (tool_mutex.h); lock_tool takes it for the calling
  // thread in API `call`. Lock order: mutex_, then the inventory's lock,
  // then captures_' (docs/architecture.md, "Locks").
  ToolMutex mutex_;
  // Whether this thread holds mutex_ at process exit (exit() from a signal
  // handler that interrupted a callback): says so on stderr. Taking the lock
  // again would deadlock.
  bool exiting_inside_the_tool() const;
  // Every release of the lock writes the journal first (sync_journal) and
  // flushes it to disk after (JournalWriter::flush).
  ToolLock lock_tool(const char* call) {
    return ToolLock(mutex_, tool_thread_number(), call, debug_enabled_,
                    ToolLock::Hook{&ProfilerTool::journal_write_hook, &ProfilerTool::journal_flush_hook, this});
  }
  // Appends the ranges finished since the last sync to the journal
  // (report/report_journal.h), so a process killed before its exit handler
  // loses none; one line on stderr if the journal fails, and the report is
  // still written at exit. Caller holds mutex_. Never throws.
  void sync_journal() noexcept;
  static void journal_write_hook(void* tool) noexcept { static_cast<ProfilerTool*>(tool)->sync_journal(); }
  static void journal_flush_hook(void* tool) noexcept {
    if (auto& journal = static_cast<ProfilerTool*>(tool)->journal_) journal->flush();
  }
  const bool debug_enabled_ = debug_enabled();
  range::RangeTrigger trigger_;
  // Whether the controller has an active range; read without mutex_ to keep
  // calls outside ranges cheap.
  std::atomic<bool> range_open_{false};
  // From the start of a range's begin until range_open_ is set (or the
  // begin declined): the capture-begin handshake (capture_tracking.cpp).
  std::atomic<bool> range_beginning_{false};
  // Kernel launches of the process so far (every thread; the tool's own
  // replays are not counted): KernelLaunchOp::launch_index.
  std::atomic<std::uint64_t> kernel_launches_{0};
  // Loaded modules' writable __device__ variables and the module loads and
  // unloads of the open range (core/module_registry.h: filled by resource
  // callbacks, which must not wait for mutex_).
  ModuleRegistry modules_;
  // NVTX domain and registered-string names, by handle (mutex_).
  std::unordered_map<const void*, std::string> nvtx_domains_;
  std::unordered_map<const void*, std::string> nvtx_strings_;
  report::Report report_;
  // The journal of report_'s ranges (mutex_); set up with the configuration.
  std::unique_ptr<report::JournalWriter> journal_;
  // The replay half: the active range, the counters, the snapshot tiers
  // (mutex_). Declared after the parts it is given.
  RangeController ranges_{RangeControllerParts{config_, captures_, inventory_, modules_, report_, mutex_}};
  std::atomic<bool> finished_{false};
  // replay_deferred_at_exit is registered with atexit (mutex_).
  bool exit_replay_registered_ = false;
};

}  // namespace rangereplay::tool
