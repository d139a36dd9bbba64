// The counters of `--set triage`: the counter session over PM sampling
// (tool/logic/pm_sampling_backend.h) instead of the range profiler, set up by
// set_up_counters (cupti_counters.cpp) when the metric set is kTriageSetName
// (core/config/metric_sets.h).
// CuptiPmSampler is the backend's PmSampler over cupti::PmSamplingSession.
//
// Thread-safety: the range's thread only (the tool's lock).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/config/metric_sets.h"
#include "cupti/pm_sampling_session.h"
#include "tool/counter_setup.h"
#include "tool/logic/pm_sampling_backend.h"

namespace rangereplay::tool {

/// CounterSetup::backend's name for them (the report's counter_backend).
inline constexpr std::string_view kPmSamplingBackendName = "pm_sampling";

class CuptiPmSampler final : public PmSampler {
 public:
  explicit CuptiPmSampler(std::unique_ptr<cupti::PmSamplingSession> session) : session_(std::move(session)) {}
  Status start() override { return session_->start(); }
  Status stop() override { return session_->stop(); }
  /// cupti::PmSamplingSession::decode's samples as CounterSamples.
  StatusOr<std::vector<CounterSample>> decode() override;

 private:
  std::unique_ptr<cupti::PmSamplingSession> session_;
};

/// The counters for `metrics` (as typed) and the roles of set `metric_set`
/// resolved on `setup.chip` (core/config/metric_sets.h resolve_metric_list,
/// as MetricEvaluator::create resolves a set), of which PM sampling on
/// `setup.device` keeps those it collects in one pass together
/// (cupti::select_pm_sampling_metrics): the others join setup.missing. The
/// session has a pass count of 1, whole-range metrics and no standing pass;
/// setup.backend is kPmSamplingBackendName. `setup` comes with its device
/// and chip. Errors: an unknown metric or set (kInvalidArgument), none of
/// the list collectable by PM sampling (kInvalidArgument, kUnknownMetric),
/// PM sampling unsupported or already enabled on the device, CUPTI failures.
StatusOr<CounterSetup> set_up_pm_sampling_counters(CounterSetup setup, const std::vector<std::string>& metrics,
                                                   const std::string& metric_set, CounterSessionOptions options,
                                                   const CounterSetupHooks& hooks);

}  // namespace rangereplay::tool
