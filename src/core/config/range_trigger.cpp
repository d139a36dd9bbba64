// Range sources built from the configuration, and the one-recorded-range rule
// across them (see range_trigger.h).
#include "core/config/range_trigger.h"

#include <algorithm>
#include <utility>

namespace rangereplay::range {

Status RangeTrigger::configure(const ProfileConfig& config) {
  const RangeSelector& selector = config.ranges;
  if (!config.nvtx_include.empty() || !config.nvtx_exclude.empty()) {
    RR_ASSIGN_OR_RETURN(NvtxFilter filter, NvtxFilter::create(config.nvtx_include, config.nvtx_exclude));
    nvtx_ = std::make_unique<NvtxRangeTracker>(std::move(filter), selector);
  }
  if (config.profiler_api) profiler_api_ = std::make_unique<ProfilerApiRanges>(selector);
  if (config.kernel_windows) {
    windows_.emplace(*config.kernel_windows);
    window_gate_.emplace(selector);
  }
  refresh_listening();
  return ok_status();
}

void RangeTrigger::refresh_listening() {
  nvtx_listening_.store(nvtx_ != nullptr && !nvtx_->done(), std::memory_order_relaxed);
  profiler_listening_.store(profiler_api_ != nullptr && !profiler_api_->done(), std::memory_order_relaxed);
  counting_.store(windows_.has_value() && !windows_->past_last(launches_) && !window_gate_->done(),
                  std::memory_order_relaxed);
}

std::optional<RangeEvent> RangeTrigger::forward(std::optional<RangeEvent> event) {
  refresh_listening();
  if (!event) return event;
  const Recorded who{event->source, event->match_index};
  switch (event->kind) {
    case RangeEventKind::kBegin:
      if (recording_) {
        // Another source's range is being recorded: this one cannot be
        // recorded separately (its work already belongs to the other).
        shadowed_.push_back(who);
        event->kind = RangeEventKind::kDeclinedOverlap;
      } else {
        recording_ = who;
      }
      return event;
    case RangeEventKind::kEnd: {
      const auto shadow = std::find(shadowed_.begin(), shadowed_.end(), who);
      if (shadow != shadowed_.end()) {
        shadowed_.erase(shadow);
        return std::nullopt;
      }
      if (!recording_ || !(*recording_ == who)) return std::nullopt;  // not ours to end
      recording_.reset();
      return event;
    }
    case RangeEventKind::kSkipped:
    case RangeEventKind::kDeclinedOverlap: return event;
  }
  return event;
}

std::optional<RangeEvent> RangeTrigger::on_push(std::uint64_t thread_id, std::string_view domain,
                                                std::string_view name) {
  if (!nvtx_) return std::nullopt;
  return forward(nvtx_->on_push(thread_id, domain, name));
}

std::optional<RangeEvent> RangeTrigger::on_pop(std::uint64_t thread_id, std::string_view domain) {
  if (!nvtx_) return std::nullopt;
  return forward(nvtx_->on_pop(thread_id, domain));
}

std::optional<RangeEvent> RangeTrigger::on_start(std::uint64_t thread_id, std::string_view domain,
                                                 std::string_view name, std::uint64_t range_id) {
  if (!nvtx_) return std::nullopt;
  return forward(nvtx_->on_start(thread_id, domain, name, range_id));
}

std::optional<RangeEvent> RangeTrigger::on_end(std::uint64_t thread_id, std::uint64_t range_id) {
  if (!nvtx_) return std::nullopt;
  return forward(nvtx_->on_end(thread_id, range_id));
}

std::optional<RangeEvent> RangeTrigger::on_profiler_start(std::uint64_t thread_id) {
  if (!profiler_api_) return std::nullopt;
  return forward(profiler_api_->on_start(thread_id));
}

std::optional<RangeEvent> RangeTrigger::on_profiler_stop(std::uint64_t thread_id) {
  if (!profiler_api_) return std::nullopt;
  return forward(profiler_api_->on_stop(thread_id));
}

RangeTrigger::Launch RangeTrigger::on_launch(std::uint64_t thread_id) {
  Launch launch;
  launch.index = launches_++;
  if (!windows_) return launch;
  const KernelWindows::Position at = windows_->position(launch.index);
  std::optional<RangeEvent> event;
  if (at.window && at.begins_before) {
    const RangeGate::Verdict v = window_gate_->open();
    if (v.kind == RangeEventKind::kBegin) window_recorded_ = *at.window;
    event =
        RangeEvent{v.kind, RangeSource::kKernelWindow, v.match_index, windows_->window_name(*at.window), "", thread_id};
  }
  launch.ends_after = at.window.has_value() && at.ends_after && window_recorded_ == at.window;
  launch.before = forward(std::move(event));
  return launch;
}

std::optional<RangeEvent> RangeTrigger::after_launch(std::uint64_t thread_id, std::uint64_t index) {
  if (!windows_) return std::nullopt;
  const KernelWindows::Position at = windows_->position(index);
  if (!at.window || !at.ends_after || window_recorded_ != at.window) return std::nullopt;
  window_recorded_.reset();
  window_gate_->close();
  // Window i is match i: windows open in order and each opens exactly once.
  return forward(RangeEvent{RangeEventKind::kEnd, RangeSource::kKernelWindow, *at.window,
                            windows_->window_name(*at.window), "", thread_id});
}

}  // namespace rangereplay::range
