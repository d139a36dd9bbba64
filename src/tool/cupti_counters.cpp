// The counter session's CUPTI side (see cupti_counters.h).
#include "tool/cupti_counters.h"

#include "cuda/cu_status.h"
#include "cupti/counter_evaluator.h"
#include "cupti/device_counters.h"
#include "cupti/metric_catalog.h"
#include "tool/pm_sampling_counters.h"

namespace rangereplay::tool {

cupti::RangeProfilerSession::Mode session_mode(CounterMode mode) {
  switch (mode) {
    case CounterMode::kPerKernel: return cupti::RangeProfilerSession::Mode::kPerKernel;
    case CounterMode::kWholeRange: return cupti::RangeProfilerSession::Mode::kWholeRange;
    case CounterMode::kUserRanges: return cupti::RangeProfilerSession::Mode::kUserRanges;
  }
  return cupti::RangeProfilerSession::Mode::kPerKernel;
}

StatusOr<std::vector<std::string>> CuptiCounterBackend::range_names() const {
  const std::span<const std::uint8_t> image = session_->counter_data();
  RR_ASSIGN_OR_RETURN(const std::size_t count, cupti::counter_data_range_count(image));
  std::vector<std::string> names;
  names.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    RR_ASSIGN_OR_RETURN(std::string name, cupti::counter_data_range_name(image, i));
    names.push_back(std::move(name));
  }
  return names;
}

StatusOr<CounterSetup> set_up_counters(CUcontext ctx, const std::vector<std::string>& metrics,
                                       const std::string& metric_set, CounterSessionOptions options,
                                       const CounterSetupHooks& hooks) {
  const auto stage = [&hooks](const char* s) { hooks.say_stage(s); };
  const auto debug = [&hooks](const std::string& line) { hooks.say_debug(line); };
  debug("configuring counters (" + std::to_string(metrics.size()) + " metrics" +
        (metric_set.empty() ? std::string() : ", set " + metric_set) + ")");
  CounterSetup setup;
  CUdevice device = 0;
  RR_CU(cuCtxGetDevice(&device));
  setup.device = device;
  stage("configuring counters: chip name");
  RR_ASSIGN_OR_RETURN(setup.chip, cupti::chip_name_of_device(static_cast<int>(setup.device)));
  debug("chip " + setup.chip);
  // --set triage samples each range with PM sampling: no range profiler.
  if (metric_set == kTriageSetName)
    return set_up_pm_sampling_counters(std::move(setup), metrics, metric_set, options, hooks);
  stage("configuring counters: range profiler enable");
  RR_ASSIGN_OR_RETURN(auto session, cupti::RangeProfilerSession::enable(ctx));
  stage("configuring counters: counter availability");
  RR_ASSIGN_OR_RETURN(auto availability, cupti::counter_availability_image(ctx));
  debug("range profiler enabled");
  stage("configuring counters: config image");
  RR_ASSIGN_OR_RETURN(std::unique_ptr<MetricEvaluator> evaluator,
                      MetricEvaluator::create(setup.chip, availability, metrics, metric_set));
  debug("config image built, " + std::to_string(evaluator->metrics().size()) + " metrics (" +
        std::to_string(evaluator->missing().size()) + " of the set missing on " + setup.chip + "), " +
        std::to_string(evaluator->pass_count()) + " passes");
  options.pass_count = evaluator->pass_count();
  const CounterMode mode = configured_counter_mode(options.whole_range_metrics);
  stage("configuring counters: counter data image");
  RR_RETURN_IF_ERROR(session->configure(evaluator->config_image(), evaluator->metrics(), 1, session_mode(mode)));
  debug("counter data image configured (" + std::to_string(session->counter_data_bytes()) + " bytes)");
  std::vector<std::string> names = evaluator->metrics();
  std::vector<std::string> units = evaluator->units();
  setup.metrics = names;
  setup.backend = "range_profiler";
  setup.missing = evaluator->missing();
  setup.session =
      std::make_unique<CounterSession>(std::make_unique<CuptiCounterBackend>(std::move(session), std::move(evaluator)),
                                       std::move(names), std::move(units), options, hooks.debug);
  return setup;
}

Status metric_host_ready() noexcept {
  try {
    Status s = cupti::warm_up_host_api();
    if (s.code() == StatusCode::kUnavailable) return s;
  } catch (...) {
  }
  return ok_status();  // a host API failure: the evaluator initializes it
}

void warm_up_metric_host() noexcept {
  try {
    cupti::warm_up_host_api().ignore();  // a failure leaves the set-up to pay the cost
  } catch (...) {
  }
}

}  // namespace rangereplay::tool
