// ProfilerTool: the injection object inside the application's process, the
// thin adapter between CUPTI and the tool's two sides. It subscribes to CUPTI
// (driver API, NVTX, resource) and routes each callback by its row of the
// driver-call table (tool/logic/driver_calls.h): range markers to the trigger
// (core/config/range_trigger.h) and its events to the RangeController
// (tool/range_controller.h), the range lifecycle and replay side; stream
// captures, allocations, executable graphs, module loads and driver calls
// inside a range to the RecordSession (tool/record_session.h), the record
// side, which owns their bookkeeping and records into the active range
// through the RangeRecorder (tool/logic/range_recorder.h). The report is
// written as JSON when the process exits (docs/architecture.md).
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

#include "core/base/status.h"
#include "core/config/profile_config.h"
#include "core/config/range_trigger.h"
#include "core/range/range_event.h"
#include "report/report_journal.h"
#include "report/report_model.h"
#include "tool/counter_setup.h"
#include "tool/logic/driver_calls.h"
#include "tool/logic/host_warm_up.h"
#include "tool/logic/nvtx_calls.h"
#include "tool/logic/tool_mutex.h"
#include "tool/range_controller.h"
#include "tool/record_session.h"
#include "tool/tool_thread.h"

namespace rangereplay::tool {

class ProfilerTool {
 public:
  static ProfilerTool& instance();

  /// Takes the launcher gate ($RANGEREPLAY_GATE, core/interprocess/launcher_gate.h)
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

  // cuProfilerStart (at its exit) and cuProfilerStop (at its entry): the
  // trigger's range events, when ranges are the profiler API's (takes mutex_).
  void on_profiler_api(const DriverCall& call, const CUpti_CallbackData* data);
  // A teardown row's call (context, module or object end): deferred ranges
  // are replayed and the standing pass read before a context ends, and a
  // context's end is noted after it (takes mutex_ then).
  void on_teardown_api(const DriverCall& call, const CUpti_CallbackData* data);
  // At an allocation's or a launch's exit: starts counter_prewarm_ when the
  // call succeeded in a context and no range has begun.
  void maybe_prewarm_counters(const CUpti_CallbackData* data);

  ProfileConfig config_;
  bool enabled_ = false;
  // The tool's lock (tool_mutex.h); lock_tool takes it for the calling
  // thread in API `call`, and so does the record session, with the same
  // hook. Lock order: mutex_, then the inventory's lock, then a leaf lock
  // (the captures', the module registry's; docs/architecture.md, "Locks").
  ToolMutex mutex_;
  // Whether this thread holds mutex_ at process exit (exit() from a signal
  // handler that interrupted a callback): says so on stderr. Taking the lock
  // again would deadlock.
  bool exiting_inside_the_tool() const;
  // Every release of the lock writes the journal first (sync_journal) and
  // flushes it to disk after (JournalWriter::flush).
  ToolLock lock_tool(const char* call) {
    return ToolLock(mutex_, tool_thread_number(), call, debug_enabled_, journal_hook());
  }
  ToolLock::Hook journal_hook() {
    return ToolLock::Hook{&ProfilerTool::journal_write_hook, &ProfilerTool::journal_flush_hook, this};
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
  // NVTX domain and registered-string names, by handle (mutex_).
  std::unordered_map<const void*, std::string> nvtx_domains_;
  std::unordered_map<const void*, std::string> nvtx_strings_;
  report::Report report_;
  // The journal of report_'s ranges (mutex_); set up with the configuration.
  std::unique_ptr<report::JournalWriter> journal_;
  // The record side: captures, executable graphs, the inventory and the
  // module registry, and the recording of driver calls into the active
  // range. It is given the controller, which is constructed after it and
  // which it uses from callbacks only.
  RecordSession record_{RecordSessionParts{config_, mutex_, journal_hook(), ranges_, range_open_, range_beginning_}};
  // The range lifecycle and replay side: the active range, the counters,
  // the snapshot tiers (mutex_). Declared after the parts it is given; the
  // captures, the inventory and the module registry are the record
  // session's.
  // The counter set-up on a tool thread before the first range
  // (unless RANGEREPLAY_COUNTER_PREWARM=0): started at the application's first
  // allocation or launch (maybe_prewarm_counters), waited for at capture
  // begins and before a context's end, adopted by the counters.
  CounterPrewarm counter_prewarm_{record_.captures()};
  // Set once the configuration asks for counter_prewarm_ and profiles.
  bool prewarm_wanted_ = false;
  // A range has begun: the counters are set up at it, not on a tool thread.
  std::atomic<bool> first_range_begun_{false};
  RangeController ranges_{RangeControllerParts{config_, record_.captures(), record_.inventory(), record_.modules(),
                                               report_, mutex_, &counter_prewarm_}};
  std::atomic<bool> finished_{false};
  // replay_deferred_at_exit is registered with atexit (mutex_).
  bool exit_replay_registered_ = false;
  // CUPTI's metric host library, started on a thread of its own when the
  // application creates its first context, unless RANGEREPLAY_METRIC_HOST_WARMUP
  // is 0 (on_resource); finish() and the destructor wait for it. The thread makes
  // no CUDA call; marked as the tool's all the same.
  HostWarmUp metric_host_warm_up_{[] {
    InToolScope scope;
    warm_up_metric_host();
  }};
};

}  // namespace rangereplay::tool
