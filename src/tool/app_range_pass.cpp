// AppRangePass (app_range_pass.h): application range replay's runs in the
// range controller (tool/logic/app_range_collector.h): a range the run
// collects has one counter pass counted in the application's own execution;
// nothing is recorded, snapshotted or replayed, so any API may run inside it.
#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "core/base/ascii.h"
#include "core/base/elapsed.h"
#include "core/config/metric_sets.h"
#include "cuda/cu_status.h"
#include "tool/app_range_pass.h"
#include "tool/context_scope.h"
#include "tool/logic/range_report.h"
#include "tool/tool_thread.h"

namespace rangereplay::tool {
namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

std::unique_ptr<ActiveRange> AppRangePass::begin(std::unique_ptr<ActiveRange> range, CUcontext ctx) {
  const AppRangeRun& run = *parts_.config.app_range;
  range->pass0_start = Clock::now();
  if (!run.collects(range->index)) {
    // Another run collects it, or the first run replayed it: untouched here.
    range->state = LeftAlone{};
    return range;
  }
  range->state = Collecting{};
  const auto begin_start = Clock::now();
  std::optional<Decline> declined = controller_.admit_range(ctx);
  if (!declined) {
    controller_.release_left_over_state();
    // The work before the range is not the range's.
    parts_.mutex.set_stage("app-range begin: draining the context (cuCtxSynchronize)");
    if (Status s = cu_status(cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__); !s.ok())
      declined = Decline{DeclineReason::kCountersUnavailable, s.message()};
  }
  if (!declined && counting_.flush().exists() && parts_.config.cache_control == CacheControl::kAll) {
    if (Status s = counting_.flush().flush_and_wait(); !s.ok())
      declined = Decline{DeclineReason::kCountersUnavailable, s.message()};
  }
  if (!declined) {
    parts_.mutex.set_stage("app-range begin: starting the counter pass");
    if (!app_range_) app_range_.emplace(*counters_, run);
    if (Status s = app_range_->begin(range->index, range->name); !s.ok())
      declined = Decline{DeclineReason::kCountersUnavailable, s.message()};
  }
  range->record.timings.begin_ms = ms_since(begin_start);
  if (declined) {
    range->eligibility.decline(declined->reason, std::move(declined->detail));
  } else {
    std::get<Collecting>(range->state).started = true;
    if (!parts_.config.quiet && parts_.config.metric_set == kTriageSetName)
      std::fprintf(stderr, "rangereplay: range %u '%s': sampling (PM sampling, no replay)\n", range->index + 1,
                   escape_controls(range->name).c_str());
    else if (!parts_.config.quiet)
      std::fprintf(stderr, "rangereplay: range %u '%s': app-range pass %u\n", range->index + 1,
                   escape_controls(range->name).c_str(), run.pass + 1);
  }
  range->pass0_start = Clock::now();
  return range;
}

void AppRangePass::end(std::unique_ptr<ActiveRange> range) {
  parts_.modules.close_range_window();
  if (std::holds_alternative<LeftAlone>(range->state)) return;
  range->window_start = Clock::now();
  range->record.timings.pass0_ms =
      std::chrono::duration<double, std::milli>(range->window_start - range->pass0_start).count();
  if (!profiled(range->state) || range->counters_closed || parts_.captures.open_captures() > 0) {
    if (profiled(range->state) && app_range_) app_range_->abandon();
    controller_.end_range_without_gpu(std::move(range));
    return;
  }
  range->record.passes = 1;
  Collecting& collecting = std::get<Collecting>(range->state);
  const bool no_kernel = collecting.kernels.empty();
  range->record.kernels = std::move(collecting.kernels);
  range->record.counter_ranges = "whole";
  // The drain and the pass's stop run in the range's own context.
  const RangeContextScope context_scope(range->ctx);
  parts_.mutex.set_stage("app-range end: draining the context (cuCtxSynchronize)");
  auto sync_start = Clock::now();
  Status s = cu_status(cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__);
  range->record.timings.sync_ms += ms_since(sync_start);
  parts_.mutex.set_stage("app-range end: stopping the counter pass");
  auto c = Clock::now();
  StatusOr<AppRangeOutcome> outcome = app_range_->end();
  range->record.timings.counters_ms += ms_since(c);
  if (!s.ok()) {
    range->eligibility.decline(DeclineReason::kCountersUnavailable, s.message());
  } else if (!outcome.ok()) {
    range->eligibility.decline(DeclineReason::kCountersUnavailable, outcome.status().message());
  } else if (outcome->complete) {
    range->record.range_metrics = metric_values(counters_->columns(), outcome->values);
    if (!outcome->samples.empty()) {
      // --set triage: PM sampling in this run, the one run there is.
      std::vector<report::MetricSample> series = sample_series(outcome->samples);
      std::string note =
          "sampled in the application's own run (PM sampling, no replay): " + std::to_string(outcome->samples.size()) +
          " samples; the values are their sums";
      if (series.size() < outcome->samples.size())
        note += "; the series merges them into " + std::to_string(series.size()) + " points";
      range->record.samples = std::move(series);
      range->record.notes.push_back(std::move(note));
    } else {
      range->record.notes.push_back("app-range: pass " + std::to_string(outcome->pass + 1) +
                                    " collected in this run, the last; the values hold the passes of " +
                                    std::to_string(outcome->runs) + " application runs");
    }
  } else {
    range->record.notes.push_back("app-range: pass " + std::to_string(outcome->pass + 1) + " of " +
                                  std::to_string(counting_.pass_count()) + " collected in this run");
  }
  // The recorder's count of kernel operations is not kept here: its list is.
  if (no_kernel)
    range->eligibility.decline(DeclineReason::kNoKernelInRange, "no kernel or graph was launched inside the range");
  parts_.mutex.set_stage("app-range end: report");
  controller_.report_range(*range);
}

}  // namespace rangereplay::tool
