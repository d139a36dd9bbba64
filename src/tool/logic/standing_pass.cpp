// The standing pass's CUDA-free bookkeeping (see standing_pass.h).
#include "tool/logic/standing_pass.h"

#include <algorithm>
#include <chrono>

#include "core/base/decline.h"
#include "core/base/elapsed.h"
#include "tool/logic/counter_session.h"

namespace rangereplay::tool {

Status StandingPass::open(const std::string& range_name) {
  if (open_) return ok_status();
  CounterBackend& backend = parts_.backend;
  RR_RETURN_IF_ERROR(backend.set_mode(CounterMode::kUserRanges));
  RR_RETURN_IF_ERROR(backend.resize(std::min(kCounterRanges, backend.most_ranges())));
  RR_RETURN_IF_ERROR(backend.begin_range());
  RR_RETURN_IF_ERROR(parts_.passes.start_pass(range_name));
  open_ = true;
  pushed_ = 0;
  if (parts_.debug) parts_.debug("standing pass opened for " + std::to_string(backend.max_ranges()) + " ranges");
  return ok_status();
}

StatusOr<std::size_t> StandingPass::push(const std::string& range_name) {
  RR_RETURN_IF_ERROR(open(range_name));
  // CUPTI merges user ranges of one name into one counter range (seen on the
  // H200: two `step` ranges gave one range with their sum): each gets its own.
  RR_RETURN_IF_ERROR(parts_.backend.push_range(range_name + "#" + std::to_string(pushed_)));
  return pushed_++;
}

bool StandingPass::full() const { return open_ && pushed_ >= parts_.backend.max_ranges(); }

void StandingPass::flush(const char* why, std::vector<report::RangeRecord>& records, const RangeReporter& reporter) {
  if (!open_) return;
  open_ = false;
  CounterBackend& backend = parts_.backend;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<double>> values;
  Status s = backend.end_pass().status();
  if (s.ok()) s = backend.decode().status();
  if (s.ok()) {
    auto v = backend.evaluate();
    s = v.status();
    if (v.ok()) values = std::move(v).value();
  }
  backend.set_mode(parts_.configured_mode).ignore();
  if (parts_.debug) parts_.debug("standing pass flushed: " + std::string(why) + ": " + s.to_string());
  const double ms = ms_since(start);
  for (const Pending& p : pending_) {
    report::RangeRecord& record = records[p.record_index];
    record.timings.decode_ms += ms / static_cast<double>(pending_.size());
    if (s.ok() && p.counter_range < values.size()) {
      record.range_metrics = metric_values(parts_.columns, values[p.counter_range]);
      record.notes.push_back("one-pass metrics collected in a CUPTI pass left open across " + std::to_string(pushed_) +
                             " ranges (flushed: " + why + ")");
    } else {
      // A pass that ended well but came back short: a count CUPTI got wrong,
      // not counters that are missing.
      const Decline d =
          decline_of(s.ok() ? counter_ranges_mismatch(values.size(), std::to_string(pushed_) + " pushed") : s,
                     DeclineReason::kCountersUnavailable);
      reporter.record_decline(record, d.reason, d.detail);
    }
  }
  pending_.clear();
  pushed_ = 0;
}

void StandingPass::abandon(DeclineReason reason, const std::string& detail, std::vector<report::RangeRecord>& records,
                           const RangeReporter& reporter) {
  if (!open_) return;
  open_ = false;
  for (const Pending& p : pending_) reporter.record_decline(records[p.record_index], reason, detail);
  pending_.clear();
  pushed_ = 0;
  if (parts_.debug) parts_.debug("standing pass abandoned: " + detail);
}

}  // namespace rangereplay::tool
