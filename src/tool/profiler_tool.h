// ProfilerTool: the profiler inside the application's process. It receives
// CUPTI callbacks (driver API, NVTX, resource), keeps the allocation
// inventory, decides where ranges begin and end, records pass 0, runs the
// replay window at range end and fills the report, written as JSON when the
// process exits (docs/architecture.md).
//
// One instance per process (instance()). Callbacks may come from any
// application thread: `mutex_` guards range state and recording; the
// inventory has its own lock, held for a whole replay window. Nothing here
// throws: failures become a declined range or a line in report.errors.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/allocation_inventory.h"
#include "core/capture_state.h"
#include "core/cubin_symbols.h"
#include "core/decline.h"
#include "core/decline_reason.h"
#include "core/elapsed.h"
#include "core/environment.h"
#include "core/graph_nodes.h"
#include "core/launcher_gate.h"
#include "core/module_registry.h"
#include "core/profile_config.h"
#include "core/range/range_event.h"
#include "core/range/range_trigger.h"
#include "core/recorded_program.h"
#include "core/status.h"
#include "cuda/digest_plan.h"
#include "cuda/snapshot.h"
#include "cupti/range_profiler_session.h"
#include "report/report_model.h"
#include "tool/active_range.h"
#include "tool/counter_session.h"
#include "tool/driver_calls.h"
#include "tool/metric_evaluator.h"
#include "tool/range_recorder.h"
#include "tool/range_report.h"
#include "tool/tool_mutex.h"

namespace rangereplay::tool {

/// RANGEREPLAY_DEBUG is set: the tool traces where its time goes on stderr.
inline bool debug_enabled() { return environment::debug(); }

/// A small number for the calling application thread (1, 2, ... in the order
/// threads first reach the tool): range selection, capture modes, debug lines.
std::uint64_t tool_thread_number();

/// Whether the driver call a CUPTI exit callback reports returned
/// CUDA_SUCCESS (false at an entry callback, where there is no result yet).
inline bool call_succeeded(const CUpti_CallbackData* data) {
  return data->callbackSite == CUPTI_API_EXIT && data->functionReturnValue != nullptr &&
         *static_cast<const CUresult*>(data->functionReturnValue) == CUDA_SUCCESS;
}

class ProfilerTool {
 public:
  static ProfilerTool& instance();

  /// Takes the launcher gate ($RANGEREPLAY_GATE, core/launcher_gate.h)
  /// without waiting (begin_range waits at it, once), then reads the
  /// configuration ($RANGEREPLAY_CONFIG) and subscribes to CUPTI.
  Status initialize();
  /// Writes the report (at process exit).
  void finish();

  void on_driver_api(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data);
  void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData* data);

 private:
  /// initialize() after taking the gate: configuration, range trigger, CUPTI
  /// subscription and domains.
  Status configure_and_subscribe();
  /// Waits at the launcher gate if it is still held (the first range's
  /// begin_range): until the launcher's checks pass, or the launcher kills
  /// the process. Records the wait in the report's gate_wait_ms. Caller holds
  /// mutex_ (or is the only thread).
  void pass_gate();

  // Range selection (profiler_tool.cpp): acts on what the trigger decided.
  void on_range_event(const range::RangeEvent& event, CUcontext ctx);
  void on_launch_site(const DriverCall& call, const CUpti_CallbackData* data);
  /// One NVTX callback, decoded by decode_nvtx_call (nvtx_calls.h): keeps
  /// the names of domains and registered strings, turns range markers into
  /// trigger calls (names resolved from those) and acts on the event. Caller
  /// holds mutex_ and is in an InToolScope.
  void on_nvtx_locked(CUpti_CallbackId cbid, const CUpti_NvtxData* data);
  void record_overlapping_range(const range::RangeEvent& event);

  // Range lifecycle (range_controller.cpp).
  // A range begins: admitted (no capture open or beginning, the profiled
  // context, counters set up), then pass 0 prepared (drain, entry state,
  // counters started); the first decline of either stands.
  void begin_range(const range::RangeEvent& event, CUcontext ctx);
  // Why a range in `ctx` cannot begin now (sets up the counters at the first
  // range); makes no call a capture forbids when one is open.
  std::optional<Decline> admit_range(CUcontext ctx);
  // Drains the context, captures the entry state (multi-pass lists) and
  // starts counter pass 0 or pushes the range onto the standing pass.
  std::optional<Decline> prepare_pass0(ActiveRange& range);
  // The entry snapshot over the regions the range's device can write, with
  // the differential restore plan; its notes and sizes into the record.
  std::optional<Decline> capture_entry_state(ActiveRange& range);
  // Splits the inventory for a range: its snapshot regions (returned, and
  // range.allocations), pinned or host-attached memory (range.host_mapped),
  // other devices' memory (range.other_device_memory). Takes the
  // inventory's lock.
  std::vector<MemoryRange> select_snapshot_regions(ActiveRange& range);
  // A range ends: pass 0 stopped, the replay window, the values evaluated,
  // the report record.
  void end_range();
  // The end of a range declined at its begin, or with a capture that began
  // inside it or is open now: no CUDA or CUPTI call (its GPU buffers are
  // parked while a capture is open).
  void end_range_without_gpu(std::unique_ptr<ActiveRange> range);
  // Stops pass 0 (pops the range's counter range of the standing pass, or
  // ends a counting pass 0, or sizes the counters to the kernels a recording
  // pass 0 ran when the drain succeeded); true when CUPTI has every pass.
  bool stop_pass0(ActiveRange& range, bool drained, std::size_t kernel_count);
  // After a pass 0 that only recorded: the counter mode for the range (whole
  // range with graph launches), the image sized to its kernels, the
  // configuration set.
  Status size_counters_to_pass0(ActiveRange& range, std::size_t kernel_count);
  void decline(ActiveRange& range, DeclineReason reason, std::string detail);
  // Sets up the counters once per process (counters_, tool/cupti_counters.h)
  // and the tool's stream; a range in another context than the first
  // profiled one, or a failing set-up, is a decline, with the reason the
  // failing step established.
  std::optional<Decline> ensure_counters(CUcontext ctx);
  // Passes the metric list needs (0 before the counter set-up).
  std::uint32_t pass_count() const { return counters_ ? counters_->pass_count() : 0; }
  // The replayed passes (tool/replay_window.h) over the range's restore
  // strategy, with --verify as its observer; nullopt when every pass ran, or
  // the range's decline. The exit state is restored either way.
  std::optional<Decline> replay_window(ActiveRange& range);
  // Builds range.restore_plan over the entry snapshot just captured and
  // digests the entry state; on failure leaves it empty (full restore) with
  // a note in the range's record.
  void plan_differential_restore(ActiveRange& range);
  Status evaluate(ActiveRange& range);
  // Kernel records of the range's recorded kernels, with their counter
  // values where `values` (one row per counter range) has them
  // (tool/range_report.h).
  void record_kernels(ActiveRange& range, const std::vector<std::vector<double>>& values);
  MetricColumns metric_columns() const;
  // The range records' decline fields, notes and times (tool/range_report.h).
  RangeReporter reporter() const { return RangeReporter(config_.quiet); }
  // The standing pass (tool/counter_session.h): pushes the range's counter
  // range into it (opening it at the first range); flush ends the pass and
  // writes each pending range's values into its report record. Flushed when
  // the image is full and at exit (finish()).
  Status push_standing_range(ActiveRange& range);
  void flush_standing_pass(const char* why);
  void progress(const ActiveRange& range, std::size_t pass);
  /// Fills range.record's decline fields (and prints the decline) when the
  /// range is declined.
  void report_decline(ActiveRange& range);
  /// At a range's end: its decline, its notes (skipped copies, modules
  /// loaded), the window's times; moves its record into the report (and
  /// makes it a pending record of the standing pass when its values come
  /// with that pass).
  void report_range(ActiveRange& range);
  /// Fills `record`'s decline fields (the reason's fix appended to `detail`)
  /// and prints the decline unless --quiet.
  void record_decline(report::RangeRecord& record, DeclineReason reason, const std::string& detail);

  // Stream capture (capture_tracking.cpp). on_capture_api updates captures_
  // from a capture begin/end, a thread's mode exchange, an event record, a
  // stream wait or a stream's destruction (a row of kind kCapture*, kEvent*,
  // kStreamWaitEvent or kStreamDestroy; no tool lock taken but at a capture
  // begin inside a range).
  void on_capture_api(const DriverCall& call, const CUpti_CallbackData* data);
  // The capture key (stream_key) of the stream `params` (decoded by `call`'s
  // row) names; 0 for a call submitted to no stream.
  static std::uint64_t capture_key(const DriverCall& call, const CallParams& params);
  // A capture begin call is about to run while a range is open: the range
  // is declined (its work from now on would not execute) and, before the
  // capture exists, its counters are stopped (takes mutex_).
  void capture_begins_in_range(const char* call);
  // Stops the counters a declined range left running (its pass 0, or its
  // counter range of the standing pass), so that its end needs no CUPTI or
  // synchronizing call. Caller holds mutex_ and InToolScope.
  void close_range_counters(ActiveRange& range);
  // At a range's begin with no capture open: stops counters and frees GPU
  // buffers that ranges ending during a capture left (counters_left_running_,
  // parked_). Caller holds mutex_ and InToolScope.
  void release_left_over_state();
  // A range ended while a capture was open and its counters could not be
  // stopped then (mutex_).
  bool counters_left_running_ = false;

  // Recording (profiler_tool.cpp routes to the range recorder,
  // tool/range_recorder.h; recording.cpp does its CUDA-facing parts). A call
  // without a row (`call` null) is observed inside a range like one that is
  // passed through, and declines when its name is a family of GPU work.
  void observe_if_in_range(const DriverCall* call, const CUpti_CallbackData* data);
  void observe_in_range(const DriverCall* call, const CUpti_CallbackData* data);
  // The recorder over the active range's program and eligibility. Caller
  // holds mutex_.
  RangeRecorder range_recorder();
  // A kernel launch's event for the recorder: captures the kernel's module
  // variables (declining when they cannot be), then copies its arguments.
  // Caller holds mutex_ and InToolScope.
  void prepare_launch(const CallParams& params, const CUpti_CallbackData* data, DriverCallEvent& event);
  // An allocation or free row's call, in or out of ranges: declines an open
  // range and updates the inventory (takes mutex_).
  void on_memory_api(const DriverCall& call, const CUpti_CallbackData* data);
  void track_allocation(const DriverCall& call, const CallParams& params, const CUpti_CallbackData* data);
  // Adds pinned host memory at `host` (`bytes` long) to the inventory at its
  // device address, when a device can reach it.
  void track_mapped_host(void* host, std::uint64_t bytes, const char* origin);

  // Graphs (graph_recording.cpp): what each executable graph runs, read at
  // instantiation, and graph launches as one recorded op.
  struct GraphExecInfo {
    std::shared_ptr<const std::vector<KernelLaunchOp>> kernels;  // kernel nodes, for the report
    std::vector<std::uint64_t> kernel_nodes;  // source-graph node of each kernel (0 inside child graphs)
    std::vector<GraphNode> nodes;             // every node, for classify_graph_nodes
    std::string unknown;  // non-empty: why the summary does not describe the exec (launches decline)
  };
  /// Instantiation, update, parameter changes and destruction of executable
  /// graphs, in or out of ranges (any callback site; takes mutex_).
  void on_graph_exec_api(const DriverCall& call, const CUpti_CallbackData* data);
  void record_graph_launch(const CallParams& params, const CUpti_CallbackData* data);
  /// Patches graph_execs_[exec]'s entry for kernel node `node` (of its
  /// source graph) to `params` (name, grid, block, arguments), after `call`
  /// set them; a node it cannot follow marks the entry unknown. Caller holds
  /// mutex_ and InToolScope.
  void follow_kernel_node(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS& params, const char* call);
  /// What an exec instantiated (or updated) from `graph` runs; `call` names
  /// the API in `unknown` when the graph cannot be read. Needs InToolScope.
  static GraphExecInfo summarize_graph(CUgraph graph, const char* call);
  // By exec handle (mutex_).
  std::unordered_map<CUgraphExec, GraphExecInfo> graph_execs_;

  ProfileConfig config_;
  bool enabled_ = false;
  // Stream captures open in the process (its own leaf lock).
  CaptureState captures_;
  AllocationInventory inventory_;
  // The tool's lock (tool_mutex.h); lock_tool takes it for the calling
  // thread in API `call`. Lock order: mutex_, then the inventory's lock,
  // then captures_' (docs/architecture.md, "Locks").
  ToolMutex mutex_;
  ToolLock lock_tool(const char* call) { return ToolLock(mutex_, tool_thread_number(), call, debug_enabled_); }
  const bool debug_enabled_ = debug_enabled();
  range::RangeTrigger trigger_;
  std::unique_ptr<ActiveRange> active_;
  // Declined ranges whose snapshot or digest plan could not be freed when
  // they ended (a capture was open: freeing is a call it forbids).
  std::vector<std::unique_ptr<ActiveRange>> parked_;
  // Whether active_ is set; read without mutex_ to keep calls outside ranges cheap.
  std::atomic<bool> range_open_{false};
  // From the start of begin_range until range_open_ is set (or the begin
  // declined): the capture-begin handshake (capture_tracking.cpp).
  std::atomic<bool> range_beginning_{false};
  // Kernel launches of the process so far (every thread; the tool's own
  // replays are not counted): KernelLaunchOp::launch_index.
  std::atomic<std::uint64_t> kernel_launches_{0};
  // Loaded modules' writable __device__ variables and the module loads and
  // unloads of the open range (core/module_registry.h: filled by resource
  // callbacks, which must not wait for mutex_).
  ModuleRegistry modules_;
  // Applies the module events of the range's window to it (declines, the
  // modules_loaded note). Caller holds mutex_.
  void apply_module_events(ActiveRange& range, std::vector<ModuleEvent> events);
  // Adds the launched kernel's module variables to the range's snapshot
  // (module_globals.cpp); an error means the range must decline.
  // `f`: the launch's function handle (an error when null).
  Status track_module_globals(CUfunction f, const ModuleGlobals& module);
  // The same for a kernel run by function handle `f` (a CUfunction or CUkernel).
  Status track_module_globals_of(CUfunction f, const ModuleGlobals& module);
  // Scans the arguments of the kernels recorded from op index `first_new` on
  // (host_regions.cpp): direct launches, and the kernel nodes of graph
  // launches whose arguments are known. A pointer into another device's
  // memory declines multiple_devices; a pinned host buffer is captured at its
  // first use in the range. `per_thread_stream`: the launch was a _ptsz
  // variant (stream 0 is the per-thread default stream). A capture that
  // fails declines the range: snapshot_does_not_fit for a buffer over the
  // size the tool copies, replay_failed otherwise.
  void scan_kernel_pointers(std::size_t first_new, bool per_thread_stream);
  // One kernel's part of scan_kernel_pointers; `stream` is its launch's.
  // `what` names it in decline details ("kernel", "graph kernel"). Errors:
  // the capture failed (resource_exhausted for a buffer over the size the
  // tool copies).
  Status scan_arguments(const KernelLaunchOp& kernel, CUstream stream, const char* what);
  // Whether the active range already holds the state of the variable or
  // buffer at `address` (ActiveRange::globals).
  bool holds_global_state(std::uint64_t address) const;
  // Copies `bytes` bytes at `address` (device-readable) into a new entry of
  // the active range's globals: its entry state, restored before each replay.
  Status capture_global_state(std::uint64_t address, std::size_t bytes);
  Status capture_globals_exit(ActiveRange& range);
  Status restore_globals(const ActiveRange& range, bool exit_state);
  // The counter set-up failed once: every later range declines the same way.
  std::optional<Decline> counters_failed_;
  // NVTX domain and registered-string names, by handle (mutex_).
  std::unordered_map<const void*, std::string> nvtx_domains_;
  std::unordered_map<const void*, std::string> nvtx_strings_;

  // The counters, set up once per process (ensure_counters): passes, image
  // sizing, the standing pass; and the context they were set up in.
  std::unique_ptr<CounterSession> counters_;
  CUcontext counters_context_ = nullptr;
  // The tool's own stream (replays, snapshot copies, digests), created with
  // the counters. Held raw on purpose: it lives as long as the process (the
  // tool is never destroyed, and a destroy at exit could race the
  // application's last callbacks).
  CUstream tool_stream_ = nullptr;
  // Snapshot tiers for the process: retained arenas are reused across ranges.
  std::unique_ptr<SnapshotStorage> snapshot_storage_;

  report::Report report_;
  // The launcher's gate, taken at initialize(); the first range waits at it
  // (the launcher's device checks must have passed before a range is
  // profiled). Guarded by mutex_ after initialize().
  HeldLauncherGate gate_;
  std::atomic<bool> finished_{false};
};

/// True while the current thread runs the tool's own CUDA work; callbacks
/// return at once then, so replays are never recorded again.
bool in_tool();
/// The process-wide number of the kernel launch the current thread is
/// making (KernelLaunchOp::launch_index); -1 before its first launch.
std::int64_t current_launch_index();
class InToolScope {
 public:
  InToolScope();
  ~InToolScope();
  InToolScope(const InToolScope&) = delete;
  InToolScope& operator=(const InToolScope&) = delete;

 private:
  bool previous_;
};

}  // namespace rangereplay::tool
