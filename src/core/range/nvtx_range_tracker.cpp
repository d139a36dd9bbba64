// NVTX call stream -> range begin/end decisions (see nvtx_range_tracker.h).
#include "core/range/nvtx_range_tracker.h"

#include <algorithm>
#include <utility>

namespace rangereplay::range {

const NvtxStacks NvtxRangeTracker::kNoStacks{};

NvtxRangeTracker::NvtxRangeTracker(NvtxFilter filter, RangeSelector selector)
    : filter_(std::move(filter)), gate_(std::move(selector)) {}

NvtxState NvtxRangeTracker::state_of(std::uint64_t thread_id) const {
  const auto it = threads_.find(thread_id);
  return NvtxState{it == threads_.end() ? kNoStacks : it->second.stacks, open_};
}

std::optional<RangeEvent> NvtxRangeTracker::begin(OpenRange& range, std::uint64_t thread_id) {
  const RangeGate::Verdict v = gate_.open();
  range.match_index = v.match_index;
  range.recorded = v.kind == RangeEventKind::kBegin;
  return RangeEvent{v.kind, range.source, v.match_index, range.name, range.domain, thread_id};
}

std::optional<RangeEvent> NvtxRangeTracker::finish(const OpenRange& range, std::uint64_t thread_id) {
  if (!range.recorded) return std::nullopt;
  gate_.close();
  return RangeEvent{RangeEventKind::kEnd, range.source, range.match_index, range.name, range.domain, thread_id};
}

std::optional<RangeEvent> NvtxRangeTracker::on_push(std::uint64_t thread_id, std::string_view domain,
                                                    std::string_view name) {
  std::lock_guard lock(mu_);
  ThreadState& ts = threads_[thread_id];
  auto stack = ts.stacks.find(domain);
  if (stack == ts.stacks.end()) stack = ts.stacks.emplace(std::string(domain), NvtxStack{}).first;
  stack->second.emplace_back(name);
  if (ts.range || gate_.done()) return std::nullopt;
  if (!filter_.begins_at_push(NvtxState{ts.stacks, open_}, domain)) return std::nullopt;
  ts.range =
      OpenRange{RangeSource::kNvtxPushPop, 0, false, std::string(name), std::string(domain), stack->second.size()};
  return begin(*ts.range, thread_id);
}

std::optional<RangeEvent> NvtxRangeTracker::on_pop(std::uint64_t thread_id, std::string_view domain) {
  std::lock_guard lock(mu_);
  const auto thread = threads_.find(thread_id);
  if (thread == threads_.end()) return std::nullopt;
  ThreadState& ts = thread->second;
  const auto stack = ts.stacks.find(domain);
  if (stack == ts.stacks.end() || stack->second.empty()) return std::nullopt;
  stack->second.pop_back();
  std::optional<RangeEvent> event;
  if (ts.range && ts.range->domain == domain && stack->second.size() < ts.range->depth) {
    const OpenRange range = std::move(*ts.range);
    ts.range.reset();
    event = finish(range, thread_id);
  }
  if (stack->second.empty()) ts.stacks.erase(stack);
  if (ts.stacks.empty() && !ts.range) threads_.erase(thread);
  return event;
}

std::optional<RangeEvent> NvtxRangeTracker::on_start(std::uint64_t thread_id, std::string_view domain,
                                                     std::string_view name, std::uint64_t range_id) {
  std::lock_guard lock(mu_);
  auto open = open_.find(domain);
  if (open == open_.end()) open = open_.emplace(std::string(domain), std::vector<std::string>{}).first;
  open->second.emplace_back(name);
  const auto [started, inserted] = started_.try_emplace(range_id, StartedRange{std::string(domain), std::string(name)});
  if (!inserted) {
    // An id reused while still open (a broken NVTX handler): the newer start
    // replaces the older one, whose name is no longer open.
    auto& names = open_[started->second.domain];
    const auto old = std::find(names.begin(), names.end(), started->second.name);
    if (old != names.end()) names.erase(old);
    started->second = StartedRange{std::string(domain), std::string(name)};
  }
  if (start_end_range_ || gate_.done()) return std::nullopt;
  if (!filter_.begins_at_start(state_of(thread_id), domain)) return std::nullopt;
  start_end_range_ = OpenRange{RangeSource::kNvtxStartEnd, 0, false, std::string(name), std::string(domain), 0};
  return begin(*start_end_range_, thread_id);
}

std::optional<RangeEvent> NvtxRangeTracker::on_end(std::uint64_t thread_id, std::uint64_t range_id) {
  std::lock_guard lock(mu_);
  const auto started = started_.find(range_id);
  if (started == started_.end()) return std::nullopt;
  const auto open = open_.find(started->second.domain);
  if (open != open_.end()) {
    auto& names = open->second;
    const auto it = std::find(names.begin(), names.end(), started->second.name);
    if (it != names.end()) names.erase(it);
    if (names.empty()) open_.erase(open);
  }
  started_.erase(started);
  if (!start_end_range_ || filter_.start_end_includes_match(state_of(thread_id))) return std::nullopt;
  const OpenRange range = std::move(*start_end_range_);
  start_end_range_.reset();
  return finish(range, thread_id);
}

std::optional<RangeEvent> NvtxRangeTracker::end_of_process(std::uint64_t thread_id) {
  std::lock_guard lock(mu_);
  std::optional<RangeEvent> event;
  if (start_end_range_ && start_end_range_->recorded) event = finish(*start_end_range_, thread_id);
  for (const auto& [tid, ts] : threads_) {
    if (ts.range && ts.range->recorded) event = finish(*ts.range, thread_id);
  }
  threads_.clear();
  open_.clear();
  started_.clear();
  start_end_range_.reset();
  return event;
}

bool NvtxRangeTracker::recording() const {
  std::lock_guard lock(mu_);
  return gate_.active();
}

bool NvtxRangeTracker::done() const {
  std::lock_guard lock(mu_);
  return gate_.done();
}

std::uint64_t NvtxRangeTracker::matched() const {
  std::lock_guard lock(mu_);
  return gate_.matched();
}

}  // namespace rangereplay::range
