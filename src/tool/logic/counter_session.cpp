// The counter session's CUDA-free decisions (see counter_session.h).
#include "tool/logic/counter_session.h"

#include <algorithm>
#include <chrono>

#include "core/base/decline.h"
#include "core/base/elapsed.h"

namespace rangereplay::tool {

CounterSession::CounterSession(std::unique_ptr<CounterBackend> backend, std::vector<std::string> names,
                               std::vector<std::string> units, const CounterSessionOptions& options,
                               std::function<void(const std::string&)> debug)
    : backend_(std::move(backend)),
      names_(std::move(names)),
      units_(std::move(units)),
      options_(options),
      debug_(std::move(debug)) {}

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
    ranges = std::min(kStandingRanges, backend_->most_ranges());
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

Status CounterSession::open_standing_pass(const std::string& range_name) {
  if (standing_open_) return ok_status();
  RR_RETURN_IF_ERROR(backend_->set_mode(CounterMode::kUserRanges));
  RR_RETURN_IF_ERROR(backend_->resize(std::min(kStandingRanges, backend_->most_ranges())));
  RR_RETURN_IF_ERROR(backend_->begin_range());
  RR_RETURN_IF_ERROR(start_backend_pass(range_name));
  standing_open_ = true;
  standing_pushed_ = 0;
  if (debug_) debug_("standing pass opened for " + std::to_string(backend_->max_ranges()) + " ranges");
  return ok_status();
}

StatusOr<std::size_t> CounterSession::push_standing_range(const std::string& range_name) {
  RR_RETURN_IF_ERROR(open_standing_pass(range_name));
  // CUPTI merges user ranges of one name into one counter range (seen on the
  // H200: two `step` ranges gave one range with their sum): each gets its own.
  RR_RETURN_IF_ERROR(backend_->push_range(range_name + "#" + std::to_string(standing_pushed_)));
  return standing_pushed_++;
}

void CounterSession::flush_standing_pass(const char* why, std::vector<report::RangeRecord>& records,
                                         const RangeReporter& reporter) {
  if (!standing_open_) return;
  standing_open_ = false;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<double>> values;
  Status s = backend_->end_pass().status();
  if (s.ok()) s = backend_->decode().status();
  if (s.ok()) {
    auto v = backend_->evaluate();
    s = v.status();
    if (v.ok()) values = std::move(v).value();
  }
  backend_->set_mode(configured_mode()).ignore();
  if (debug_) debug_("standing pass flushed: " + std::string(why) + ": " + s.to_string());
  const double ms = ms_since(start);
  for (const StandingPending& p : standing_pending_) {
    report::RangeRecord& record = records[p.record_index];
    record.timings.decode_ms += ms / static_cast<double>(standing_pending_.size());
    if (s.ok() && p.counter_range < values.size()) {
      record.range_metrics = metric_values(columns(), values[p.counter_range]);
      record.notes.push_back("one-pass metrics collected in a CUPTI pass left open across " +
                             std::to_string(standing_pushed_) + " ranges (flushed: " + why + ")");
    } else {
      // A pass that ended well but came back short: a count CUPTI got wrong,
      // not counters that are missing.
      const Decline d =
          decline_of(s.ok() ? counter_ranges_mismatch(values.size(), std::to_string(standing_pushed_) + " pushed") : s,
                     DeclineReason::kCountersUnavailable);
      reporter.record_decline(record, d.reason, d.detail);
    }
  }
  standing_pending_.clear();
  standing_pushed_ = 0;
}

void CounterSession::abandon_standing_pass(DeclineReason reason, const std::string& detail,
                                           std::vector<report::RangeRecord>& records, const RangeReporter& reporter) {
  if (!standing_open_) return;
  standing_open_ = false;
  for (const StandingPending& p : standing_pending_) reporter.record_decline(records[p.record_index], reason, detail);
  standing_pending_.clear();
  standing_pushed_ = 0;
  if (debug_) debug_("standing pass abandoned: " + detail);
}

}  // namespace rangereplay::tool
