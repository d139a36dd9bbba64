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
#include "core/decline_reason.h"
#include "core/environment.h"
#include "core/graph_nodes.h"
#include "core/launcher_gate.h"
#include "core/module_registry.h"
#include "core/profile_config.h"
#include "core/range/range_event.h"
#include "core/recorded_program.h"
#include "core/status.h"
#include "cuda/digest_plan.h"
#include "cuda/snapshot.h"
#include "cupti/range_profiler_session.h"
#include "report/report_model.h"
#include "tool/active_range.h"
#include "tool/metric_evaluator.h"
#include "core/range/range_trigger.h"
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

/// Milliseconds from `start` to now (steady clock).
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
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
  void on_launch_site(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void on_nvtx_locked(CUpti_CallbackId cbid, const CUpti_NvtxData* data);
  void record_overlapping_range(const range::RangeEvent& event);

  // Range lifecycle (range_controller.cpp).
  void begin_range(const range::RangeEvent& event, CUcontext ctx);
  void end_range();
  void decline(ActiveRange& range, DeclineReason reason, std::string detail);
  Status ensure_counters(CUcontext ctx);
  Status replay_window(ActiveRange& range);
  // Builds range.restore_plan over the entry snapshot just captured and
  // digests the entry state; on failure leaves it empty (full restore) with
  // a note in the range's record.
  void plan_differential_restore(ActiveRange& range);
  // --verify (verify.cpp): digests of the range-exit state, then of the state
  // after each replay, compared per region. With differential restore the
  // restore plan serves (its exit digests, and the digests each restore
  // found); with --restore full a digest-only plan over the allocations.
  StatusOr<DigestPlan> exit_digests(ActiveRange& range);
  Status compare_with_exit(ActiveRange& range, DigestPlan& plan, report::PassRecord& pass);
  // Appends to `pass` one divergence per allocation with a chunk whose digest
  // differs between `found` and `exit` (one digest per chunk of `table`,
  // whose regions map to allocations by range.digest_allocations).
  void record_divergences(const ActiveRange& range, const ChunkTable& table, std::span<const std::uint64_t> found,
                          std::span<const std::uint64_t> exit, report::PassRecord& pass);
  Status evaluate(ActiveRange& range);
  // Kernel records of the range's recorded kernels, with their counter
  // values where `values` (one row per counter range) has them.
  void record_kernels(ActiveRange& range, const std::vector<std::vector<double>>& values);
  std::vector<report::MetricValue> metric_values(const std::vector<double>& values) const;
  // The standing pass (one-pass metric lists with --range-metrics whole):
  // opens it at the first range (set config, one CUPTI start) and pushes
  // the range's counter range; flush ends the pass (one stop), decodes and
  // writes each pending range's values into its report record. Flushed when
  // the image is full and at exit (finish()).
  bool standing_pass_eligible() const;
  // The session mode --range-metrics asks for (a range may switch it for
  // itself: graph ranges, the standing pass; it is set back after).
  cupti::RangeProfilerSession::Mode configured_counter_mode() const;
  Status push_standing_range(ActiveRange& range);
  void flush_standing_pass(const char* why);
  void progress(const ActiveRange& range, std::size_t pass);
  /// Fills range.record's decline fields (and prints the decline) when the
  /// range is declined.
  void report_decline(ActiveRange& range);
  /// At a range's end: its decline, its notes (skipped copies, modules
  /// loaded), the window's times; moves its record into the report (and
  /// into standing_pending_ when its values come with the standing pass).
  void report_range(ActiveRange& range);
  /// Fills `record`'s decline fields (the reason's fix appended to `detail`)
  /// and prints the decline unless --quiet.
  void record_decline(report::RangeRecord& record, DeclineReason reason, const std::string& detail);

  // Stream capture (capture_tracking.cpp). on_capture_api updates captures_
  // from a capture begin/end, a thread's mode exchange, an event record, a
  // stream wait or a stream's destruction (no tool lock taken); it returns
  // true for the capture calls themselves, which need nothing else.
  bool on_capture_api(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  // The capture key (stream_key) of the stream a kernel launch or a
  // stream-ordered allocation or free (cuMemAllocAsync,
  // cuMemAllocFromPoolAsync, cuMemFreeAsync) goes to; 0 for other calls.
  static std::uint64_t call_stream_key(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
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

  // Recording (recording.cpp).
  void record_launch(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void record_memory_op(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void observe_in_range(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void observe_new_operations(std::size_t first, CUcontext ctx);
  void track_allocation(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
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
  void on_graph_exec_api(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void record_graph_launch(const CUpti_CallbackData* data);
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
  Status track_module_globals(CUpti_CallbackId cbid, const CUpti_CallbackData* data, const ModuleGlobals& module);
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
  bool counters_failed_ = false;
  std::string counters_error_;
  DeclineReason counters_reason_ = DeclineReason::kCountersUnavailable;
  // NVTX domain and registered-string names, by handle (mutex_).
  std::unordered_map<const void*, std::string> nvtx_domains_;
  std::unordered_map<const void*, std::string> nvtx_strings_;

  // Counter configuration, once per process (ensure_counters).
  std::unique_ptr<cupti::RangeProfilerSession> session_;
  std::unique_ptr<MetricEvaluator> evaluator_;
  std::uint32_t pass_count_ = 0;
  // Kernels per range name, from the last profiled range of that name: the
  // counter image for a one-pass range is sized from it.
  std::unordered_map<std::string, std::size_t> kernels_by_range_name_;
  // The standing pass: open, counter ranges pushed so far, and the report
  // records (index in report_.ranges) waiting for their counter range.
  bool standing_open_ = false;
  std::size_t standing_pushed_ = 0;
  struct StandingPending {
    std::size_t record_index;
    std::size_t counter_range;
  };
  std::vector<StandingPending> standing_pending_;
  // Counter ranges one standing pass holds (its image: ~6.6 KB per metric
  // and range on GH100).
  static constexpr std::size_t kStandingRanges = 256;
  std::size_t counter_ranges_for(const std::string& range_name) const;
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
