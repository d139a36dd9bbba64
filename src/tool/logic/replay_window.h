// ReplayWindow: the one pass loop. It replays one range, or several ranges
// whose replays were deferred, after their pass 0: each member's exit state
// captured once, then one counter pass per turn until the counter session
// has every pass it needs, then every member's exit state handed back. The
// immediate path is a window of one member.
//
//   for each member: capture_exit, verify.begin          (RestoreStrategy)
//   for each counter pass:
//     several members: start pass, after_counters_start  (CounterPasses)
//     for each member:
//       restore entry -> read back -> flush -> sync      (RestoreStrategy, ReplayStream)
//       verify.restored(its previous pass)               (a window of one only)
//       one member: start pass, after_counters_start
//       push its counter range (if any) -> count the tool's kernels since
//         the pass started or the last member's work -> re-submit -> wait -> pop
//     end pass; verify.replayed(this pass)
//   for each member: notes, verify.before_exit_restore
//   for each member, last first: restore exit; then verify.exit_restored
//
// Every member's restore runs outside its counter ranges and has finished
// before they open. A window of one restores before its pass starts (so a
// pass of CUPTI's automatic per-kernel ranges counts none of it). A window
// of several starts its pass first and restores and flushes each member
// inside it, so the first member's flush also writes back what the pass's
// start left dirty in L2. Its members are counted in user ranges
// (CounterPasses::push_range), between which the restores and flushes run,
// or in CUPTI's automatic per-kernel ranges, where each of the tool's own
// kernels (a restore's one launch, a flush) is a counter range
// of its own: the window then counts them before each member's work
// (ReplayWindowParts::tool_kernels), for the caller to leave their rows
// out, and tells when two passes counted differently. --verify's observers
// run in windows of one only (a window of several with an observer is
// refused): with several members, one member's restore would find
// another's result.
//
// The steps that depend on the range are chosen once, by the caller, as the
// window's parts: the restore strategy (full restore from the snapshot, or
// differential restore through the digest plan: tool/restore_strategy.h),
// the cache flush, the lead-in after the counters start, the rendezvous
// barrier, the --verify observer. The GPU work sits behind small interfaces,
// so the order of the calls, the exit-state hand-back and the decline of a
// failed window are decided here, testable on the CPU with fakes
// (tests/unit/tool/replay_window_test.cpp): RestoreStrategy, CounterPasses
// (the counter session's passes), Resubmission (the Replayer on the tool's
// stream), ReplayStream (the tool's stream: pass timing events and waits) and
// an optional ReplayObserver per member (--verify: tool/verify.h).
//
// Whatever step fails from the first exit capture on, every member captured
// so far gets its exit state back before run() returns (the pass events and
// the observers' GPU objects are released and an open counter pass is ended
// first); replay_window_decline turns the failure into the ranges' decline:
// module_unload_in_range when another thread unloaded a module since the
// range ended, replay_failed otherwise.
//
// Thread-safety: one window at a time, on the thread that holds the tool's
// lock and the inventory's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/base/decline.h"
#include "core/base/status.h"
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

/// Largest entry state a member of a batch in CUPTI's automatic per-kernel
/// ranges restores in full by the copy engines rather than differentially,
/// in bytes. There the differential restore's one launch is a counter range,
/// about 0.8-1.3 ms of every pass on an H200 besides its own time
/// (bench/cupti_pass_cost, part k), and it digests the whole entry state; a
/// device-to-device copy moves about 4 TB/s of the GPU's (copy_bench's
/// floor: 0.128 ms for 256 MB), so a copy of 1 GiB costs about the launch it
/// replaces.
inline constexpr std::uint64_t kCopyEngineEntryRestoreMaxBytes = std::uint64_t{1} << 30;

/// Most pieces an entry state restored by the copy engines may have: each is
/// a cuMemcpyAsync call of its own, a few microseconds of host time each, so
/// 64 of them cost well under the launch they replace.
inline constexpr std::size_t kCopyEngineEntryRestoreMaxPieces = 64;

/// Whether a window member restores its whole entry state by the copy
/// engines (no kernel launch, so no counter range), where the tool offers it
/// (unless RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE=0): only inside a pass of
/// CUPTI's automatic per-kernel ranges shared by a batch of several
/// (`in_automatic_ranges`), never under --verify (`verify`: its digests come
/// from the differential restore), for an entry state of at most
/// kCopyEngineEntryRestoreMaxPieces pieces (`entry_pieces`), and, when a
/// differential restore is planned (`differential`), only for one wholly on
/// the device tier (`pinned_entry_bytes` 0: over PCIe every pass would cost
/// more than the launch saves) of at most kCopyEngineEntryRestoreMaxBytes
/// (`device_entry_bytes`). Thread-safety: a pure function.
constexpr bool entry_restore_by_copy_engines(bool in_automatic_ranges, bool verify, bool differential,
                                             std::uint64_t device_entry_bytes, std::uint64_t pinned_entry_bytes,
                                             std::size_t entry_pieces) {
  return in_automatic_ranges && !verify && entry_pieces <= kCopyEngineEntryRestoreMaxPieces &&
         (!differential || (pinned_entry_bytes == 0 && device_entry_bytes <= kCopyEngineEntryRestoreMaxBytes));
}

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
  std::uint64_t host_captured_bytes = 0;     // pinned host buffers restored with the snapshot
  bool counting_pass0 = true;                // false: pass 0 only recorded (sized the image)
  std::size_t recorded_kernels = 0;          // kernels pass 0 recorded
  bool pass0_stopped_at_capture = false;     // pass 0 counted until a stream capture began in it
  std::uint64_t kept_allocation_bytes = 0;   // device memory allocated in the range, restored with the snapshot
  bool pass0_stopped_at_allocation = false;  // pass 0 counted until device memory was allocated in it
};

/// One range a window replays: its own restore strategy, re-submission and
/// record, and where its counters go.
struct ReplayMember {
  RestoreStrategy* restore = nullptr;
  Resubmission* resubmission = nullptr;
  /// Filled by the window: pass_records, passes, notes, timings.
  report::RangeRecord* record = nullptr;
  /// The user range pushed around the member's replay (unique in the
  /// window). Empty: the pass's own ranges count it (a window of one: the
  /// range pass 0 started, CUPTI's automatic per-kernel ranges, or the
  /// ranges the re-submission pushes per kernel: KernelCounterRanges).
  std::string counter_range;
  /// --verify; null without; a window of one member only. Its hooks run
  /// outside counter ranges.
  ReplayObserver* observer = nullptr;
  /// Whether another thread has unloaded a module since the member's range
  /// ended (its kernels cannot be launched again): checked before each
  /// replay. May be empty.
  std::function<bool()> module_unloaded;
  /// Written into the record's notes after the last pass; nullopt: none.
  std::optional<ReplayNotes> notes;
};

/// The steps of the window that are the same for every member.
struct ReplayWindowParts {
  CounterPasses& counters;
  ReplayStream& stream;
  /// The name start_pass is given (the range's, for a window of one).
  std::string pass_name;
  // Called as replayed pass `pass` (1-based, pass 0 being the application's)
  // begins: progress lines. May be empty.
  std::function<void(std::size_t pass)> pass_begins;
  // Enqueues the L2 flush on the replay stream after each member's restore
  // (the synchronize before its counters start or its counter range opens
  // waits for it), so that no dirty line of the restore is written back
  // while the counters run; empty when the tool has no flush buffer.
  std::function<Status()> flush_caches;
  // --collectives replay: returns when every rank of the job is at replayed
  // pass `pass` (1-based), ready to submit it (restored, counters started),
  // and once more with the number after the last pass, before the exit
  // states are handed back; its error (decline reason rendezvous_failed)
  // ends the window. Empty otherwise.
  std::function<Status(std::size_t pass)> pass_barrier;
  // Run right after each pass's counters start and before the first
  // member's replayed work (outside its timing events): the lead-in flush of
  // per-kernel auto ranges (enqueued on the replay stream), or a
  // whole-range pass's lead-in (the flush, waited for, then the range's own
  // counter range: PassFlush::end_lead_in). May be empty.
  std::function<Status()> after_counters_start;
  // The tool's own kernel launches in the process so far
  // (kernels::tool_kernel_launches), for a window of several members whose
  // passes count every kernel in CUPTI's automatic per-kernel ranges: each
  // member's restore and flush run inside the pass there, so their kernels
  // are counter ranges too, and the window counts them before each member's
  // replayed work (ReplayWindow::tool_kernels_before). May be empty.
  std::function<std::uint64_t()> tool_kernels;
};

/// The decline of a window that failed with `failure` (run()'s, and the
/// caller's for the steps before it): module_unload_in_range when
/// `module_unloaded` says another thread unloaded a module since the range
/// ended, else the reason `failure` carries (Status::decline_reason), else
/// replay_failed; the detail is the failure's message.
Decline replay_window_decline(const Status& failure, const std::function<bool()>& module_unloaded);

/// Host milliseconds the window spent in each of its steps, summed over its
/// passes and members (the time budget's "other work" split; debug output).
struct ReplayWindowSteps {
  double capture_exit_ms = 0;     // every member's exit capture, before the first pass
  double restore_enqueue_ms = 0;  // restore_entry and its two events
  double read_back_ms = 0;
  double flush_enqueue_ms = 0;
  double synchronize_ms = 0;    // the wait for the restore and the flush
  double before_submit_ms = 0;  // verify's look, a pass start (one member), the range push, the ranks' barrier
  double submit_ms = 0;         // the re-submission (under CUPTI's automatic ranges, each launch waits)
  double work_wait_ms = 0;      // the wait for the replayed work's end event
  double pass_times_ms = 0;     // the pop of a member's counter range and its events' times
  double start_pass_ms = 0;     // counter pass starts and after_counters_start
  double end_pass_ms = 0;       // counter pass ends
  double hand_back_ms = 0;      // notes, the last barrier and every member's exit state back
};

/// One line naming each step's host milliseconds, for `members` members:
/// "window of N, host ms: exit captures 2.10, restore enqueue 3.10, ...".
/// Thread-safety: pure.
std::string describe_window_steps(const ReplayWindowSteps& steps, std::size_t members);

class ReplayWindow {
 public:
  /// `pass_count`: the passes the metric list needs (CUPTI may ask for a few
  /// more; more than 4 x pass_count + 8 fails the window).
  ReplayWindow(ReplayWindowParts parts, std::uint32_t pass_count) : parts_(std::move(parts)), pass_count_(pass_count) {}

  /// Replays `members` (at least one), filling each member's record. The
  /// time of the passes' starts and stops is shared equally among the
  /// members' counters_ms; exit captures, restores and replayed work are
  /// each member's own. Errors: the first failing step's; every captured
  /// member's exit state is back either way.
  Status run(std::vector<ReplayMember>& members);

  /// With parts.tool_kernels, after run() succeeded: per member, the tool's
  /// kernels each pass launched before the member's replayed work (since
  /// the pass's counters started or the previous member's work ended: the
  /// lead-in, the member's restore, its flush), as the first pass counted
  /// them. nullopt when a later pass counted otherwise (the passes' counter
  /// ranges would not line up), or without parts.tool_kernels.
  std::optional<std::vector<std::size_t>> tool_kernels_before() const {
    if (!tool_kernels_agree_) return std::nullopt;
    return tool_kernels_before_;
  }

  /// The host time of each step so far (after run(): the whole window's).
  const ReplayWindowSteps& steps() const { return steps_; }

 private:
  Status run_passes(std::vector<ReplayMember>& members, std::size_t& captured);
  // Counter pass `pass` (1 for the first replay) over every member; their
  // timings and pass records into their records. True when CUPTI has every
  // pass it needs.
  StatusOr<bool> run_pass(std::size_t pass, std::vector<ReplayMember>& members);
  // Member `m`'s part of pass `pass`: restore, flush, wait; with
  // `starts_pass` (a window of one), the pass's start; its counter range
  // around the re-submission; the ranks' barrier before the `first`
  // member's submit.
  Status replay_member(std::size_t pass, ReplayMember& m, bool first, bool starts_pass, double& counters_ms);
  // The pass's start (its time into `counters_ms`), then after_counters_start.
  Status start_counters(double& counters_ms);
  // After the last pass: passes, notes, the ranks' last barrier and every
  // member's exit state back.
  Status hand_back(std::size_t passes, std::vector<ReplayMember>& members);
  // With parts_.tool_kernels: the count where the current member's tool
  // kernels began (the pass's start, or the previous member's work end).
  void mark_tool_kernels();
  // ... and the tool's kernels since, noted as the current member's.
  void note_tool_kernels();
  ReplayWindowParts parts_;
  std::uint32_t pass_count_;
  std::uint64_t tool_kernels_mark_ = 0;
  std::vector<std::size_t> pass_tool_kernels_;  // this pass's, per member so far
  std::optional<std::vector<std::size_t>> tool_kernels_before_;
  bool tool_kernels_agree_ = true;
  ReplayWindowSteps steps_;
};

}  // namespace rangereplay::tool
