// The replay window's pass loop (see replay_window.h).
#include "tool/logic/replay_window.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

#include "core/base/elapsed.h"

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

// From the first member's exit capture on, every captured member gets the
// application's state back whatever step fails: an open counter pass is
// ended, then each member restores what it captured, last first (best
// effort). Disarmed once the window's own hand-back completed.
class ExitStateGuard {
 public:
  ExitStateGuard(CounterPasses& counters, std::vector<ReplayMember>& members, const std::size_t& captured)
      : counters_(counters), members_(members), captured_(captured) {}
  ExitStateGuard(const ExitStateGuard&) = delete;
  ExitStateGuard& operator=(const ExitStateGuard&) = delete;
  ~ExitStateGuard() {
    if (!armed_) return;
    best_effort([this] {
      if (counters_.in_pass()) counters_.end_pass().status().ignore();
    });
    for (std::size_t i = captured_; i-- > 0;) best_effort([&] { members_[i].restore->restore_exit_after_failure(); });
  }
  void disarm() { armed_ = false; }

 private:
  CounterPasses& counters_;
  std::vector<ReplayMember>& members_;
  const std::size_t& captured_;
  bool armed_ = true;
};

// The observers' GPU objects (of the members whose observer began), released
// when a step fails, before the exit guard restores anything; disarmed once
// the window's own hand-back completed, when their owners free them.
class ObserversOnFailure {
 public:
  ObserversOnFailure(std::vector<ReplayMember>& members, const std::size_t& captured)
      : members_(members), captured_(captured) {}
  ObserversOnFailure(const ObserversOnFailure&) = delete;
  ObserversOnFailure& operator=(const ObserversOnFailure&) = delete;
  ~ObserversOnFailure() {
    if (!armed_) return;
    for (std::size_t i = 0; i < captured_; ++i) {
      if (ReplayObserver* observer = members_[i].observer) best_effort([observer] { observer->release(); });
    }
  }
  void disarm() { armed_ = false; }

 private:
  std::vector<ReplayMember>& members_;
  const std::size_t& captured_;
  bool armed_ = true;
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

std::string describe_window_steps(const ReplayWindowSteps& steps, std::size_t members) {
  const std::pair<const char*, double> parts[] = {{"exit captures", steps.capture_exit_ms},
                                                  {"restore enqueue", steps.restore_enqueue_ms},
                                                  {"read back", steps.read_back_ms},
                                                  {"flush enqueue", steps.flush_enqueue_ms},
                                                  {"synchronize", steps.synchronize_ms},
                                                  {"before submit", steps.before_submit_ms},
                                                  {"submit", steps.submit_ms},
                                                  {"work wait", steps.work_wait_ms},
                                                  {"pass times", steps.pass_times_ms},
                                                  {"pass starts", steps.start_pass_ms},
                                                  {"pass ends", steps.end_pass_ms},
                                                  {"hand-back", steps.hand_back_ms}};
  std::string out = "window of " + std::to_string(members) + ", host ms:";
  char buf[64];
  for (const auto& [name, ms] : parts) {
    std::snprintf(buf, sizeof buf, " %s %.2f,", name, ms);
    out += buf;
  }
  out.pop_back();
  return out;
}

Decline replay_window_decline(const Status& failure, const std::function<bool()>& module_unloaded) {
  const bool unloaded = module_unloaded && module_unloaded();
  if (!unloaded && failure.decline_reason()) return Decline{*failure.decline_reason(), failure.message()};
  return Decline{unloaded ? DeclineReason::kModuleUnloadInRange : DeclineReason::kReplayFailed, failure.message()};
}

Status ReplayWindow::run(std::vector<ReplayMember>& members) {
  std::size_t captured = 0;
  ExitStateGuard exit_state_guard(parts_.counters, members, captured);
  ObserversOnFailure observers_on_failure(members, captured);
  RR_RETURN_IF_ERROR(run_passes(members, captured));
  // Every member handed its state back in run_passes.
  exit_state_guard.disarm();
  observers_on_failure.disarm();
  for (ReplayMember& m : members) {
    if (m.observer != nullptr) m.observer->exit_restored(m.record->pass_records.back(), m.record->timings);
  }
  return ok_status();
}

Status ReplayWindow::run_passes(std::vector<ReplayMember>& members, std::size_t& captured) {
  if (members.empty()) return invalid_argument("a replay window without ranges");
  if (members.size() > 1 &&
      std::any_of(members.begin(), members.end(), [](const ReplayMember& m) { return m.observer != nullptr; }))
    return invalid_argument("an observer in a replay window of several ranges (--verify replays each range alone)");
  for (ReplayMember& m : members) {
    auto start = Clock::now();
    RR_RETURN_IF_ERROR(m.restore->capture_exit());
    const double capture_ms = ms_since(start);
    m.record->timings.capture_ms += capture_ms;
    steps_.capture_exit_ms += capture_ms;
    ++captured;
    if (m.observer != nullptr) m.observer->begin(*m.record);
  }
  // Released before the guards act on a failure.
  PassEvents events(parts_.stream);
  RR_RETURN_IF_ERROR(parts_.stream.create_events());
  bool all_submitted = false;
  std::size_t pass = 1;
  const std::size_t max_passes = 4 * std::max<std::uint32_t>(pass_count_, 1) + 8;
  while (!all_submitted) {
    if (pass >= max_passes) return internal_error("CUPTI asked for more passes than the metric list needs");
    RR_ASSIGN_OR_RETURN(all_submitted, run_pass(pass, members));
    ++pass;
  }
  const auto hand_back_start = Clock::now();
  Status handed_back = hand_back(pass, members);
  steps_.hand_back_ms += ms_since(hand_back_start);
  return handed_back;
}

StatusOr<bool> ReplayWindow::run_pass(std::size_t pass, std::vector<ReplayMember>& members) {
  if (parts_.pass_begins) parts_.pass_begins(pass);
  double counters_ms = 0;
  // A window of one starts its pass after the member's restore; a window of
  // several before the first, so that each member's flush also writes back
  // what the pass's start left in L2, outside every counter range.
  const bool one = members.size() == 1;
  pass_tool_kernels_.clear();
  if (!one) RR_RETURN_IF_ERROR(start_counters(counters_ms));
  for (std::size_t i = 0; i < members.size(); ++i)
    RR_RETURN_IF_ERROR(replay_member(pass, members[i], i == 0, one, counters_ms));
  if (parts_.tool_kernels) {
    if (!tool_kernels_before_)
      tool_kernels_before_ = pass_tool_kernels_;
    else if (*tool_kernels_before_ != pass_tool_kernels_)
      tool_kernels_agree_ = false;
  }
  const auto c = Clock::now();
  RR_ASSIGN_OR_RETURN(const bool all_submitted, parts_.counters.end_pass());
  const double end_ms = ms_since(c);
  counters_ms += end_ms;
  steps_.end_pass_ms += end_ms;
  const double share = counters_ms / static_cast<double>(members.size());
  for (ReplayMember& m : members) {
    report::StageTimings& t = m.record->timings;
    t.counters_ms += share;
    if (m.observer != nullptr) RR_RETURN_IF_ERROR(m.observer->replayed(m.record->pass_records.back(), t));
  }
  return all_submitted;
}

Status ReplayWindow::start_counters(double& counters_ms) {
  const auto c = Clock::now();
  RR_RETURN_IF_ERROR(parts_.counters.start_pass(parts_.pass_name));
  counters_ms += ms_since(c);
  mark_tool_kernels();
  if (parts_.after_counters_start) RR_RETURN_IF_ERROR(parts_.after_counters_start());
  steps_.start_pass_ms += ms_since(c);
  return ok_status();
}

Status ReplayWindow::replay_member(std::size_t pass, ReplayMember& m, bool first, bool starts_pass,
                                   double& counters_ms) {
  report::RangeRecord& record = *m.record;
  report::StageTimings& t = record.timings;
  ReplayStream& stream = parts_.stream;
  auto step = Clock::now();
  // Adds the host time since the previous step's end to `to`.
  auto lap = [&step](double& to) {
    const auto now = Clock::now();
    to += std::chrono::duration<double, std::milli>(now - step).count();
    step = now;
  };
  RR_RETURN_IF_ERROR(stream.record(ReplayStream::Event::kRestoreBegin));
  RR_RETURN_IF_ERROR(m.restore->restore_entry());
  RR_RETURN_IF_ERROR(stream.record(ReplayStream::Event::kRestoreEnd));
  lap(steps_.restore_enqueue_ms);
  RR_RETURN_IF_ERROR(m.restore->read_back());
  lap(steps_.read_back_ms);
  if (parts_.flush_caches) RR_RETURN_IF_ERROR(parts_.flush_caches());
  lap(steps_.flush_enqueue_ms);
  // The restore (and the flush) are ordered before the replayed work by the
  // stream itself, but they must finish before the counters start or the
  // member's counter range opens, or their traffic would be counted with
  // the first replayed kernel.
  RR_RETURN_IF_ERROR(stream.synchronize());
  lap(steps_.synchronize_ms);
  const std::uint64_t restored_bytes = m.restore->restored_bytes();
  if (m.observer != nullptr)
    m.observer->restored(record.pass_records.empty() ? nullptr : &record.pass_records.back(), t);
  const double pass_starts_before = steps_.start_pass_ms;  // a start here is timed as a pass start
  if (starts_pass) RR_RETURN_IF_ERROR(start_counters(counters_ms));
  if (!m.counter_range.empty()) RR_RETURN_IF_ERROR(parts_.counters.push_range(m.counter_range));
  if (m.module_unloaded && m.module_unloaded())
    return failed_precondition(
        "a module was unloaded by another thread since the range ended; its kernels cannot be launched again");
  // Every rank is ready to submit this pass (restored, counters started),
  // so a collective in it finds its peers submitting too. Before the work's
  // begin event: the wait is no part of the replayed work's GPU time.
  if (first && parts_.pass_barrier) RR_RETURN_IF_ERROR(parts_.pass_barrier(pass));
  RR_RETURN_IF_ERROR(stream.record(ReplayStream::Event::kWorkBegin));
  note_tool_kernels();
  lap(steps_.before_submit_ms);
  steps_.before_submit_ms -= steps_.start_pass_ms - pass_starts_before;
  RR_RETURN_IF_ERROR(m.resubmission->submit());
  double submit_ms = 0;
  lap(submit_ms);
  t.replay_submit_ms += submit_ms;
  steps_.submit_ms += submit_ms;
  mark_tool_kernels();
  RR_RETURN_IF_ERROR(stream.record(ReplayStream::Event::kWorkEnd));
  RR_RETURN_IF_ERROR(stream.wait(ReplayStream::Event::kWorkEnd));
  lap(steps_.work_wait_ms);
  if (!m.counter_range.empty()) RR_RETURN_IF_ERROR(parts_.counters.pop_range());
  RR_RETURN_IF_ERROR(add_pass_times(stream, t));
  lap(steps_.pass_times_ms);
  record.pass_records.push_back({static_cast<std::uint32_t>(pass), restored_bytes, {}});
  return ok_status();
}

void ReplayWindow::mark_tool_kernels() {
  if (parts_.tool_kernels) tool_kernels_mark_ = parts_.tool_kernels();
}

void ReplayWindow::note_tool_kernels() {
  if (parts_.tool_kernels) pass_tool_kernels_.push_back(parts_.tool_kernels() - tool_kernels_mark_);
}

namespace {

// The notes a member's ReplayNotes ask for, after `passes` (pass 0 and the
// replays).
void add_replay_notes(const ReplayNotes& notes, std::size_t passes, report::RangeRecord& record) {
  if (notes.host_captured_bytes > 0)
    record.notes.push_back(std::to_string(notes.host_captured_bytes) +
                           " bytes of pinned host memory passed to kernels were restored with the snapshot");
  if (notes.kept_allocation_bytes > 0)
    record.notes.push_back(std::to_string(notes.kept_allocation_bytes) +
                           " bytes of device memory allocated inside the range were restored to their bytes when "
                           "allocated before each replay, and to pass 0's at the end");
  if (notes.pass0_stopped_at_capture)
    record.notes.push_back("pass 0's counters were stopped when a stream capture began inside the range; all " +
                           std::to_string(passes - 1) + " counter passes were replays");
  else if (notes.pass0_stopped_at_allocation)
    record.notes.push_back("pass 0's counters were stopped when device memory was allocated inside the range; all " +
                           std::to_string(passes - 1) + " counter passes were replays");
  else if (!notes.counting_pass0)
    record.notes.push_back("pass 0 ran without counters (it sized the counter data to its " +
                           std::to_string(notes.recorded_kernels) + " kernels); all " + std::to_string(passes - 1) +
                           " counter passes were replays");
}

}  // namespace

Status ReplayWindow::hand_back(std::size_t passes, std::vector<ReplayMember>& members) {
  for (ReplayMember& m : members) {
    m.record->passes = static_cast<std::uint32_t>(passes);
    if (m.notes) add_replay_notes(*m.notes, passes, *m.record);
    if (m.observer != nullptr)
      RR_RETURN_IF_ERROR(m.observer->before_exit_restore(m.record->pass_records.back(), m.record->timings));
  }
  // No rank hands its exit state back while a peer's last pass may still
  // write into it (a collective's peer-to-peer buffers).
  if (parts_.pass_barrier) RR_RETURN_IF_ERROR(parts_.pass_barrier(passes));
  // The guard stays armed until every hand-back has completed: if a step
  // here fails, it restores every exit state again (best effort, every step).
  for (std::size_t i = members.size(); i-- > 0;) {
    ReplayMember& m = members[i];
    const auto start = Clock::now();
    RR_RETURN_IF_ERROR(m.restore->restore_exit());
    m.record->timings.restore_ms += ms_since(start);
  }
  return ok_status();
}

}  // namespace rangereplay::tool
