// The replay window's pass loop (see replay_window.h).
#include "tool/logic/replay_window.h"

#include <algorithm>
#include <chrono>

#include "core/elapsed.h"

namespace rangereplay::tool {

namespace {
using Clock = std::chrono::steady_clock;

// Runs one step of a guard's hand-back: an exception (an allocation that
// failed while building an error) is dropped, so that the next step still
// runs and nothing escapes a destructor (which would end the application).
template <class Step>
void best_effort(Step&& step) noexcept {
  try {
    step();
  } catch (...) {
  }
}

// From the exit capture on, the application gets its own exit state back
// whatever step fails: an open counter pass is ended, then the exit state is
// restored (best effort). Disarmed once the window's own hand-back completed.
class ExitStateGuard {
 public:
  ExitStateGuard(CounterPasses& counters, RestoreStrategy& restore) : counters_(counters), restore_(restore) {}
  ExitStateGuard(const ExitStateGuard&) = delete;
  ExitStateGuard& operator=(const ExitStateGuard&) = delete;
  ~ExitStateGuard() {
    if (!armed_) return;
    best_effort([this] {
      if (counters_.in_pass()) counters_.end_pass().status().ignore();
    });
    best_effort([this] { restore_.restore_exit_after_failure(); });
  }
  void disarm() { armed_ = false; }

 private:
  CounterPasses& counters_;
  RestoreStrategy& restore_;
  bool armed_ = true;
};

// The observer's GPU objects, released when a step fails (before the exit
// guard restores anything); disarmed once the window's own hand-back
// completed, when the caller frees them.
class ObserverOnFailure {
 public:
  explicit ObserverOnFailure(ReplayObserver* observer) : observer_(observer) {}
  ObserverOnFailure(const ObserverOnFailure&) = delete;
  ObserverOnFailure& operator=(const ObserverOnFailure&) = delete;
  ~ObserverOnFailure() {
    if (observer_ != nullptr) best_effort([this] { observer_->release(); });
  }
  void disarm() { observer_ = nullptr; }

 private:
  ReplayObserver* observer_;
};

// The pass timing events, released when the window ends (before the exit
// guard restores anything on a failure).
class PassEvents {
 public:
  explicit PassEvents(ReplayStream& stream) : stream_(stream) {}
  PassEvents(const PassEvents&) = delete;
  PassEvents& operator=(const PassEvents&) = delete;
  ~PassEvents() {
    best_effort([this] { stream_.release_events(); });
  }

 private:
  ReplayStream& stream_;
};
// A pass's restore and replayed work as the GPU timed them (its events),
// added to `t`.
Status add_pass_times(ReplayStream& stream, report::StageTimings& t) {
  RR_ASSIGN_OR_RETURN(const float restore_ms,
                      stream.elapsed_ms(ReplayStream::Event::kRestoreBegin, ReplayStream::Event::kRestoreEnd));
  RR_ASSIGN_OR_RETURN(const float kernels_ms,
                      stream.elapsed_ms(ReplayStream::Event::kWorkBegin, ReplayStream::Event::kWorkEnd));
  t.restore_ms += restore_ms;
  t.kernels_ms += kernels_ms;
  return ok_status();
}

}  // namespace

Decline replay_window_decline(const Status& failure, const std::function<bool()>& module_unloaded) {
  const bool unloaded = module_unloaded && module_unloaded();
  if (!unloaded && failure.decline_reason()) return Decline{*failure.decline_reason(), failure.message()};
  return Decline{unloaded ? DeclineReason::kModuleUnloadInRange : DeclineReason::kReplayFailed, failure.message()};
}

std::optional<Decline> ReplayWindow::run(const std::string& range_name, const ReplayNotes& notes,
                                         report::RangeRecord& record) {
  // The exit guard has run by the time run_passes returns.
  Status s = run_passes(range_name, notes, record);
  if (s.ok()) return std::nullopt;
  return replay_window_decline(s, parts_.module_unloaded);
}

StatusOr<bool> ReplayWindow::run_pass(std::size_t pass, const std::string& range_name, report::RangeRecord& record) {
  report::StageTimings& t = record.timings;
  RestoreStrategy& restore = parts_.restore;
  CounterPasses& counters = parts_.counters;
  ReplayStream& stream = parts_.stream;
  ReplayObserver* const observer = parts_.observer;
  if (parts_.pass_begins) parts_.pass_begins(pass);
  RR_RETURN_IF_ERROR(stream.record(ReplayStream::Event::kRestoreBegin));
  RR_RETURN_IF_ERROR(restore.restore_entry());
  RR_RETURN_IF_ERROR(stream.record(ReplayStream::Event::kRestoreEnd));
  RR_RETURN_IF_ERROR(restore.read_back());
  if (parts_.flush_caches) RR_RETURN_IF_ERROR(parts_.flush_caches());
  // The restore (and the flush) are ordered before the replayed work by the
  // stream itself, but they must finish before the counters start, or
  // their traffic would be counted with the first replayed kernel.
  RR_RETURN_IF_ERROR(stream.synchronize());
  const std::uint64_t restored_bytes = restore.restored_bytes();
  if (observer != nullptr) observer->restored(record.pass_records.empty() ? nullptr : &record.pass_records.back(), t);
  auto c = Clock::now();
  RR_RETURN_IF_ERROR(counters.start_pass(range_name));
  t.counters_ms += ms_since(c);
  if (parts_.after_counters_start) RR_RETURN_IF_ERROR(parts_.after_counters_start());
  RR_RETURN_IF_ERROR(stream.record(ReplayStream::Event::kWorkBegin));
  if (parts_.module_unloaded && parts_.module_unloaded())
    return failed_precondition(
        "a module was unloaded by another thread while the range was being replayed; its "
        "kernels cannot be launched again");
  // Every rank is ready to submit this pass (restored, counters started),
  // so a collective in it finds its peers submitting too.
  if (parts_.pass_barrier) RR_RETURN_IF_ERROR(parts_.pass_barrier(pass));
  auto submit_start = Clock::now();
  RR_RETURN_IF_ERROR(parts_.resubmission.submit());
  t.replay_submit_ms += ms_since(submit_start);
  RR_RETURN_IF_ERROR(stream.record(ReplayStream::Event::kWorkEnd));
  RR_RETURN_IF_ERROR(stream.wait(ReplayStream::Event::kWorkEnd));
  c = Clock::now();
  RR_ASSIGN_OR_RETURN(const bool all_submitted, counters.end_pass());
  t.counters_ms += ms_since(c);
  RR_RETURN_IF_ERROR(add_pass_times(stream, t));
  record.pass_records.push_back({static_cast<std::uint32_t>(pass), restored_bytes, {}});
  if (observer != nullptr) RR_RETURN_IF_ERROR(observer->replayed(record.pass_records.back(), t));
  return all_submitted;
}

Status ReplayWindow::run_passes(const std::string& range_name, const ReplayNotes& notes, report::RangeRecord& record) {
  report::StageTimings& t = record.timings;
  RestoreStrategy& restore = parts_.restore;
  CounterPasses& counters = parts_.counters;
  ReplayStream& stream = parts_.stream;
  ReplayObserver* const observer = parts_.observer;

  auto capture_start = Clock::now();
  RR_RETURN_IF_ERROR(restore.capture_exit());
  t.capture_ms += ms_since(capture_start);
  ExitStateGuard exit_state_guard(counters, restore);

  if (observer != nullptr) observer->begin(record);
  ObserverOnFailure observer_on_failure(observer);

  PassEvents events(stream);
  RR_RETURN_IF_ERROR(stream.create_events());

  bool all_submitted = false;
  std::size_t pass = 1;
  const std::size_t max_passes = 4 * std::max<std::uint32_t>(pass_count_, 1) + 8;
  while (!all_submitted) {
    if (pass >= max_passes) return internal_error("CUPTI asked for more passes than the metric list needs");
    RR_ASSIGN_OR_RETURN(all_submitted, run_pass(pass, range_name, record));
    ++pass;
  }
  record.passes = static_cast<std::uint32_t>(pass);
  if (notes.host_captured_bytes > 0)
    record.notes.push_back(std::to_string(notes.host_captured_bytes) +
                           " bytes of pinned host memory passed to kernels were restored with the snapshot");
  if (notes.pass0_stopped_at_capture)
    record.notes.push_back("pass 0's counters were stopped when a stream capture began inside the range; all " +
                           std::to_string(pass - 1) + " counter passes were replays");
  else if (!notes.counting_pass0)
    record.notes.push_back("pass 0 ran without counters (it sized the counter data to its " +
                           std::to_string(notes.recorded_kernels) + " kernels); all " + std::to_string(pass - 1) +
                           " counter passes were replays");

  if (observer != nullptr) RR_RETURN_IF_ERROR(observer->before_exit_restore(record.pass_records.back(), t));
  // No rank hands its exit state back while a peer's last pass may still
  // write into it (a collective's peer-to-peer buffers).
  if (parts_.pass_barrier) RR_RETURN_IF_ERROR(parts_.pass_barrier(pass));
  // The guard stays armed until the hand-back has completed: if a step here
  // fails, it restores the exit state again (best effort, every step).
  auto restore_start = Clock::now();
  RR_RETURN_IF_ERROR(restore.restore_exit());
  exit_state_guard.disarm();
  observer_on_failure.disarm();
  t.restore_ms += ms_since(restore_start);
  if (observer != nullptr) observer->exit_restored(record.pass_records.back(), t);
  return ok_status();
}

namespace {

// From the first member's capture on, every captured member gets the
// application's state back whatever step fails: an open pass is ended, then
// each member restores what it captured (best effort).
class BatchStateGuard {
 public:
  BatchStateGuard(CounterPasses& counters, std::vector<BatchMember>& members, const std::size_t& captured)
      : counters_(counters), members_(members), captured_(captured) {}
  BatchStateGuard(const BatchStateGuard&) = delete;
  BatchStateGuard& operator=(const BatchStateGuard&) = delete;
  ~BatchStateGuard() {
    if (!armed_) return;
    best_effort([this] {
      if (counters_.in_pass()) counters_.end_pass().status().ignore();
    });
    for (std::size_t i = captured_; i-- > 0;) best_effort([&] { members_[i].restore->restore_exit_after_failure(); });
  }
  void disarm() { armed_ = false; }

 private:
  CounterPasses& counters_;
  std::vector<BatchMember>& members_;
  const std::size_t& captured_;
  bool armed_ = true;
};

}  // namespace

Status BatchWindow::run(std::vector<BatchMember>& members) {
  std::size_t captured = 0;
  BatchStateGuard guard(counters_, members, captured);
  RR_RETURN_IF_ERROR(run_passes(members, captured));
  // The state is back: every member handed it back in run_passes.
  guard.disarm();
  return ok_status();
}

Status BatchWindow::run_passes(std::vector<BatchMember>& members, std::size_t& captured) {
  if (members.empty()) return invalid_argument("a batch without ranges");
  for (BatchMember& m : members) {
    auto start = Clock::now();
    RR_RETURN_IF_ERROR(m.restore->capture_exit());
    m.record->timings.capture_ms += ms_since(start);
    ++captured;
  }
  PassEvents events(stream_);
  RR_RETURN_IF_ERROR(stream_.create_events());
  const double share = 1.0 / static_cast<double>(members.size());
  bool all_submitted = false;
  std::size_t pass = 1;
  const std::size_t max_passes = 4 * std::max<std::uint32_t>(pass_count_, 1) + 8;
  while (!all_submitted) {
    if (pass >= max_passes) return internal_error("CUPTI asked for more passes than the metric list needs");
    auto c = Clock::now();
    RR_RETURN_IF_ERROR(counters_.start_pass("batch"));
    double counters_ms = ms_since(c);
    for (BatchMember& m : members) {
      report::StageTimings& t = m.record->timings;
      // The restore runs outside every counter range and has finished
      // before the member's first counter range opens.
      RR_RETURN_IF_ERROR(stream_.record(ReplayStream::Event::kRestoreBegin));
      RR_RETURN_IF_ERROR(m.restore->restore_entry());
      RR_RETURN_IF_ERROR(stream_.record(ReplayStream::Event::kRestoreEnd));
      RR_RETURN_IF_ERROR(m.restore->read_back());
      if (flush_caches_) RR_RETURN_IF_ERROR(flush_caches_());
      RR_RETURN_IF_ERROR(stream_.synchronize());
      const std::uint64_t restored_bytes = m.restore->restored_bytes();
      if (!m.counter_range.empty()) RR_RETURN_IF_ERROR(counters_.push_range(m.counter_range));
      RR_RETURN_IF_ERROR(stream_.record(ReplayStream::Event::kWorkBegin));
      if (m.module_unloaded && m.module_unloaded())
        return failed_precondition(
            "a module was unloaded by another thread before a deferred range's replay; its kernels cannot be "
            "launched again");
      auto submit_start = Clock::now();
      RR_RETURN_IF_ERROR(m.resubmission->submit());
      t.replay_submit_ms += ms_since(submit_start);
      RR_RETURN_IF_ERROR(stream_.record(ReplayStream::Event::kWorkEnd));
      RR_RETURN_IF_ERROR(stream_.wait(ReplayStream::Event::kWorkEnd));
      if (!m.counter_range.empty()) RR_RETURN_IF_ERROR(counters_.pop_range());
      RR_RETURN_IF_ERROR(add_pass_times(stream_, t));
      m.record->pass_records.push_back({static_cast<std::uint32_t>(pass), restored_bytes, {}});
    }
    c = Clock::now();
    RR_ASSIGN_OR_RETURN(all_submitted, counters_.end_pass());
    counters_ms += ms_since(c);
    for (BatchMember& m : members) m.record->timings.counters_ms += counters_ms * share;
    ++pass;
  }
  for (std::size_t i = members.size(); i-- > 0;) {
    BatchMember& m = members[i];
    m.record->passes = static_cast<std::uint32_t>(pass);
    auto restore_start = Clock::now();
    RR_RETURN_IF_ERROR(m.restore->restore_exit());
    m.record->timings.restore_ms += ms_since(restore_start);
  }
  return ok_status();
}

}  // namespace rangereplay::tool
