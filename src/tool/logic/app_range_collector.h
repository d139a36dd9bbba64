// AppRangeCollector: one run's counter pass of application range replay
// (--replay-mode app-range, --fallback app-range) for the ranges it
// collects. Nothing is snapshotted or replayed: at a collected range's begin
// the range's counter data from the earlier runs is read back
// (core/interprocess/app_range_state.h), CUPTI is configured for this run's pass in
// application-replay mode and the pass starts with the range's own counter
// range pushed; the application's work runs counted; at its end the pass
// stops, the counter data is carried to the next run, and once CUPTI has
// every pass the range's values are decoded:
//
//   AppRangeCollector collector(counters, *config.app_range);
//   RR_RETURN_IF_ERROR(collector.begin(range.index, range.name));   // drained before, flushed under all
//   ... the application's range runs ...
//   RR_ASSIGN_OR_RETURN(AppRangeOutcome out, collector.end());      // drained before
//   if (out.complete) record.range_metrics = metric_values(counters.columns(), out.values);
//
// A one-pass metric list (--set triage) carries nothing: no claim, no state
// file, and any process of a job collects its own ranges in its one run.
// Otherwise, the checks that keep the runs in step: the run is claimed by the first
// process that collects in it (a second process of a job is refused), the
// carried counter data must ask for this run's pass (a run that skipped or
// repeated a pass is refused, named), and must not be complete already.
//
// CUDA-free over the counter session's backend (tests with a fake one).
// Thread-safety: the range's thread only (the tool's lock).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/config/profile_config.h"
#include "core/interprocess/app_range_state.h"
#include "report/report_model.h"
#include "tool/logic/counter_session.h"

namespace rangereplay::tool {

/// What one range's pass left.
struct AppRangeOutcome {
  bool complete = false;       // CUPTI had every pass after this run's: `values` hold the range's metrics
  std::vector<double> values;  // one per metric (CounterSession::columns() order), when complete
  std::uint32_t pass = 0;      // the pass this run collected, from 0
  std::uint32_t runs = 0;      // application runs whose pass is in the counter data, this one included
  // A PM sampling backend's samples of this run's pass (--set triage), when
  // complete; `values` are their sums. Empty for the range profiler.
  std::vector<CounterSample> samples;
};

/// The most points a range's series holds in the report: at a sample every
/// 100 us, 0.4 s of range; a longer range's samples are merged in runs.
inline constexpr std::size_t kMaxSeriesPoints = 4096;

/// `samples` (times on the GPU's sample clock, ns; each value a count over
/// its interval) as the report's series: each interval in milliseconds from
/// the first sample's start. Up to `max_points` (>= 1) samples are kept as
/// they are; more are merged, k = ceil(size / max_points) consecutive
/// samples at a time (the last run may be shorter), into one point from the
/// first's start to the last's end holding their sums, so that the series
/// still sums to the range's totals. Empty for no samples. Thread-safety: a
/// pure function.
std::vector<report::MetricSample> sample_series(const std::vector<CounterSample>& samples,
                                                std::size_t max_points = kMaxSeriesPoints);

class AppRangeCollector {
 public:
  /// `counters` (set up in whole-range mode) and `run` outlive the collector.
  AppRangeCollector(CounterSession& counters, const AppRangeRun& run) : counters_(counters), run_(run) {}

  /// Begins this run's pass of matched range `range_index` (named `name`
  /// for its counter range). Errors: the carried state's (unreadable,
  /// another configuration's image), failed_precondition when it asks for
  /// another pass than this run's or is complete already, a range already
  /// begun; the backend's. After an error no pass is open.
  Status begin(std::uint32_t range_index, const std::string& name);
  /// Ends the pass begun last, decodes it into the range's counter data,
  /// writes that for the next run, and evaluates the values when CUPTI has
  /// every pass. Errors: no pass
  /// begun; the backend's; the state file's write.
  StatusOr<AppRangeOutcome> end();
  /// The open pass was ended elsewhere (a stream capture began inside the
  /// range, or one was open at its end): nothing is carried from this run,
  /// so the next run's begin() refuses the range as out of step.
  void abandon() { open_ = false; }
  /// A pass is open (begin() succeeded, end() not called yet).
  bool open() const { return open_; }

 private:
  // A multi-pass list's counter data carried from earlier runs into state_,
  // the run claimed by this process first; an error when the carried data
  // asks for another pass than this run's. `which` names the range.
  Status load_carried_state(std::uint32_t range_index, const std::string& which);

  CounterSession& counters_;
  const AppRangeRun& run_;
  bool open_ = false;
  long claimed_by_ = 0;  // the process that holds the run (claim_app_range_run), 0 before the claim
  std::string path_;
  AppRangeCounterState state_;
};

}  // namespace rangereplay::tool
