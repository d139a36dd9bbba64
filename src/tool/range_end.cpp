// RangeEnd (range_end.h): a recorded range's end on the GPU, from pass 0's
// close to its values.
#include "tool/range_end.h"

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "core/base/elapsed.h"
#include "cuda/cu_status.h"
#include "cuda/digest_plan.h"
#include "tool/controller_helpers.h"
#include "tool/logic/range_state.h"
#include "tool/logic/replay_window.h"
#include "tool/verify.h"

namespace rangereplay::tool {

namespace {

using Clock = std::chrono::steady_clock;

// The notes the replay window writes for `range` (a recording range).
ReplayNotes replay_notes(const ActiveRange& range) {
  const auto* recording = std::get_if<Recording>(&range.state);
  return ReplayNotes{range.host_captured_bytes,      recording == nullptr || recording->counting_pass0,
                     range.program.kernels().size(), recording != nullptr && recording->pass0_stopped_at_capture,
                     range.kept_allocation_bytes,    recording != nullptr && recording->pass0_stopped_at_allocation};
}

// Applies the module events of the range's window to it (declines, the
// modules_loaded count).
void apply_module_events(ActiveRange& range, std::vector<ModuleEvent> events) {
  for (ModuleEvent& e : events) {
    if (!profiled(range.state)) continue;
    switch (e.kind) {
      case ModuleEvent::Kind::kLoaded: ++range.modules_loaded; break;
      case ModuleEvent::Kind::kLoadDeclines:
        decline(range, DeclineReason::kModuleLoadInRange, std::move(e.detail));
        break;
      case ModuleEvent::Kind::kUnloaded:
        decline(range, DeclineReason::kModuleUnloadInRange, std::move(e.detail));
        break;
    }
  }
}

}  // namespace

void RangeEnd::close_pass0(ActiveRange& range) {
  // A name whose range saw no capture counts pass 0 again from its next
  // range (torch.compile's CUDA graphs are captured in warm-up steps only).
  if (profiled(range.state) && range.captures_begun == 0) parts_.capturing_range_names.erase(range.name);
  std::vector<ModuleEvent> module_events = parts_.modules.close_range_window();
  range.unloads_at_end = parts_.modules.unloads();
  apply_module_events(range, std::move(module_events));
  debug("end range '%s': %ld ops recorded", range.name, static_cast<long>(range.program.ops.size()));
  range.window_start = Clock::now();
  range.record.timings.pass0_ms =
      std::chrono::duration<double, std::milli>(range.window_start - range.pass0_start).count();
}

bool RangeEnd::drain_and_replay(ActiveRange& range, bool may_wait, bool at_free) {
  // The watchdog keeps the pointer: literals only.
  const auto stage = [at_free](const char* at_end, const char* at_a_free) { return at_free ? at_a_free : at_end; };
  auto sync_start = Clock::now();
  parts_.mutex.set_stage(stage("range end: draining the context (cuCtxSynchronize)",
                               "free inside the range: draining the context (cuCtxSynchronize)"));
  Status s = cu_status(cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__);
  range.record.timings.sync_ms += ms_since(sync_start);
  const std::size_t kernel_count = range.program.kernels().size();
  CounterSession& counters = *parts_.counting.session();
  if (may_wait && range_waits_for_batch(range.state, s.ok(), kernel_count, range.eligibility.declined(),
                                        parts_.deferred.can_wait(range))) {
    // Pass 0 only recorded, so nothing of CUPTI's is open for it: its
    // passes are shared with other deferred ranges'.
    counters.remember_kernels(range.name, kernel_count);
    range.record.passes = 1;
    return true;
  }
  parts_.mutex.set_stage(stage("range end: stopping pass 0", "free inside the range: stopping pass 0"));
  const bool all_submitted = parts_.counting.stop_pass0(range, s.ok(), kernel_count);
  if (!range.eligibility.declined()) counters.remember_kernels(range.name, kernel_count);
  if (!s.ok()) decline(range, DeclineReason::kReplayFailed, s.message());
  range.eligibility.finish();  // no kernel in range
  if (!range.eligibility.declined() && range.write_set) {
    parts_.mutex.set_stage(stage("range end: proving the write set", "free inside the range: proving the write set"));
    if (std::optional<Decline> failed = parts_.snapshots.prove_write_set(range))
      decline(range, failed->reason, std::move(failed->detail));
  }
  if (parts_.peers.coordinated()) {
    // Declined or not: every rank's multi-pass range meets the others here.
    parts_.mutex.set_stage(
        stage("range end: rendezvous with the other ranks", "free inside the range: rendezvous with the other ranks"));
    if (std::optional<Decline> d = parts_.peers.agree_with_peers(range))
      decline(range, d->reason, std::move(d->detail));
  }
  replay_and_evaluate(range, all_submitted);
  parts_.counting.restore_configured_mode(range);
  return false;
}

void RangeEnd::replay_and_evaluate(ActiveRange& range, bool all_submitted) {
  range.record.passes = 1;
  parts_.mutex.set_stage("range end: replay window");
  // CUPTI's automatic per-kernel ranges have returned one counter range too
  // few for some ranges (counter_ranges_mismatch), where user ranges pushed
  // around each kernel returned them all: such a range is replayed once more
  // that way, from its record as pass 0 left it (ranks replaying in lockstep
  // excepted: the others would not follow).
  std::optional<report::RangeRecord> before;
  if (!range.eligibility.declined() && !all_submitted && std::holds_alternative<AutoKernelRanges>(range.counters) &&
      !parts_.peers.coordinated())
    before = range.record;
  auto replay_with_user_ranges = [&](const std::string& mismatch) -> Status {
    range.record = std::move(*before);
    RR_RETURN_IF_ERROR(parts_.counting.size_counters_to_pass0(range, range.program.kernels().size(),
                                                              CounterLayout{UserKernelRanges{}}));
    if (std::optional<Decline> failed = replay_window(range))
      return internal_error(failed->detail).with_decline_reason(failed->reason);
    RR_RETURN_IF_ERROR(parts_.counting.evaluate(range));
    range.record.notes.push_back(
        "replayed a second time with a counter range pushed around each kernel, after CUPTI's automatic per-kernel "
        "ranges gave the first: " +
        mismatch);
    return ok_status();
  };
  if (!range.eligibility.declined() && !all_submitted) {
    std::optional<Decline> failed = replay_window(range);
    if (range.write_set) parts_.snapshots.check_write_set_after_window(range);
    if (failed) decline(range, failed->reason, std::move(failed->detail));
  }
  if (!range.eligibility.declined() && standing_counter_range(range.counters) != nullptr) {
    parts_.counting.record_kernels(range, {});  // the values come when the standing pass is flushed
  } else if (!range.eligibility.declined()) {
    Status e = parts_.counting.evaluate(range);
    if (!e.ok() && before && e.decline_reason() == DeclineReason::kCounterRangesMismatch)
      e = replay_with_user_ranges(e.message());
    if (!e.ok()) {
      const Decline d = decline_of(e, DeclineReason::kCountersUnavailable);
      decline(range, d.reason, d.detail);
    }
  }
  if (!range.eligibility.declined()) add_replay_notes(range);
}

void RangeEnd::add_replay_notes(ActiveRange& range) {
  range.record.counter_ranges = counter_ranges_name(range.counters);
  const RankRendezvous& peers = parts_.peers;
  if (range.rendezvous_barriers > 0 && peers.joined() && peers.joined()->world_size() > 1) {
    range.record.notes.push_back(
        "replayed pass by pass together with the job's other " + std::to_string(peers.joined()->world_size() - 1) +
        " rank(s), meeting them at " + std::to_string(range.rendezvous_barriers) + " barriers (--collectives replay)" +
        (range.collective_kernel.empty() ? std::string() : "; it holds the collective " + range.collective_kernel));
  }
  if (range.captures_begun > 0)
    range.record.notes.push_back(std::to_string(range.captures_begun) +
                                 " stream capture(s) began inside the range: the work captured into graphs did "
                                 "not execute and was not replayed (launches of the graphs were)");
  if (range.program.host_functions > 0)
    range.record.notes.push_back(std::to_string(range.program.host_functions) +
                                 " host function(s) (cuLaunchHostFunc) after the range's last work ran in pass 0 "
                                 "only: replays leave them out");
}

std::optional<Decline> RangeEnd::replay_window(ActiveRange& range) {
  // Other threads' frees and allocations wait until the window ends.
  auto inventory_lock = parts_.inventory.lock();
  return replay_window_locked(range);
}

std::optional<Decline> RangeEnd::replay_window_locked(ActiveRange& range) {
  RangeCounters& counting = parts_.counting;
  CounterSession& counters = *counting.session();
  const std::function<bool()> module_unloaded = [this, &range] { return unloaded_since_end(range); };
  StatusOr<std::unique_ptr<WindowMember>> member =
      window_member(range, parts_.snapshots.range_globals(range), counting.tool_stream(),
                    WindowMemberOptions{parts_.config.verify, &counters.backend(), "k", RestoreLaunches::kPlanVariant});
  if (!member.ok()) return replay_window_decline(member.status(), module_unloaded);
  std::vector<ReplayMember> members{ReplayMember{(*member)->restore.get(), (*member)->resubmission.get(), &range.record,
                                                 "", (*member)->verifier.get(), module_unloaded, replay_notes(range)}};
  EventReplayStream stream(counting.tool_stream());
  ReplayWindow window(ReplayWindowParts{counters, stream, range.name,
                                        [this, &range](std::size_t pass) {
                                          progress(parts_.config, parts_.counting.pass_count(), range, pass + 1);
                                          debug("replay pass %s%ld", "", static_cast<long>(pass));
                                        },
                                        counting.flush().enqueue_hook(), parts_.peers.pass_barrier(range),
                                        counting.after_counters_start(range)},
                      counting.pass_count());
  const Status s = window.run(members);
  if (debug_enabled()) debug("%s", describe_window_steps(window.steps(), 1));
  if (s.ok()) return std::nullopt;
  return replay_window_decline(s, module_unloaded);
}

}  // namespace rangereplay::tool
