// The counter session's CUDA-free decisions (see counter_session.h).
#include "tool/logic/counter_session.h"

#include <algorithm>
#include <chrono>

#include "core/base/elapsed.h"

namespace rangereplay::tool {

CounterSession::CounterSession(std::unique_ptr<CounterBackend> backend, std::vector<std::string> names,
                               std::vector<std::string> units, const CounterSessionOptions& options,
                               std::function<void(const std::string&)> debug)
    : backend_(std::move(backend)),
      names_(std::move(names)),
      units_(std::move(units)),
      options_(options),
      debug_(std::move(debug)),
      standing_(StandingPassParts{*backend_, *this, columns(), configured_mode(), debug_}) {}

std::size_t CounterSession::counter_ranges_for(const std::string& range_name) const {
  // Kernels per range the image holds when the range's kernel count is not
  // known yet: as many as fit in kCounterImageBudgetBytes, at most 2048.
  const std::size_t fallback =
      options_.max_kernels_per_range > 0
          ? options_.max_kernels_per_range
          : std::clamp<std::size_t>(kCounterImageBudgetBytes / std::max<std::size_t>(backend_->bytes_per_range(), 1), 1,
                                    2048);
  auto it = kernels_by_range_name_.find(range_name);
  if (it == kernels_by_range_name_.end()) return fallback;
  // A quarter more than last time, within the budget, never below last time
  // (but never above the largest image).
  return std::min(backend_->most_ranges(), std::max(it->second, std::min(fallback, it->second + it->second / 4 + 8)));
}

Status CounterSession::start_backend_pass(const std::string& range_name) {
  if (started_once_) return backend_->start_pass(range_name);
  const auto start = std::chrono::steady_clock::now();
  Status s = backend_->start_pass(range_name);
  started_once_ = true;
  first_pass_start_ms_ = ms_since(start);
  return s;
}

Status CounterSession::warm_up() {
  // A multi-pass list's empty pass leaves the session's pass index at 1
  // whatever the next range's configuration says (the first range's values
  // came out NaN on the H200): only a one-pass list, whose pass completes.
  if (options_.pass_count != 1) return ok_status();
  const auto start = std::chrono::steady_clock::now();
  CounterMode mode = configured_mode();
  std::size_t ranges = 1;
  if (standing_pass_eligible()) {
    mode = CounterMode::kUserRanges;
    ranges = std::min(StandingPass::kCounterRanges, backend_->most_ranges());
  } else if (mode == CounterMode::kPerKernel) {
    ranges = counter_ranges_for(std::string());  // no range has this name: the image a new name gets
  }
  Status s = backend_->set_mode(mode);
  if (s.ok()) s = backend_->resize(ranges);
  if (s.ok()) s = backend_->begin_range();
  if (s.ok()) s = start_backend_pass("rangereplay_warm_up");
  if (s.ok()) {
    // A one-pass list has every pass after this stop: its (empty) data is
    // decoded, so none of it is left for the first range's configuration.
    StatusOr<bool> all = backend_->end_pass();
    s = all.status();
    if (s.ok() && *all) s = backend_->decode().status();
  }
  const Status back = backend_->set_mode(configured_mode());
  warm_up_ms_ = ms_since(start);
  if (debug_)
    debug_("counter warm-up (" + std::to_string(ranges) + " counter ranges): " + s.to_string() + ", " +
           std::to_string(warm_up_ms_) + " ms");
  return s.ok() ? back : s;
}

bool CounterSession::standing_pass_eligible() const {
  return options_.standing_pass && options_.pass_count == 1 && options_.whole_range_metrics;
}

}  // namespace rangereplay::tool
