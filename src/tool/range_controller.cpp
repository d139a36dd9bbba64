// RangeController (range_controller.h): begin (drain, snapshot, start pass
// 0), end (replay window: restore, re-submit, counter passes, restore exit
// state), evaluation and the range's record. The data flow is in
// docs/architecture.md.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "core/base/ascii.h"
#include "core/base/elapsed.h"
#include "core/base/environment.h"
#include "core/config/metric_sets.h"
#include "cuda/cu_status.h"
#include "cuda/digest_plan.h"
#include "cuda/replayer.h"
#include "tool/context_scope.h"
#include "tool/controller_helpers.h"
#include "tool/deferred_ranges.h"
#include "tool/logic/counter_session.h"
#include "tool/logic/device_room.h"
#include "tool/logic/range_report.h"
#include "tool/logic/replay_window.h"
#include "tool/module_globals.h"
#include "tool/range_controller.h"

#include "core/config/metric_sets.h"
#include "tool/rank_rendezvous.h"
#include "tool/restore_strategy.h"
#include "tool/tool_thread.h"
#include "tool/verify.h"

namespace rangereplay::tool {

namespace {

// The counter layout --range-metrics asks for (tool/logic/counter_layout.h).
CounterLayout configured_layout(const ProfileConfig& config) {
  return tool::configured_layout(config.range_metrics == RangeMetrics::kPerKernel);
}

using Clock = std::chrono::steady_clock;

}  // namespace

namespace {

// Whether `range`'s window member restores its whole entry state by the copy
// engines (entry_restore_by_copy_engines), its copy-engine plan built; a plan
// that cannot be built leaves the range to its own restore, with a debug line.
bool copy_engine_entry_restore(ActiveRange& range, const WindowMemberOptions& options, CUstream stream) {
  if (!options.copy_engine_entry_restores || !environment::batch_copy_engine_restore()) return false;
  std::uint64_t device_bytes = 0;
  std::uint64_t pinned_bytes = 0;
  const auto& pieces = range.snapshot->pieces(SnapshotState::kEntry);
  for (const storage::StatePiece& piece : pieces)
    (piece.tier == SnapshotStorage::kDeviceTier ? device_bytes : pinned_bytes) += piece.app.size();
  if (!entry_restore_by_copy_engines(true, options.verify, range.restore_plan.has_value(), device_bytes, pinned_bytes,
                                     pieces.size()))
    return false;
  const Status planned = range.snapshot->plan_copy_engine_restore(SnapshotState::kEntry, stream);
  if (!planned.ok()) debug("no copy-engine restore (%s) for range %ld", planned.to_string(), range.index);
  return planned.ok();
}

}  // namespace

StatusOr<std::unique_ptr<WindowMember>> window_member(ActiveRange& range, RangeGlobals globals, CUstream stream,
                                                      const WindowMemberOptions& options) {
  const bool verify = options.verify;
  if (!range.snapshot) return internal_error("multi-pass range without a snapshot");
  auto m = std::make_unique<WindowMember>();
  RR_ASSIGN_OR_RETURN(Replayer replayer, Replayer::create(range.program));
  m->replayer.emplace(std::move(replayer));
  m->entry_by_copy_engines = copy_engine_entry_restore(range, options, stream);
  if (m->entry_by_copy_engines) {
    m->restore = std::make_unique<FullRestore>(*range.snapshot, std::move(globals), stream, EntryCopy::kCopyEngines);
  } else if (range.restore_plan) {
    // With differential restore, one digest plan serves the whole window: the
    // exit capture, every entry restore, --verify and the exit hand-back.
    auto differential = std::make_unique<DifferentialRestore>(*range.snapshot, *range.restore_plan, std::move(globals),
                                                              stream, verify, options.restore_launches, range.record);
    if (verify) m->verifier = differential_restore_verifier(range, *differential, stream);
    m->restore = std::move(differential);
  } else {
    m->restore = std::make_unique<FullRestore>(*range.snapshot, std::move(globals), stream);
    if (verify) m->verifier = full_restore_verifier(range, stream);
  }
  if (verify && range.write_set) m->verifier = write_set_verifier(range, std::move(m->verifier), stream);
  m->restore = corrupt_restores_for_tests(std::move(m->restore), range.allocations, stream);
  if (options.counters != nullptr && std::holds_alternative<UserKernelRanges>(range.counters))
    m->kernel_ranges = std::make_unique<KernelCounterRanges>(*options.counters, options.kernel_range_prefix);
  m->resubmission = std::make_unique<ReplayerResubmission>(*m->replayer, stream, m->kernel_ranges.get());
  return m;
}

RangeController::RangeController(RangeControllerParts parts)
    : parts_(parts),
      counting_(RangeCountersParts{parts.config, parts.report, parts.mutex, parts.prewarm}),
      snapshots_(
          EntrySnapshotsParts{parts.config, parts.inventory, parts.report, parts.mutex, counting_.tool_stream()}),
      deferred_(DeferredRangesParts{parts.config, parts.captures, parts.inventory, parts.report, parts.mutex,
                                    snapshots_, counting_, parked_, *this}),
      peers_(RankRendezvousParts{parts.config, parts.report, counting_.session()}),
      app_ranges_(AppRangePassParts{parts.config, parts.captures, parts.modules, parts.mutex, counting_, *this}),
      ending_(RangeEndParts{parts.config, parts.inventory, parts.modules, parts.mutex, counting_, snapshots_, deferred_,
                            peers_, capturing_range_names_}),
      gate_(parts.report) {}

void RangeController::begin(const range::RangeEvent& event, CUcontext ctx) {
  // Which matches are profiled (--skip/--range-count/--range-list) was
  // decided by the trigger's RangeSelector: every kBegin is profiled.
  // No range is profiled before the launcher's checks pass.
  parts_.mutex.set_stage("range begin: waiting at the launcher gate");
  gate_.pass();
  debug("begin range '%s' (match %ld)", event.name, static_cast<long>(event.match_index));
  // Module loads from now until the range ends are its own.
  parts_.modules.open_range_window();

  InToolScope guard;
  auto range = std::make_unique<ActiveRange>();
  range->index = static_cast<std::uint32_t>(event.match_index);
  range->name = event.name;
  range->source = event.source;
  range->ctx = ctx;
  CUdevice device = 0;
  if (ctx != nullptr && cuCtxGetDevice(&device) == CUDA_SUCCESS) range->device = static_cast<int>(device);
  range->record.index = range->index;
  range->record.name = event.name;
  range->counters = configured_layout(parts_.config);
  if (parts_.config.app_range) {
    active_ = app_ranges_.begin(std::move(range), ctx);
    return;
  }

  std::optional<Decline> declined = admit_range(ctx);
  if (!declined) {
    release_left_over_state();
    declined = prepare_pass0(*range);
  }
  if (declined) {
    range->state = Untouched{};
    decline(*range, declined->reason, std::move(declined->detail));
  } else {
    progress(parts_.config, counting_.pass_count(), *range, 1);
  }
  range->pass0_start = Clock::now();
  range->begin_thread = std::this_thread::get_id();
  active_ = std::move(range);
}

std::optional<Decline> RangeController::admit_range(CUcontext ctx) {
  if (parts_.captures.open_or_beginning()) {
    // The drain, the snapshot and the counter set-up would each make a call
    // that an open capture forbids, and invalidate the application's graph.
    // The range runs as the application's own, untouched.
    // (ProfilerTool::on_range_event set range_beginning_ before this read:
    // see the handshake in capture_tracking.cpp.)
    return Decline{DeclineReason::kStreamCaptureActive,
                   parts_.captures.describe_open_or_beginning() +
                       " when the range began; the tool made no call a capture forbids"};
  }
  if (profiled_context_lost_) {
    return Decline{DeclineReason::kMultipleContexts,
                   *profiled_context_lost_ +
                       " ended the profiled context before this range; only the process's first profiled context is "
                       "measured"};
  }
  if (ctx == nullptr) {
    // Only this range: the counters are set up for the first range that
    // names its context (no later range inherits this one's decline).
    return Decline{DeclineReason::kNoContext, "no CUDA context was current on the thread when the range began"};
  }
  return counting_.admit(ctx);
}

std::optional<Decline> RangeController::prepare_pass0(ActiveRange& range) {
  // Drain the application's earlier work so the snapshot sees settled memory.
  const auto begin_start = Clock::now();
  auto sync_start = begin_start;
  parts_.mutex.set_stage("range begin: draining the context (cuCtxSynchronize)");
  if (Status s = cu_status(cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__); !s.ok())
    return Decline{DeclineReason::kReplayFailed, s.message()};
  range.record.timings.sync_ms += ms_since(sync_start);
  debug("drained%s", "");

  // A range of a name in which a capture began before records pass 0
  // without counters: a capture inside it then stops nothing.
  const Pass0Inputs inputs{counting_.pass_count(),
                           parts_.config.range_metrics == RangeMetrics::kPerKernel,
                           deferred_.batch_size().has_value(),
                           parts_.config.verify,
                           parts_.config.collectives == CollectivesMode::kReplay,
                           capturing_range_names_.contains(range.name) && counting_.can_record_pass0_only()};
  range.state = plan_pass0(inputs);
  if (std::get<Recording>(range.state).entry_snapshot) {
    // With deferred ranges waiting, their replay comes before a write-set
    // snapshot: the range may fit whole once their snapshots are gone.
    std::optional<Decline> failed =
        snapshots_.capture_entry_state(range, /*allow_write_set=*/deferred_.pending().empty());
    if (failed && failed->reason == DeclineReason::kSnapshotDoesNotFit && !deferred_.pending().empty()) {
      // The deferred ranges' snapshots hold the memory: replay them, then try again.
      deferred_.flush_pending("the next range's snapshot did not fit beside theirs");
      failed = snapshots_.capture_entry_state(range, /*allow_write_set=*/true);
    }
    if (failed) return failed;
  }
  // Per-kernel multi-pass: pass 0 only records; the counter image is sized to
  // its kernels at range end and every counter pass is replayed. So does a
  // multi-pass range whose replay may be deferred (its passes are shared
  // with other ranges'; a write-set snapshot made it not deferrable).
  // Otherwise pass 0 counts, with the image sized from the last range of
  // this name.
  Recording& recording = std::get<Recording>(range.state);
  recording.counting_pass0 = counts_pass0(inputs, recording.deferrable);
  const bool capture_expected = inputs.capture_expected;
  if (capture_expected) counting_.ensure_cache_flush();
  Status s = recording.counting_pass0 ? counting_.start_counting_pass0(range) : ok_status();
  range.record.timings.begin_ms = ms_since(begin_start);
  if (!s.ok()) return Decline{DeclineReason::kCountersUnavailable, s.message()};
  return std::nullopt;
}

void RangeController::capture_begins(const char* call) {
  if (active_ && std::holds_alternative<ReplayedBeforeFree>(active_->state)) {
    // Replayed already; the name still tells later ranges of a capture in it.
    capturing_range_names_.insert(active_->name);
    ++active_->captures_begun;
    return;
  }
  if (!active_ || !profiled(active_->state) || active_->counters_closed) return;
  ActiveRange& range = *active_;
  capturing_range_names_.insert(range.name);
  ++range.captures_begun;
  if (std::holds_alternative<Collecting>(range.state)) {
    // Counted in the application's own execution, which the capture
    // interrupts: this run's pass of the range is lost.
    decline(
        range, DeclineReason::kStreamCaptureActive,
        std::string(call) + " inside the range: captured work does not execute, and " +
            (parts_.config.metric_set == kTriageSetName ? "--set triage samples" : "application range replay counts") +
            " the range in the application's own execution");
  }
  if (range.eligibility.declined()) {
    close_range_counters(range);
    return;
  }
  // Nothing of CUPTI's is open for a pass 0 that only records: the capture
  // changes nothing the tool holds.
  auto* recording = std::get_if<Recording>(&range.state);
  if (recording == nullptr || !recording->counting_pass0) return;
  if (counting_.end_counted_pass0(range)) {
    // The entry state is held: pass 0's counters stopped before the capture
    // exists, and every counter pass is a replay.
    stop_pass0_counters_at_capture(*recording);
    debug("pass 0 counters of '%s' stopped before a stream capture; pass 0 records only", range.name);
    return;
  }
  std::string detail = std::string(call) +
                       " inside the range: captured work does not execute, and this range's "
                       "pass 0 was being counted in the application's own execution";
  if (counting_.can_record_pass0_only())
    detail += "; later ranges named '" + range.name + "' take an entry snapshot and are replayed for every pass";
  else
    detail +=
        " (the standing pass of a one-pass list counted for whole ranges): use --range-metrics kernel or "
        "a set of more than one pass";
  decline(range, DeclineReason::kStreamCaptureActive, std::move(detail));
  close_range_counters(range);
}

void RangeController::keep_allocation(ActiveRange& range, const MemoryRange& region, const char* call, CUcontext ctx,
                                      bool capture_open) {
  auto* recording = std::get_if<Recording>(&range.state);
  if (recording != nullptr && recording->counting_pass0 && ctx == range.ctx && !capture_open &&
      counting_.end_counted_pass0(range)) {
    stop_pass0_counters_at_allocation(*recording);
    debug("pass 0 counters of '%s' stopped before keeping memory allocated in it; pass 0 records only", range.name);
  }
  snapshots_.keep_allocation(range, region, call, ctx, capture_open);
}

void RangeController::close_range_counters(ActiveRange& range) {
  // The capture has not begun yet: these calls are still allowed. They run
  // on the thread beginning the capture, with the range's context made
  // current for them.
  range.counters_closed = true;
  if (std::holds_alternative<Collecting>(range.state)) app_ranges_.abandon();
  debug("counters of declined range '%s' closed before a stream capture", range.name);
  const RangeContextScope in_range_context(range.ctx);
  if (standing_counter_range(range.counters) != nullptr) {
    counters_->backend().pop_range().ignore();
    range.counters = configured_layout(parts_.config);
  } else if (counters_ && counters_->in_pass()) {
    counters_->end_pass().status().ignore();
  }
  range.program.ops.clear();
  range.restore_plan.reset();
  range.write_set.reset();
  range.snapshot.reset();
}

void RangeController::release_left_over_state() {
  // Called when a range begins with no capture open.
  if (counters_left_running_) {
    counters_left_running_ = false;
    if (counters_ && counters_->standing().is_open()) {
      counting_.flush_standing_pass("a range ended while a stream capture was open");
    } else if (counters_ && counters_->in_pass()) {
      counters_->end_pass().status().ignore();
    }
  }
  parked_.clear();
}

void RangeController::end() {
  if (!active_) return;
  InToolScope guard;
  std::unique_ptr<ActiveRange> range = std::move(active_);
  const auto end_path = [&] {
    return range_end_path(range->state, range->counters_closed, profiled_context_lost_.has_value(),
                          parts_.captures.open_captures());
  };
  const RangeEndPath path = end_path();
  if (path == RangeEndPath::kLeftAlone || path == RangeEndPath::kApplicationRun) {
    app_ranges_.end(std::move(range));
    return;
  }
  if (path == RangeEndPath::kReplayedBefore) {
    // Replayed at a free inside it; what the module window saw since ran no work.
    static_cast<void>(parts_.modules.close_range_window());
    const auto& early = std::get<ReplayedBeforeFree>(range->state);
    range->window_start = Clock::now() - std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double, std::milli>(early.window_ms));
    parts_.mutex.set_stage("range end: report");
    report_range(*range);
    return;
  }
  ending_.close_pass0(*range);

  const RangeEndPath after = end_path();
  if (after == RangeEndPath::kContextLost) {
    // Its context ended while it was open: no CUDA or CUPTI call is made for
    // it, and its buffers, which went with the context, are never freed.
    decline(*range, DeclineReason::kMultipleContexts, *profiled_context_lost_ + " ended the range's context inside it");
    range->eligibility.finish();
    range->record.passes = 1;
    report_range(*range);
    static_cast<void>(range.release());
    return;
  }
  if (after == RangeEndPath::kWithoutGpu) {
    end_range_without_gpu(std::move(range));
    return;
  }
  // The drain, the window and the evaluation run in the range's own context.
  const RangeContextScope context_scope(range->ctx);
  if (ending_.drain_and_replay(*range, /*may_wait=*/true, /*at_free=*/false)) {
    deferred_.defer(std::move(range));
    return;
  }
  parts_.mutex.set_stage("range end: report");
  report_range(*range);
  if (counters_ && counters_->standing().full()) counting_.flush_standing_pass("its counter image is full");
}

void RangeController::replay_before_free(const char* call) {
  // Another thread's free may come amid the range's work: it declines the
  // range as before, without a replay that work would waste.
  if (!active_ || profiled_context_lost_ || active_->begin_thread != std::this_thread::get_id()) return;
  if (call == nullptr) call = "a free";
  ActiveRange& range = *active_;
  const bool entry_snapshot = range.snapshot.has_value() && standing_counter_range(range.counters) == nullptr;
  if (free_in_range(range.state, range.eligibility.declined(), entry_snapshot, range.program.kernels().size(),
                    parts_.captures.open_captures(), peers_.coordinated()) != FreeInRange::kReplayFirst)
    return;
  InToolScope guard;
  debug("replaying '%s' before a free inside it", range.name);
  ending_.close_pass0(range);
  report::RangeRecord before = range.record;
  {
    const RangeContextScope context_scope(range.ctx);
    ending_.drain_and_replay(range, /*may_wait=*/false, /*at_free=*/true);
  }
  if (!range.eligibility.declined())
    range.record.notes.push_back(std::string("replayed at the entry of ") + call +
                                 " inside the range, while the memory it frees existed: the range's work ended there");
  range.state = ReplayedBeforeFree{call, std::move(before), ms_since(range.window_start)};
  // Nothing is replayed again: its entry state, the bytes it restored and
  // its recorded work go now (the record keeps their counts).
  range.restore_plan.reset();
  range.write_set.reset();
  range.snapshot.reset();
  range.globals.clear();
  range.globals.shrink_to_fit();
  range.program.ops.clear();
  range.program.ops.shrink_to_fit();
}

void RangeController::work_after_free(const char* call) {
  if (!active_) return;
  const auto* early = std::get_if<ReplayedBeforeFree>(&active_->state);
  if (early == nullptr || active_->eligibility.declined()) return;
  ActiveRange& range = *active_;
  decline(range, DeclineReason::kFreeInRange,
          std::string(call != nullptr ? call : "work") + " after " + early->call +
              " inside the range: the range was replayed before the free, and this work would be missing from its "
              "values; free after the range's last work, or end the range before the free");
  // Its values describe the range up to the free only.
  drop_values_after_free(range);
}

void RangeController::end_range_without_gpu(std::unique_ptr<ActiveRange> range) {
  // Nothing of the tool's runs on the GPU for this range: it was declined
  // when it began (nothing was recorded or started), or a capture began
  // inside it (its counters were closed then) or is open now (a drain would
  // invalidate it). Its end makes no CUDA or CUPTI call.
  if (profiled(range->state) && !range->counters_closed) {
    decline(*range, DeclineReason::kStreamCaptureActive,
            parts_.captures.describe_open() + " when the range ended; the tool made no call that could invalidate it");
    // Its counters and GPU buffers stay as they are until no capture is
    // open: the next range's begin stops and frees them.
    counters_left_running_ = true;
  }
  range->eligibility.finish();
  if (peers_.coordinated()) {
    // Its decline, so that the other ranks decline the range too.
    parts_.mutex.set_stage("range end: rendezvous with the other ranks");
    (void)peers_.agree_with_peers(*range);
  }
  range->record.passes = 1;
  report_range(*range);
  // Freeing is a call a capture forbids: with one open, the buffers wait
  // for the next range's begin; otherwise they go with the range now.
  if ((range->snapshot || range->restore_plan || range->write_set) && parts_.captures.open_captures() > 0)
    parked_.push_back(std::move(range));
}

void RangeController::report_range(ActiveRange& range) {
  finish_record(parts_.config, range, ms_since(range.window_start));
  const std::size_t* standing = standing_counter_range(range.counters);
  const bool pending = standing != nullptr && !range.eligibility.declined();
  parts_.report.ranges.push_back(std::move(range.record));
  if (pending) counters_->standing().add_pending(parts_.report.ranges.size() - 1, *standing);
}

std::vector<std::size_t> RangeController::unsettled_records() const {
  std::vector<std::size_t> records;
  if (deferred_.pending().empty() && !(counters_ && counters_->standing().pending() > 0)) return records;
  for (const auto& range : deferred_.pending()) records.push_back(range->record_index);
  if (counters_) counters_->standing().pending_records(records);
  return records;
}

void RangeController::record_overlapping(const range::RangeEvent& event) {
  report::RangeRecord record;
  record.index = static_cast<std::uint32_t>(event.match_index);
  record.name = event.name;
  const std::string inside =
      active_ ? "range " + std::to_string(active_->index) + " '" + active_->name + "'" : std::string("another range");
  RangeReporter(parts_.config.quiet)
      .record_decline(record, DeclineReason::kOverlappingRange,
                      "began while " + inside + " was being recorded; its work belongs to that range");
  parts_.report.ranges.push_back(std::move(record));
}

void RangeController::at_exit() {
  counting_.at_exit();
  if (active_ && std::holds_alternative<LeftAlone>(active_->state)) active_.reset();
  if (active_) {
    // No GPU work at exit (the runtime may already be tearing down): the range
    // ran once, as the application's own execution, and is reported declined.
    std::unique_ptr<ActiveRange> range = std::move(active_);
    drop_values_after_free(*range);
    decline(*range, DeclineReason::kRangeNotClosed, "the process exited inside range '" + range->name + "'");
    range->record.passes = 1;
    range->record.timings.pass0_ms = ms_since(range->pass0_start);
    RangeReporter(parts_.config.quiet).report_decline(range->record, range->eligibility);
    parts_.report.ranges.push_back(std::move(range->record));
  }
  deferred_.decline_at_exit();
  if (counters_ && counters_->standing().is_open() && profiled_context_lost_) {
    // Its context is gone (a capture kept the standing pass open at the
    // teardown): nothing can be read, and no CUPTI call is made on it.
    counters_->standing().abandon(
        DeclineReason::kCountersUnavailable,
        *profiled_context_lost_ + " ended the profiled context before the range's one-pass counters were read",
        parts_.report.ranges, RangeReporter(parts_.config.quiet));
  }
  if (counters_ && counters_->standing().is_open() && parts_.captures.open_or_beginning()) {
    // A capture still open at exit (another thread's): stopping the pass is
    // a call it forbids, so the pending ranges decline instead.
    counters_->standing().abandon(
        DeclineReason::kStreamCaptureActive,
        parts_.captures.describe_open_or_beginning() +
            " when the process exited, before the one-pass counters of the range were read; the tool made no call "
            "a capture forbids",
        parts_.report.ranges, RangeReporter(parts_.config.quiet));
  }
  if (counters_ && counters_->standing().is_open()) {
    // The standing pass's ranges get their values now: one CUPTI stop and a
    // decode, with the context made current (when it still exists).
    unsigned version = 0;
    CUcontext ctx = counting_.context();
    if (cuCtxGetApiVersion(ctx, &version) == CUDA_SUCCESS && cuCtxPushCurrent(ctx) == CUDA_SUCCESS) {
      counting_.flush_standing_pass("the process exited");
      CUcontext popped = nullptr;
      cuCtxPopCurrent(&popped);
    } else {
      counting_.flush_standing_pass("the process exited after its CUDA context was destroyed");
    }
  }
}

void RangeController::before_device_allocation(const char* call, std::uint64_t bytes) {
  // The tool's memory lives in the profiled context; another context's
  // allocation is on its own device or memory.
  if (counting_.context() == nullptr || profiled_context_lost_) return;
  // Freeing is a call a capture forbids, and a flush due while a capture is
  // open or beginning would decline the deferred ranges without freeing.
  if (parts_.captures.open_or_beginning()) return;
  const std::uint64_t held = snapshots_.releasable_device_bytes(deferred_.has_pending());
  if (held == 0) return;
  InToolScope guard;
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != counting_.context()) return;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (cuMemGetInfo(&free_bytes, &total_bytes) != CUDA_SUCCESS) return;
  if (!must_make_room(free_bytes, bytes, held)) return;
  const std::string why = std::string(call) + " asked for " + std::to_string(bytes) +
                          " bytes of device memory, more than was free beside the tool's snapshots";
  debug("making room: %s", why);
  deferred_.flush_pending(why.c_str());
  snapshots_.release_idle_storage();
}

void RangeController::before_teardown(const char* call, const TeardownParams& teardown) {
  const std::string why = std::string(call) + " (a teardown of a context, a module or an object kernels may use)";
  deferred_.flush_pending(why.c_str());
  if (!counters_ || !counters_->standing().is_open() || profiled_context_lost_ ||
      !counting_.ends_profiled_context(teardown))
    return;
  if (parts_.captures.open_or_beginning()) return;  // read at exit, or declined
  // A primary context's release may not be its last (a library's retain
  // and release around its work): an open range pushed in the standing pass
  // is left alone then, and declines at its end only if the context ended.
  const bool active_standing = active_ && standing_counter_range(active_->counters) != nullptr;
  if (teardown.what == ContextTeardown::kPrimaryRelease && active_standing) return;
  // The call may end the context the standing pass counts in: its values
  // are read now, in that context, while it exists.
  const RangeContextScope context_scope(counting_.context());
  if (active_standing) {
    // The open range's counter range is closed first; the range declines
    // (its context may end inside it).
    const Status popped = counters_->backend().pop_range();
    active_->counters = configured_layout(parts_.config);
    decline(*active_, DeclineReason::kMultipleContexts,
            std::string(call) + " was made inside the range, in or on its context" +
                (popped.ok() ? std::string() : " (" + popped.message() + ")"));
  }
  const std::string ending = std::string(call) + " was about to end a context";
  counting_.flush_standing_pass(ending.c_str());
}

void RangeController::after_context_teardown(const char* call, const TeardownParams& teardown) {
  if (!counters_ || profiled_context_lost_ || !counting_.ends_profiled_context(teardown)) return;
  if (teardown.what == ContextTeardown::kPrimaryRelease) {
    // Only the last reference ends the primary context.
    unsigned flags = 0;
    int active = 1;
    if (cuDevicePrimaryCtxGetState(teardown.device, &flags, &active) != CUDA_SUCCESS || active != 0) return;
  }
  profiled_context_lost_ = std::string(call);
  debug("profiled context ended by %s", call);
  // Their buffers went with the context: never freed or used again.
  for (auto& range : parked_) static_cast<void>(range.release());
  parked_.clear();
}

}  // namespace rangereplay::tool
