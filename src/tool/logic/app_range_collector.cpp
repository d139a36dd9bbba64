// One run's counter pass of application range replay (see app_range_collector.h).
#include "tool/logic/app_range_collector.h"

#include <unistd.h>

#include <algorithm>
#include <span>

namespace rangereplay::tool {

Status AppRangeCollector::begin(std::uint32_t range_index, const std::string& name) {
  if (open_) return failed_precondition("an application range replay pass is already open");
  const std::string which = "range " + std::to_string(range_index) + " '" + name + "'";
  if (counters_.pass_count() == 1) {
    // One pass (--set triage, a one-pass list): nothing is carried to a later
    // run, so there is no claim and no state file, and every process of a job
    // (torchrun's ranks) collects its own ranges.
    if (run_.pass != 0) {
      return failed_precondition("this run collects pass " + std::to_string(run_.pass + 1) + " of " + which +
                                 ", but the metric list needs one pass");
    }
    path_.clear();
    state_ = AppRangeCounterState{};
  } else {
    RR_RETURN_IF_ERROR(load_carried_state(range_index, which));
  }
  RR_RETURN_IF_ERROR(counters_.backend().begin_application_pass(
      state_.counter_data, state_.next_pass, static_cast<std::uint16_t>(state_.target_nesting_level)));
  RR_RETURN_IF_ERROR(counters_.start_pass(name));
  open_ = true;
  return ok_status();
}

Status AppRangeCollector::load_carried_state(std::uint32_t range_index, const std::string& which) {
  // Claimed by this process: a child forked from it is another process.
  const long pid = static_cast<long>(::getpid());
  if (claimed_by_ != pid) {
    RR_RETURN_IF_ERROR(claim_app_range_run(run_.state_dir, run_.pass, pid));
    claimed_by_ = pid;
  }
  path_ = app_range_state_path(run_.state_dir, range_index);
  RR_ASSIGN_OR_RETURN(std::optional<AppRangeCounterState> carried, read_app_range_state(path_));
  state_ = carried ? std::move(*carried) : AppRangeCounterState{};
  if (state_.all_passes_submitted) {
    return failed_precondition("the counter data of " + which +
                               " already holds every pass, yet this run collects pass " +
                               std::to_string(run_.pass + 1) + "; the application matched more ranges in this run");
  }
  if (state_.next_pass != run_.pass) {
    return failed_precondition("this run collects pass " + std::to_string(run_.pass + 1) + " of " + which +
                               ", but its counter data asks for pass " + std::to_string(state_.next_pass + 1) +
                               " (a run in between did not collect its pass, or this range matched in one run only)");
  }
  return ok_status();
}

std::vector<report::MetricSample> sample_series(const std::vector<CounterSample>& samples, std::size_t max_points) {
  std::vector<report::MetricSample> out;
  if (samples.empty()) return out;
  const std::uint64_t origin = samples.front().start_ns;
  const auto ms = [origin](std::uint64_t ns) { return ns >= origin ? static_cast<double>(ns - origin) / 1e6 : 0.0; };
  const std::size_t points = std::max<std::size_t>(max_points, 1);
  const std::size_t run = samples.size() <= points ? 1 : (samples.size() - 1) / points + 1;
  out.reserve((samples.size() + run - 1) / run);
  for (std::size_t first = 0; first < samples.size(); first += run) {
    const std::size_t last = std::min(first + run, samples.size()) - 1;
    report::MetricSample point{ms(samples[first].start_ns), ms(samples[last].end_ns), samples[first].values};
    for (std::size_t i = first + 1; i <= last; ++i) {
      const std::vector<double>& v = samples[i].values;
      for (std::size_t m = 0; m < point.values.size() && m < v.size(); ++m) point.values[m] += v[m];
    }
    out.push_back(std::move(point));
  }
  return out;
}

StatusOr<AppRangeOutcome> AppRangeCollector::end() {
  if (!open_) return failed_precondition("no application range replay pass is open");
  open_ = false;
  RR_ASSIGN_OR_RETURN(const bool all_submitted, counters_.end_pass());
  AppRangeOutcome outcome;
  outcome.pass = run_.pass;
  CounterBackend& backend = counters_.backend();
  // The pass's counters stay in CUPTI until decoded into the image: decoded
  // after every pass, so the image carried to the next run holds them.
  RR_ASSIGN_OR_RETURN(const std::size_t dropped, backend.decode());
  state_.next_pass = backend.next_pass();
  state_.target_nesting_level = backend.next_nesting_level();
  state_.all_passes_submitted = all_submitted;
  state_.runs += 1;
  const std::span<const std::uint8_t> image = backend.counter_data();
  state_.counter_data.assign(image.begin(), image.end());
  outcome.runs = state_.runs;
  if (!path_.empty()) RR_RETURN_IF_ERROR(write_app_range_state(path_, state_));
  if (!all_submitted) return outcome;
  RR_ASSIGN_OR_RETURN(std::vector<std::vector<double>> rows, backend.evaluate());
  if (rows.empty()) {
    return internal_error("CUPTI returned no counter range for the range after every pass (" + std::to_string(dropped) +
                          " dropped)");
  }
  outcome.complete = true;
  outcome.values = std::move(rows.front());
  outcome.samples = backend.samples();
  return outcome;
}

}  // namespace rangereplay::tool
