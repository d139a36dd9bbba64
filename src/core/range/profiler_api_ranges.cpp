// cu(da)ProfilerStart/Stop range state machine (see profiler_api_ranges.h).
#include "core/range/profiler_api_ranges.h"

namespace rangereplay::range {

std::optional<RangeEvent> ProfilerApiRanges::on_start(std::uint64_t thread_id) {
  std::lock_guard lock(mu_);
  if (open_) return std::nullopt;  // nested start: ignored
  open_ = true;
  const RangeGate::Verdict v = gate_.open();
  recorded_ = v.kind == RangeEventKind::kBegin;
  match_index_ = v.match_index;
  return RangeEvent{v.kind, RangeSource::kProfilerApi, v.match_index, kRangeName, "", thread_id};
}

std::optional<RangeEvent> ProfilerApiRanges::on_stop(std::uint64_t thread_id) {
  std::lock_guard lock(mu_);
  if (!open_) return std::nullopt;  // stop without start: ignored
  open_ = false;
  if (!recorded_) return std::nullopt;
  recorded_ = false;
  gate_.close();
  return RangeEvent{RangeEventKind::kEnd, RangeSource::kProfilerApi, match_index_, kRangeName, "", thread_id};
}

bool ProfilerApiRanges::open() const {
  std::lock_guard lock(mu_);
  return open_;
}

bool ProfilerApiRanges::done() const {
  std::lock_guard lock(mu_);
  return !open_ && gate_.done();
}

std::uint64_t ProfilerApiRanges::matched() const {
  std::lock_guard lock(mu_);
  return gate_.matched();
}

}  // namespace rangereplay::range
