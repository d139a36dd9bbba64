// Range states and their transitions (see range_state.h).
#include "tool/logic/range_state.h"

namespace rangereplay::tool {

bool profiled(const RangeState& state) {
  if (std::holds_alternative<Recording>(state)) return true;
  const auto* collecting = std::get_if<Collecting>(&state);
  return collecting != nullptr && collecting->started;
}

Recording plan_pass0(const Pass0Inputs& in) {
  Recording r;
  const bool multi_pass = in.pass_count > 1;
  r.deferrable = in.batching && multi_pass && !in.verify && !in.collectives_replay;
  r.entry_snapshot = multi_pass || in.capture_expected;
  r.counting_pass0 = counts_pass0(in, r.deferrable);
  return r;
}

bool counts_pass0(const Pass0Inputs& in, bool deferrable) {
  return !(in.capture_expected || (in.pass_count > 1 && (in.per_kernel_metrics || deferrable)));
}

void stop_pass0_counters_at_capture(Recording& recording) {
  recording.counting_pass0 = false;
  recording.pass0_stopped_at_capture = true;
}

void stop_pass0_counters_at_allocation(Recording& recording) {
  recording.counting_pass0 = false;
  recording.pass0_stopped_at_allocation = true;
}

FreeInRange free_in_range(const RangeState& state, bool declined, bool entry_snapshot, std::size_t kernels,
                          std::size_t open_captures, bool coordinated) {
  if (declined || !std::holds_alternative<Recording>(state)) return FreeInRange::kNothing;
  if (!entry_snapshot || kernels == 0 || open_captures > 0 || coordinated) return FreeInRange::kDecline;
  return FreeInRange::kReplayFirst;
}

RangeEndPath range_end_path(const RangeState& state, bool counters_closed, bool context_lost,
                            std::size_t open_captures) {
  if (std::holds_alternative<LeftAlone>(state)) return RangeEndPath::kLeftAlone;
  if (std::holds_alternative<ReplayedBeforeFree>(state)) return RangeEndPath::kReplayedBefore;
  if (std::holds_alternative<Collecting>(state)) return RangeEndPath::kApplicationRun;
  const bool recording = std::holds_alternative<Recording>(state);
  if (context_lost && recording) return RangeEndPath::kContextLost;
  if (!recording || counters_closed || open_captures > 0) return RangeEndPath::kWithoutGpu;
  return RangeEndPath::kDrain;
}

bool range_waits_for_batch(const RangeState& state, bool drained, std::size_t kernels, bool declined, bool can_wait) {
  const auto* recording = std::get_if<Recording>(&state);
  return recording != nullptr && recording->deferrable && drained && kernels > 0 && !declined && can_wait;
}

}  // namespace rangereplay::tool
