// RangeController: the replay half of the tool. It owns the range that is
// open (ActiveRange) from the begin the trigger decided to its report
// record: admission (no capture open, the profiled context, the counters set
// up), pass 0 (the drain, the entry snapshot, counters started or the range
// pushed onto the standing pass), the range's end (pass 0 stopped, the
// replay window over its restore strategy, the values evaluated, the
// record). It owns what lives across ranges for that: the counters
// (tool/range_counters.h: the counter session, the tool's stream, the L2
// flush, pass 0's start and stop, the evaluation, the standing pass), the
// entry snapshots (tool/entry_snapshots.h: snapshot regions and tiers,
// differential restore plans, write sets), the deferred ranges
// (tool/deferred_ranges.h: the batch queue of --batch-ranges, its flush
// points and the batch's replay window; the controller implements the
// BatchServices it uses, the counters the counting steps), the
// --collectives replay rendezvous (tool/rank_rendezvous.h), application
// range replay's runs (tool/app_range_pass.h: a range counted in the
// application's own execution; the controller implements the
// AppRangeServices it uses), the launcher gate (tool/launcher_gate_wait.h),
// ranges parked while a capture is open. The GPU side of a recorded
// range's end, from pass 0's close to its values, is RangeEnd's
// (tool/range_end.h).
//
// The record side (the RecordSession, tool/record_session.h, recording
// through tool/logic/range_recorder.h) fills the active range's program and
// eligibility between begin() and end(); it owns the captures, the inventory
// and the module registry this controller is given references to.
// docs/architecture.md shows the pair.
//
// Thread-safety: every member but hold_gate (called once, before the tool
// subscribes to CUPTI) and has_pending (an atomic, read without the lock) is
// called with the tool's lock held (the ToolMutex in
// RangeControllerParts) and inside an InToolScope, so the driver calls it
// makes are not observed. It waits for the launcher gate (the first begin),
// the GPU (drains, snapshot copies, replays), CUPTI, and the leaf locks of
// the inventory (held for a whole replay window) and the module registry,
// never for the tool's lock of another application thread. Nothing here
// throws: failures become the range's decline or a line in the report's
// errors.
#pragma once

#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/base/decline.h"
#include "core/base/memory_range.h"
#include "core/base/status.h"
#include "core/config/profile_config.h"
#include "core/interprocess/launcher_gate.h"
#include "core/interprocess/rendezvous.h"
#include "core/range/range_event.h"
#include "core/record/allocation_inventory.h"
#include "core/record/capture_state.h"
#include "core/record/module_registry.h"
#include "core/snapshot/write_set.h"
#include "cuda/cache_flush.h"
#include "cuda/snapshot.h"
#include "report/report_model.h"
#include "tool/active_range.h"
#include "tool/app_range_pass.h"
#include "tool/deferred_ranges.h"
#include "tool/entry_snapshots.h"
#include "tool/launcher_gate_wait.h"
#include "tool/logic/counter_session.h"
#include "tool/logic/driver_calls.h"
#include "tool/logic/range_report.h"
#include "tool/logic/tool_mutex.h"
#include "tool/range_counters.h"
#include "tool/range_end.h"
#include "tool/rank_rendezvous.h"
#include "tool/restore_strategy.h"

namespace rangereplay::tool {

/// What the controller uses of the tool around it; every reference outlives
/// the controller.
struct RangeControllerParts {
  /// The configuration (read when a range begins, not at construction).
  const ProfileConfig& config;
  /// Stream captures open in the process: a range does not begin, or end on
  /// the GPU, while one is open.
  const CaptureState& captures;
  /// The allocation inventory: split into snapshot regions when a range
  /// begins; its lock is held for a whole replay window.
  AllocationInventory& inventory;
  /// Module loads and unloads of the open range's window.
  ModuleRegistry& modules;
  /// The process's report: range records, device and counter facts.
  report::Report& report;
  /// The tool's lock, held by every caller; the controller names its stage.
  ToolMutex& mutex;
  /// The counter set-up made on a tool thread before the first range, for
  /// the counters to adopt (RangeCountersParts::prewarm); null without one.
  CounterPrewarm* prewarm = nullptr;
};

class RangeController : private BatchServices, private AppRangeServices {
 public:
  explicit RangeController(RangeControllerParts parts);
  RangeController(const RangeController&) = delete;
  RangeController& operator=(const RangeController&) = delete;

  /// Keeps the launcher's gate (core/interprocess/launcher_gate.h), waited at by the
  /// first begin().
  void hold_gate(HeldLauncherGate gate) { gate_.hold(std::move(gate)); }

  /// A range begins in context `ctx` (null: none current): waits at the
  /// launcher gate if it is still held, then admits the range and prepares
  /// pass 0; the first decline of either stands and the range runs as the
  /// application's own. The range is active() afterwards either way.
  void begin(const range::RangeEvent& event, CUcontext ctx);
  /// The active range ends (nothing happens without one): pass 0 stopped,
  /// the replay window, the values, the report record. With a capture open,
  /// a range declined at its begin, or one a capture began inside, no CUDA
  /// or CUPTI call is made.
  void end();
  /// A range that began inside the active one: reported declined
  /// (overlapping_range), not profiled.
  void record_overlapping(const range::RangeEvent& event);
  /// A capture begin call `call` is about to run inside the active range.
  /// The work captured does not execute, so it is left out of the
  /// recording, and the range's name is remembered: later ranges of that
  /// name take their entry snapshot and leave pass 0 uncounted. A range
  /// counting pass 0 stops its counters now, while that is still allowed:
  /// it goes on recording when it has an entry snapshot (every counter pass
  /// is then a replay), else it is declined (stream_capture_active).
  void capture_begins(const char* call);
  /// A call `call` that frees memory is about to run inside the active
  /// range (at its entry; the caller holds the tool's lock). A recording
  /// range with an entry snapshot and kernels, on the thread that began it,
  /// is replayed now, while the
  /// memory exists, as at its end (never deferred), and becomes
  /// ReplayedBeforeFree: its record waits for the range's end. Any other
  /// range is left as it is (the recorder declines a recording one
  /// free_in_range at this call).
  void replay_before_free(const char* call);
  /// Work (`call`: a launch, a copy, a call the recorder would record or
  /// decline) is submitted inside a range replayed before a free: the range
  /// is declined free_in_range, its values dropped. Nothing for any other
  /// range. The caller holds the tool's lock.
  void work_after_free(const char* call);
  /// At process exit: an active range is reported declined
  /// (range_not_closed, no GPU work), so are deferred ranges still waiting
  /// for their replay (replay_failed: nothing is replayed at exit), and the
  /// standing pass is flushed; the
  /// report's time budget gets the first CUPTI pass start's time.
  void at_exit();

  /// The open range, or null.
  ActiveRange* active() const { return active_.get(); }
  /// The open range when it is one this application range replay run counts
  /// (Collecting, its pass begun) and not declined; else null.
  ActiveRange* app_range_counting() const {
    const auto* collecting = active_ ? std::get_if<Collecting>(&active_->state) : nullptr;
    return collecting != nullptr && collecting->started && !active_->eligibility.declined() ? active_.get() : nullptr;
  }

  /// The report records (indexes in the report's ranges) the tool will still
  /// complete: deferred ranges waiting for their batch's replay and ranges
  /// waiting for the standing pass's values. The journal writes them as not
  /// final (report/report_journal.h). Caller holds mutex_.
  std::vector<std::size_t> unsettled_records() const;

  /// The deferred ranges (--batch-ranges, deferred_ranges.h): their flush
  /// points (a free, an untracked write, a capture begin, exit) are called
  /// on them directly, with the tool's lock held; has_pending() is read
  /// without it.
  DeferredRanges& deferred() { return deferred_; }
  /// An application allocation `call` of `bytes` of device memory is about
  /// to run (its entry, outside a capture, in the calling thread's context):
  /// when the profiled context is current and the request with its headroom
  /// does not fit in the device memory free now while the tool holds some
  /// (deferred ranges' snapshots, retained arenas: tool/logic/device_room.h),
  /// the deferred ranges are replayed and the idle snapshot storages free
  /// their arenas first, so that the application does not run out of
  /// memory because of the tool. One cuMemGetInfo when the tool holds
  /// memory; nothing otherwise.
  void before_device_allocation(const char* call, std::uint64_t bytes);
  /// Device memory `region` allocated by `call` inside `range` (the range
  /// being recorded): EntrySnapshots::keep_allocation. Caller holds the
  /// tool's lock and InToolScope.
  /// A pass 0 that counts the application's run stops its counters first
  /// (every counter pass becomes a replay), so the tool's copy is not
  /// counted.
  void keep_allocation(ActiveRange& range, const MemoryRange& region, const char* call, CUcontext ctx,
                       bool capture_open);
  /// `call` is about to destroy a context, unload a module or destroy an
  /// object kernels may use (a kTeardown row; `teardown` what it ends, when
  /// it ends a context): the deferred ranges are replayed first, and when it
  /// may end the profiled context the standing pass is read too (an open
  /// range pushed in it declines).
  void before_teardown(const char* call, const TeardownParams& teardown);
  /// `call`, which ended a context (`teardown`: cuCtxDestroy, or a primary
  /// context's reset or last release), returned: if that was the profiled
  /// context (for a primary-context call: any context of the profiled
  /// device's primary, once it is inactive), every later range declines
  /// multiple_contexts, and no GPU object of the tool is used again. The
  /// tool's allocations were freed with the context.
  void after_context_teardown(const char* call, const TeardownParams& teardown);

 private:
  // Why a range in `ctx` cannot begin now (sets up the counters at the first
  // range); makes no call a capture forbids when one is open.
  std::optional<Decline> admit_range(CUcontext ctx) override;
  // Drains the context, captures the entry state (multi-pass lists, and
  // ranges of a name that saw a capture begin) and starts counter pass 0 or
  // pushes the range onto the standing pass.
  std::optional<Decline> prepare_pass0(ActiveRange& range);
  // The end of a range declined at its begin, or with a capture that began
  // inside it or is open now: no CUDA or CUPTI call (its GPU buffers are
  // parked while a capture is open).
  void end_range_without_gpu(std::unique_ptr<ActiveRange> range) override;
  // RangeEnd::replay_window_locked: a member's own window (BatchServices).
  std::optional<Decline> replay_window_locked(ActiveRange& range) override {
    return ending_.replay_window_locked(range);
  }
  bool unloaded_since_end(const ActiveRange& range) const override { return ending_.unloaded_since_end(range); }
  // At a range's end: its decline, its notes (skipped copies, modules
  // loaded), the window's times; moves its record into the report (and
  // makes it a pending record of the standing pass when its values come
  // with that pass).
  void report_range(ActiveRange& range) override;
  // Stops the counters a declined range left running (its pass 0, or its
  // counter range of the standing pass), so that its end needs no CUPTI or
  // synchronizing call.
  void close_range_counters(ActiveRange& range);
  // At a range's begin with no capture open: stops counters and frees GPU
  // buffers that ranges ending during a capture left.
  void release_left_over_state() override;

  RangeControllerParts parts_;
  // The counters: their set-up, the tool's stream, the L2 flush, pass 0's
  // start and stop, the evaluation, the standing pass. Declared first: every
  // part below refers to it, and the ranges and storages below go before it.
  RangeCounters counting_;
  // counting_'s counter session (null before its set-up), under the name
  // the controller's members read it by.
  const std::unique_ptr<CounterSession>& counters_ = counting_.session();
  // The entry snapshots: regions, snapshot storages, differential restore
  // plans, write sets. Declared before every range it holds snapshots for
  // (the deferred, active and parked ranges), so that its storages outlive
  // them; it refers to the tool's stream, set with the counters.
  EntrySnapshots snapshots_;
  // The deferred ranges (--batch-ranges): the batch queue, its flush points
  // and the batch's window. It refers to the counters (their session, the
  // tool's stream, the profiled context and their steps) and parked_ below
  // (references only: read when a range is deferred or flushed).
  DeferredRanges deferred_;
  // --collectives replay: the job's rendezvous (agreements, barriers). It
  // refers to the counter session (its pass count).
  RankRendezvous peers_;
  // Application range replay's runs (a run with ProfileConfig::app_range):
  // this run's counter pass of the ranges it collects. It refers to the
  // counters (their session, the L2 flush, the pass count) and to the
  // controller's AppRangeServices.
  AppRangePass app_ranges_;
  std::unique_ptr<ActiveRange> active_;
  // Declined ranges whose snapshot or digest plan could not be freed when
  // they ended (a capture was open: freeing is a call it forbids).
  std::vector<std::unique_ptr<ActiveRange>> parked_;
  // A range ended while a capture was open and its counters could not be
  // stopped then.
  bool counters_left_running_ = false;
  // Names of ranges in which a stream capture began (capture_begins): later
  // ranges of these names snapshot their entry state and record pass 0
  // without counters, so that a capture inside them stops nothing; a range
  // of the name that ends without a capture takes it out again.
  std::set<std::string> capturing_range_names_;
  // The GPU side of a recorded range's end (pass 0 closed, drained and
  // stopped, the rendezvous, the replay window, the values). It refers to
  // the parts above.
  RangeEnd ending_;
  // The call that ended the profiled context (after_context_teardown),
  // named in the decline of every later range.
  std::optional<std::string> profiled_context_lost_;
  // The launcher's gate; the first range waits at it (the launcher's device
  // checks must have passed before a range is profiled).
  LauncherGateWait gate_;
};

}  // namespace rangereplay::tool
