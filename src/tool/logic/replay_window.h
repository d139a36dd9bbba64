// ReplayWindow: the replayed passes of one range, after pass 0: the exit
// state captured once, then one pass per call until the counter session has
// every pass it needs, then the application's own exit state handed back.
//
//   capture_exit                                        (RestoreStrategy)
//   verify.begin
//   for each replayed pass:
//     restore entry -> read back -> sync                (RestoreStrategy, ReplayStream)
//     verify.restored(previous pass)
//     start pass -> re-submit -> end pass               (CounterPasses, Resubmission)
//     verify.replayed(this pass)
//   verify.before_exit_restore -> restore exit -> verify.exit_restored
//
// The GPU work sits behind small interfaces so that the order of the calls,
// the exit-state hand-back and the decline of a failed window are decided
// here, testable on the CPU with fakes (tests/unit/tool/replay_window_test.cpp):
// RestoreStrategy (full restore from the snapshot, differential restore
// through the digest plan: tool/restore_strategy.h), CounterPasses (the
// counter session's passes), Resubmission (the Replayer on the tool's
// stream), ReplayStream (the tool's stream: pass timing events and waits) and
// an optional ReplayObserver (--verify: tool/verify.h).
//
// Whatever step fails from the exit capture on, the exit state is restored
// before run() returns (the pass events and the observer's GPU objects are
// released and an open counter pass is ended first); the failure becomes the range's decline:
// module_unload_in_range when another thread unloaded a module since the
// range ended, replay_failed otherwise.
//
// Thread-safety: one window at a time, on the range's thread (the caller
// holds the tool's lock and the inventory's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/decline.h"
#include "core/status.h"
#include "report/report_model.h"

namespace rangereplay::tool {

/// How the window brings memory back: before each replay to the range's
/// entry state, at the end to the application's own exit state. Module
/// variables and captured pinned host buffers are part of each state.
class RestoreStrategy {
 public:
  virtual ~RestoreStrategy() = default;
  /// Captures the application's range-exit state, once, before the first
  /// replay; returns with the stream synchronized.
  virtual Status capture_exit() = 0;
  /// Queues the restore of the entry state (asynchronous; timed by the
  /// window's restore events).
  virtual Status restore_entry() = 0;
  /// After the timed restore, before the window waits for it: results the
  /// host reads once the stream has passed here (the plan's counters and
  /// digests). Nothing for a full restore.
  virtual Status read_back() = 0;
  /// Bytes the last restore_entry() copied (after the stream passed read_back()).
  virtual std::uint64_t restored_bytes() const = 0;
  /// The application's exit state back in place, with the stream synchronized
  /// (the window's end).
  virtual Status restore_exit() = 0;
  /// The same after a failed step: best effort, every step tried, errors
  /// ignored, the stream synchronized.
  virtual void restore_exit_after_failure() = 0;
};

/// The counter passes of the range (cupti::RangeProfilerSession's).
class CounterPasses {
 public:
  virtual ~CounterPasses() = default;
  virtual Status start_pass(const std::string& range_name) = 0;
  /// True when the session has every pass it needs.
  virtual StatusOr<bool> end_pass() = 0;
  virtual bool in_pass() const = 0;
  /// Inside a pass of user ranges: opens / closes one counter range.
  virtual Status push_range(const std::string& range_name) = 0;
  virtual Status pop_range() = 0;
};

/// Re-submits the range's recorded work (one replay).
class Resubmission {
 public:
  virtual ~Resubmission() = default;
  virtual Status submit() = 0;
};

/// The tool's stream as the window uses it: four timing events per pass
/// (restore begin and end; replayed work begin and end, recorded after the
/// counter pass starts), host waits.
class ReplayStream {
 public:
  enum class Event { kRestoreBegin, kRestoreEnd, kWorkBegin, kWorkEnd };
  virtual ~ReplayStream() = default;
  /// Creates the events (the window releases them at its end, release_events()).
  virtual Status create_events() = 0;
  virtual void release_events() = 0;
  virtual Status record(Event event) = 0;
  /// Waits until `event` has completed.
  virtual Status wait(Event event) = 0;
  /// Waits until the stream is idle.
  virtual Status synchronize() = 0;
  /// Device milliseconds from `from` to `to` (both completed).
  virtual StatusOr<float> elapsed_ms(Event from, Event to) = 0;
};

/// Sees the window's memory states (--verify). Each hook adds its own time
/// to the timings' verify_ms; an error it returns fails the window.
class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  /// After the exit capture, before the first replay.
  virtual void begin(report::RangeRecord& record) = 0;
  /// After each entry restore, synchronized; `previous` is the record of the
  /// replay whose result the restore found (null before the first replay).
  virtual void restored(report::PassRecord* previous, report::StageTimings& t) = 0;
  /// After each replay, its counter pass ended.
  virtual Status replayed(report::PassRecord& pass, report::StageTimings& t) = 0;
  /// After the last replay, before the exit state is restored.
  virtual Status before_exit_restore(report::PassRecord& last, report::StageTimings& t) = 0;
  /// After the exit state was restored.
  virtual void exit_restored(report::PassRecord& last, report::StageTimings& t) = 0;
  /// A step failed: frees what the observer holds on the GPU, before the
  /// window hands the exit state back (nothing by default).
  virtual void release() {}
};

/// What the window writes into the range's notes after its passes.
struct ReplayNotes {
  std::uint64_t host_captured_bytes = 0;  // pinned host buffers restored with the snapshot
  bool counting_pass0 = true;             // false: pass 0 only recorded (sized the image)
  std::size_t recorded_kernels = 0;       // kernels pass 0 recorded
  bool pass0_stopped_at_capture = false;  // pass 0 counted until a stream capture began in it
};

struct ReplayWindowParts {
  RestoreStrategy& restore;
  CounterPasses& counters;
  Resubmission& resubmission;
  ReplayStream& stream;
  ReplayObserver* observer = nullptr;  // --verify; null without
  // Whether another thread has unloaded a module since the range ended (its
  // kernels cannot be launched again).
  std::function<bool()> module_unloaded;
  // Called as replayed pass `pass` (1-based, pass 0 being the application's)
  // begins: progress lines.
  std::function<void(std::size_t pass)> pass_begins;
  // Enqueues the L2 flush on the replay stream after a pass's restore (the
  // synchronize before the counters start waits for it), so that no dirty
  // line of the restore is written back while the counters run; empty when
  // the tool has no flush buffer.
  std::function<Status()> flush_caches;
  // --collectives replay: returns when every rank of the job is at replayed
  // pass `pass` (1-based), ready to submit it (restored, counters started),
  // and once more with the number after the last pass, before the exit
  // state is handed back; its error (decline reason rendezvous_failed) ends
  // the window. Empty otherwise.
  std::function<Status(std::size_t pass)> pass_barrier;
  // Run right after each pass's counters start and before the replayed work
  // (outside its timing events): the lead-in flush of per-kernel auto ranges
  // (enqueued on the replay stream: ActiveRange::lead_in_flush), or a
  // whole-range pass's lead-in (the flush, waited for, then the range's own
  // counter range: RangeController::end_whole_range_lead_in). May be empty.
  std::function<Status()> after_counters_start;
};

/// The decline of a window that failed with `failure` (run()'s, and the
/// caller's for the steps before it): module_unload_in_range when
/// `module_unloaded` says another thread unloaded a module since the range
/// ended, else the reason `failure` carries (Status::decline_reason), else
/// replay_failed; the detail is the failure's message.
Decline replay_window_decline(const Status& failure, const std::function<bool()>& module_unloaded);

class ReplayWindow {
 public:
  /// `pass_count`: the passes the metric list needs (CUPTI may ask for a few
  /// more; more than 4 x pass_count + 8 fails the window).
  ReplayWindow(ReplayWindowParts parts, std::uint32_t pass_count) : parts_(std::move(parts)), pass_count_(pass_count) {}

  /// Runs the window for the range named `range_name`, filling `record`
  /// (pass_records, passes, notes, timings). nullopt when every pass ran and
  /// the exit state is back; otherwise the range's decline (the exit state
  /// is back too).
  std::optional<Decline> run(const std::string& range_name, const ReplayNotes& notes, report::RangeRecord& record);

 private:
  Status run_passes(const std::string& range_name, const ReplayNotes& notes, report::RangeRecord& record);
  // Counter pass `pass` (1 for the first replay): restore the entry state,
  // flush, start the counters, re-submit, wait, end the pass; its timings and
  // pass record into `record`. True when CUPTI has every pass it needs.
  StatusOr<bool> run_pass(std::size_t pass, const std::string& range_name, report::RangeRecord& record);
  ReplayWindowParts parts_;
  std::uint32_t pass_count_;
};

/// One range of a batch (BatchWindow): its own restore strategy and
/// re-submission, and where its counters go.
struct BatchMember {
  RestoreStrategy* restore = nullptr;
  Resubmission* resubmission = nullptr;
  /// Whole-range values: the user range pushed around the member's replay
  /// (unique in the batch). Empty: the re-submission pushes its own ranges
  /// (one per kernel, KernelCounterRanges).
  std::string counter_range;
  /// Filled like a replay window's: pass_records, passes, notes, timings.
  report::RangeRecord* record = nullptr;
  /// Whether another thread has unloaded a module since the member ended
  /// (its kernels cannot be launched again): checked before each replay.
  std::function<bool()> module_unloaded;
};

/// Deferred ranges replayed together: each counter pass is one CUPTI start
/// and stop for every member, and within it each member's entry state is
/// restored (outside any counter range) and its work re-submitted inside
/// its own counter ranges. Before the first pass every member captures the
/// application's state now over its regions (capture_exit), and after the
/// last each hands it back (restore_exit); from the first capture on, a
/// failure hands it back too (best effort). The counter passes must be set
/// up for user ranges sized to every member's counter ranges.
///
/// The time of the passes' starts and stops is shared equally among the
/// members' counters_ms; restores and replayed work are each member's own.
/// Thread-safety: one thread (the tool's lock).
class BatchWindow {
 public:
  /// `pass_count`: as ReplayWindow's. `flush_caches`: as
  /// ReplayWindowParts::flush_caches, run after each member's restore, before
  /// its counter ranges open; may be empty.
  BatchWindow(CounterPasses& counters, ReplayStream& stream, std::uint32_t pass_count,
              std::function<Status()> flush_caches = {})
      : counters_(counters), stream_(stream), pass_count_(pass_count), flush_caches_(std::move(flush_caches)) {}

  /// Runs every pass over `members` (at least one). Errors: the first failing
  /// step's; every member's application state is back either way.
  Status run(std::vector<BatchMember>& members);

 private:
  Status run_passes(std::vector<BatchMember>& members, std::size_t& captured);
  CounterPasses& counters_;
  ReplayStream& stream_;
  std::uint32_t pass_count_;
  std::function<Status()> flush_caches_;
};

}  // namespace rangereplay::tool
