// The counters of `--set triage` over PM sampling (see pm_sampling_counters.h).
#include "tool/pm_sampling_counters.h"

#include <new>
#include <utility>

#include "core/config/metric_sets.h"
#include "cupti/metric_catalog.h"

namespace rangereplay::tool {

StatusOr<std::vector<CounterSample>> CuptiPmSampler::decode() {
  RR_ASSIGN_OR_RETURN(std::vector<cupti::PmSample> decoded, session_->decode());
  try {
    std::vector<CounterSample> samples;
    samples.reserve(decoded.size());
    for (cupti::PmSample& s : decoded) samples.push_back(CounterSample{s.start_ns, s.end_ns, std::move(s.values)});
    return samples;
  } catch (const std::bad_alloc&) {
    return resource_exhausted("no host memory for " + std::to_string(decoded.size()) + " PM samples");
  }
}

namespace {

// The metric list resolved on the chip: what to collect, the set's roles the
// chip lacks, and each metric's unit.
struct ResolvedList {
  std::vector<std::string> metrics;
  std::vector<std::string> missing;
  std::vector<std::string> units;
};

StatusOr<ResolvedList> resolve_on_chip(const std::string& chip, const std::vector<std::string>& typed,
                                       const std::string& metric_set) {
  // The range profiler's catalog names the chip's metrics and their units:
  // the same names as PM sampling's.
  RR_ASSIGN_OR_RETURN(cupti::MetricCatalog catalog, cupti::MetricCatalog::create(chip));
  RR_ASSIGN_OR_RETURN(ResolvedMetrics resolved, resolve_metric_list(typed, metric_set, [&](const std::string& n) {
                        return catalog.contains(n);
                      }));
  RR_RETURN_IF_ERROR(catalog.validate(resolved.metrics));
  ResolvedList list;
  for (const auto& m : resolved.metrics) {
    auto unit = catalog.unit_of(m);
    list.units.push_back(unit.ok() ? *unit : "");
  }
  list.metrics = std::move(resolved.metrics);
  list.missing = std::move(resolved.missing);
  return list;
}

// The units of `kept`, a subsequence of `list.metrics`.
std::vector<std::string> units_of(const ResolvedList& list, const std::vector<std::string>& kept) {
  std::vector<std::string> units;
  std::size_t at = 0;
  for (const auto& name : kept) {
    while (at < list.metrics.size() && list.metrics[at] != name) ++at;
    units.push_back(at < list.metrics.size() ? list.units[at] : "");
  }
  return units;
}

}  // namespace

StatusOr<CounterSetup> set_up_pm_sampling_counters(CounterSetup setup, const std::vector<std::string>& metrics,
                                                   const std::string& metric_set, CounterSessionOptions options,
                                                   const CounterSetupHooks& hooks) {
  const auto stage = [&hooks](const char* s) { hooks.say_stage(s); };
  const auto debug = [&hooks](const std::string& line) { hooks.say_debug(line); };
  const int device = static_cast<int>(setup.device);
  stage("configuring counters: metric list");
  RR_ASSIGN_OR_RETURN(ResolvedList list, resolve_on_chip(setup.chip, metrics, metric_set));
  // Asked for before PM sampling is enabled: CUPTI may refuse it while a
  // session is active on the device.
  stage("configuring counters: PM sampling counter availability");
  RR_ASSIGN_OR_RETURN(std::vector<std::uint8_t> availability, cupti::pm_sampling_counter_availability(device));
  stage("configuring counters: PM sampling config image");
  RR_ASSIGN_OR_RETURN(cupti::PmSamplingSelection selection,
                      cupti::select_pm_sampling_metrics(setup.chip, availability, list.metrics));
  stage("configuring counters: PM sampling enable");
  RR_ASSIGN_OR_RETURN(std::unique_ptr<cupti::PmSamplingSession> session,
                      cupti::PmSamplingSession::enable(device, setup.chip, availability, selection));
  debug("PM sampling enabled on device " + std::to_string(device) + ": " + std::to_string(selection.metrics.size()) +
        " metrics (" + std::to_string(selection.missing.size()) + " refused by PM sampling, " +
        std::to_string(list.missing.size()) + " of the set missing on " + setup.chip + "), a sample every " +
        std::to_string(session->interval()) + (session->time_trigger() ? " ns" : " sys-clock cycles") + ", " +
        std::to_string(session->bytes_per_sample()) + " bytes per sample");
  // One pass per range, counted for the whole range, with no range pushed
  // into a pass left open across ranges.
  options.pass_count = 1;
  options.whole_range_metrics = true;
  options.standing_pass = false;
  std::vector<std::string> units = units_of(list, selection.metrics);
  std::vector<std::string> names = selection.metrics;
  setup.metrics = names;
  setup.backend = std::string(kPmSamplingBackendName);
  setup.missing = std::move(list.missing);
  for (auto& m : selection.missing) setup.missing.push_back(std::move(m));
  const std::size_t metric_count = names.size();
  setup.session = std::make_unique<CounterSession>(
      std::make_unique<PmSamplingCounterBackend>(std::make_unique<CuptiPmSampler>(std::move(session)), metric_count),
      std::move(names), std::move(units), options, hooks.debug);
  return setup;
}

}  // namespace rangereplay::tool
