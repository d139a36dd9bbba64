// A chip's metric catalog over CUPTI's Profiler Host API (see metric_catalog.h).
//
// Call sequence followed (cupti_profiler_host.h, CUDA 13):
//   cuptiProfilerHostInitialize(chip, availability image) -> host object
//   cuptiProfilerHostGetBaseMetrics(kind) / GetSubMetrics(base) -> names
//   cuptiProfilerHostGetMetricProperties(name) -> description, units
//   config: fresh host object, ConfigAddMetrics, GetConfigImageSize,
//           GetConfigImage, Deinitialize; GetNumOfPasses(image)
//   cuptiProfilerHostEvaluateToGpuValues(counter data, range) -> values
// Whether the host object is safe to share between threads is not documented,
// so every host-API call holds one process-wide mutex (host_api_mutex).
#include "cupti/metric_catalog.h"

#include <cupti.h>
#include <cupti_profiler_host.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <unordered_map>

#include "core/base/ascii.h"
#include "core/base/closest_names.h"
#include "cupti/cupti_params.h"
#include "cupti/cupti_status.h"
#include "cupti/profiler_host_object.h"

namespace rangereplay::cupti {

std::mutex& host_api_mutex() {
  static std::mutex mutex;
  return mutex;
}

namespace {

CUpti_MetricType to_cupti(MetricKind kind) {
  switch (kind) {
    case MetricKind::kCounter: return CUPTI_METRIC_TYPE_COUNTER;
    case MetricKind::kRatio: return CUPTI_METRIC_TYPE_RATIO;
    case MetricKind::kThroughput: return CUPTI_METRIC_TYPE_THROUGHPUT;
  }
  return CUPTI_METRIC_TYPE_COUNTER;
}

MetricKind from_cupti(CUpti_MetricType type) {
  switch (type) {
    case CUPTI_METRIC_TYPE_RATIO: return MetricKind::kRatio;
    case CUPTI_METRIC_TYPE_THROUGHPUT: return MetricKind::kThroughput;
    default: return MetricKind::kCounter;
  }
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : separator) + items[i];
  return out;
}

// A range-profiler host object (cupti/profiler_host_object.h).
class HostObject : public ProfilerHostObject {
 public:
  Status initialize(const std::string& chip_name, const std::vector<uint8_t>& availability) {
    return ProfilerHostObject::initialize(CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip_name, availability);
  }
};

// Needs host_api_mutex() held. Adds `names` to a fresh host object and
// returns the resulting config image, or the raw CUPTI failure of
// ConfigAddMetrics as a Status.
StatusOr<std::vector<uint8_t>> build_config_image_locked(const std::string& chip_name,
                                                         const std::vector<uint8_t>& availability,
                                                         const std::vector<std::string>& names, std::size_t count) {
  HostObject host;
  RR_RETURN_IF_ERROR(host.initialize(chip_name, availability));
  std::vector<const char*> c_names;
  c_names.reserve(count);
  for (std::size_t i = 0; i < count; ++i) c_names.push_back(names[i].c_str());
  return host.config_image(c_names);
}

}  // namespace

const char* metric_kind_name(MetricKind kind) {
  switch (kind) {
    case MetricKind::kCounter: return "counter";
    case MetricKind::kRatio: return "ratio";
    case MetricKind::kThroughput: return "throughput";
  }
  return "unknown";
}

struct MetricCatalog::State {
  std::string chip_name;
  std::vector<uint8_t> availability;
  HostObject host;
  std::vector<std::string> base_metrics;
  // Per base metric: its kind and the index of its suffix list in
  // suffix_lists (CUPTI gives one list per kind today; kept per base so that
  // nothing depends on that).
  struct Base {
    MetricKind kind;
    std::size_t suffix_list;
  };
  std::unordered_map<std::string, Base> bases;
  std::vector<std::vector<std::string>> suffix_lists;
  std::once_flag full_names_once;
  std::vector<std::string> full_names;

  // The base metric `name` starts with, and where its suffix begins, trying
  // each '.' (base names may contain dots, e.g. "LTS.TriageCompute.lts__...").
  const Base* split(const std::string& name, std::size_t* suffix_at) const {
    for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
      auto it = bases.find(name.substr(0, dot));
      if (it != bases.end()) {
        *suffix_at = dot;
        return &it->second;
      }
    }
    return nullptr;
  }
};

MetricCatalog::MetricCatalog(std::unique_ptr<State> state) : state_(std::move(state)) {}
MetricCatalog::MetricCatalog(MetricCatalog&&) noexcept = default;
MetricCatalog& MetricCatalog::operator=(MetricCatalog&&) noexcept = default;
MetricCatalog::~MetricCatalog() {
  if (state_ == nullptr) return;
  std::lock_guard lock(host_api_mutex());
  state_->host.reset();
}

StatusOr<MetricCatalog> MetricCatalog::create(const std::string& chip_name,
                                              const std::vector<uint8_t>& counter_availability_image) {
  // Locked before `state` exists so that a failure path deinitialises the
  // host object under the lock too.
  std::lock_guard lock(host_api_mutex());
  auto state = std::make_unique<State>();
  state->chip_name = chip_name;
  state->availability = counter_availability_image;
  RR_RETURN_IF_ERROR(state->host.initialize(state->chip_name, state->availability));

  for (MetricKind kind : {MetricKind::kCounter, MetricKind::kRatio, MetricKind::kThroughput}) {
    auto params = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
    params.pHostObject = state->host.get();
    params.metricType = to_cupti(kind);
    RR_CUPTI(cuptiProfilerHostGetBaseMetrics(&params));
    for (std::size_t i = 0; i < params.numMetrics; ++i) {
      std::string base = params.ppMetricNames[i];

      auto sub = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params);
      sub.pHostObject = state->host.get();
      sub.metricType = params.metricType;
      sub.pMetricName = base.c_str();
      RR_CUPTI(cuptiProfilerHostGetSubMetrics(&sub));
      std::vector<std::string> suffixes;
      suffixes.reserve(sub.numOfSubmetrics);
      for (std::size_t j = 0; j < sub.numOfSubmetrics; ++j) suffixes.emplace_back(sub.ppSubMetrics[j]);

      auto list = std::find(state->suffix_lists.begin(), state->suffix_lists.end(), suffixes);
      const std::size_t list_index = static_cast<std::size_t>(list - state->suffix_lists.begin());
      if (list == state->suffix_lists.end()) state->suffix_lists.push_back(std::move(suffixes));
      if (state->bases.emplace(base, State::Base{kind, list_index}).second) {
        state->base_metrics.push_back(std::move(base));
      }
    }
  }
  return MetricCatalog(std::move(state));
}

const std::string& MetricCatalog::chip_name() const { return state_->chip_name; }

const std::vector<std::string>& MetricCatalog::base_metrics() const { return state_->base_metrics; }

const std::vector<std::string>& MetricCatalog::list_metrics() const {
  std::call_once(state_->full_names_once, [this] {
    std::size_t total = 0;
    for (const auto& base : state_->base_metrics) {
      total += state_->suffix_lists[state_->bases.at(base).suffix_list].size();
    }
    state_->full_names.reserve(total);
    for (const auto& base : state_->base_metrics) {
      for (const auto& suffix : state_->suffix_lists[state_->bases.at(base).suffix_list]) {
        state_->full_names.push_back(base + suffix);
      }
    }
  });
  return state_->full_names;
}

const std::vector<std::string>& MetricCatalog::suffixes_of(const std::string& base) const {
  static const std::vector<std::string>& k_none = *new const std::vector<std::string>();  // never destroyed
  auto it = state_->bases.find(base);
  return it == state_->bases.end() ? k_none : state_->suffix_lists[it->second.suffix_list];
}

StatusOr<MetricKind> MetricCatalog::kind_of_base(const std::string& base) const {
  auto it = state_->bases.find(base);
  if (it == state_->bases.end()) return not_found("no base metric '" + base + "' on " + state_->chip_name);
  return it->second.kind;
}

bool MetricCatalog::contains(const std::string& name) const {
  for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
    auto it = state_->bases.find(name.substr(0, dot));
    if (it == state_->bases.end()) continue;
    const auto& suffixes = state_->suffix_lists[it->second.suffix_list];
    if (std::find(suffixes.begin(), suffixes.end(), std::string_view(name).substr(dot)) != suffixes.end()) {
      return true;
    }
  }
  return false;
}

Status MetricCatalog::unknown_name_error(const std::string& name) const {
  // Metric names are lower case; "DRAM__BYTES_READ.SUM" is a valid name typed
  // in capitals, not a typo to suggest near.
  const std::string lower = ascii_lower(name);
  if (lower != name && contains(lower)) {
    return invalid_argument("unknown metric '" + name + "' for " + state_->chip_name +
                            "; metric names are lower case: did you mean '" + lower + "'?");
  }
  // A base metric without its suffix: show the usual suffixes of its kind.
  auto base = state_->bases.find(name);
  if (base != state_->bases.end()) {
    std::vector<std::string> examples;
    switch (base->second.kind) {
      case MetricKind::kCounter: examples = {".sum", ".avg", ".max", ".min"}; break;
      case MetricKind::kRatio: examples = {".ratio", ".pct"}; break;
      case MetricKind::kThroughput:
        examples = {".avg.pct_of_peak_sustained_elapsed", ".avg.pct_of_peak_sustained_active"};
        break;
    }
    for (auto& e : examples) e = name + e;
    return invalid_argument("metric '" + name + "' needs a rollup suffix, e.g. " + join(examples, ", "));
  }

  std::string message = "unknown metric '" + name + "' for " + state_->chip_name;
  const std::size_t limit = plausible_typo_distance(name.size());
  // A known base with a wrong suffix: suggest among that base's names.
  std::size_t suffix_at = 0;
  if (const State::Base* known = state_->split(name, &suffix_at)) {
    std::vector<std::string> candidates;
    for (const auto& suffix : state_->suffix_lists[known->suffix_list]) {
      candidates.push_back(name.substr(0, suffix_at) + suffix);
    }
    auto closest = closest_names_ignoring_case(name, candidates, 3, limit);
    if (closest.empty()) closest = closest_names_ignoring_case(name, candidates, 3);
    return invalid_argument(message + "; '" + name.substr(0, suffix_at) + "' has no suffix '" + name.substr(suffix_at) +
                            "'; closest: " + join(closest, ", "));
  }
  const auto& all = list_metrics();
  std::vector<std::string> closest = closest_names_ignoring_case(name, all, 3, limit);
  if (closest.empty()) {
    for (const auto& candidate : all) {
      if (candidate.size() > lower.size() && candidate.compare(0, lower.size(), lower) == 0) {
        closest.push_back(candidate);
        if (closest.size() == 3) break;
      }
    }
  }
  if (closest.empty())
    return invalid_argument(message +
                            "; no similar names (list them with `rangereplay --list-metrics` on a GPU, or "
                            "`rangereplay-metrics-probe --chip GH100 --list-all` without one; in a build folder it is "
                            "tools/metrics-probe/metrics-probe)");
  return invalid_argument(message + "; closest: " + join(closest, ", "));
}

Status MetricCatalog::validate(const std::vector<std::string>& names) const {
  if (names.empty()) return invalid_argument("no metrics requested").with_decline_reason(DeclineReason::kUnknownMetric);
  for (const auto& name : names) {
    if (!contains(name)) return unknown_name_error(name).with_decline_reason(DeclineReason::kUnknownMetric);
  }
  return ok_status();
}

StatusOr<MetricInfo> MetricCatalog::describe(const std::string& name) const {
  if (state_->bases.find(name) == state_->bases.end() && !contains(name)) return unknown_name_error(name);
  std::lock_guard lock(host_api_mutex());
  auto params = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
  params.pHostObject = state_->host.get();
  params.pMetricName = name.c_str();
  RR_CUPTI(cuptiProfilerHostGetMetricProperties(&params));
  MetricInfo info;
  info.name = name;
  info.kind = from_cupti(params.metricType);
  info.description = params.pDescription != nullptr ? params.pDescription : "";
  info.hw_unit = params.pHwUnit != nullptr ? params.pHwUnit : "";
  info.dim_unit = params.pDimUnit != nullptr ? params.pDimUnit : "";
  return info;
}

StatusOr<std::vector<MetricInfo>> MetricCatalog::describe_base_metrics() const {
  std::vector<MetricInfo> out;
  out.reserve(state_->base_metrics.size());
  for (const auto& base : state_->base_metrics) {
    RR_ASSIGN_OR_RETURN(MetricInfo info, describe(base));
    out.push_back(std::move(info));
  }
  return out;
}

StatusOr<std::string> MetricCatalog::unit_of(const std::string& name) const {
  RR_ASSIGN_OR_RETURN(MetricInfo info, describe(name));
  return std::move(info.dim_unit);
}

StatusOr<std::vector<uint8_t>> MetricCatalog::config_image(const std::vector<std::string>& names) const {
  RR_RETURN_IF_ERROR(validate(names));
  std::lock_guard lock(host_api_mutex());
  auto image = build_config_image_locked(state_->chip_name, state_->availability, names, names.size());
  if (image.ok()) return image;
  const StatusCode code = image.status().code();
  if (code == StatusCode::kResourceExhausted || code == StatusCode::kPermissionDenied) return image.status();
  // Name the metric that breaks the configuration: bisect for the shortest
  // failing prefix, assuming a prefix of a schedulable list is schedulable.
  std::size_t good = 0;            // a prefix length known to work (0 trivially)
  std::size_t bad = names.size();  // a prefix length known to fail
  while (bad - good > 1) {
    const std::size_t mid = good + (bad - good) / 2;
    if (build_config_image_locked(state_->chip_name, state_->availability, names, mid).ok()) {
      good = mid;
    } else {
      bad = mid;
    }
  }
  const std::string& culprit = names[bad - 1];
  const std::string why = bad == 1 ? "metric '" + culprit + "' cannot be collected on " + state_->chip_name
                                   : "metric '" + culprit + "' cannot be collected in one configuration with the " +
                                         std::to_string(bad - 1) + " metric(s) listed before it";
  return invalid_argument(why + " (" + image.status().message() + ")")
      .with_decline_reason(DeclineReason::kUnknownMetric);
}

StatusOr<uint32_t> MetricCatalog::pass_count(const std::vector<std::string>& names) const {
  RR_ASSIGN_OR_RETURN(auto image, config_image(names));
  return pass_count_of_config_image(image);
}

StatusOr<std::size_t> MetricCatalog::max_hardware_metrics_per_pass() const {
  std::lock_guard lock(host_api_mutex());
  auto params = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params);
  params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  params.pChipName = state_->chip_name.c_str();
  params.pCounterAvailabilityImage = state_->availability.empty() ? nullptr : state_->availability.data();
  RR_CUPTI(cuptiProfilerHostGetMaxNumHardwareMetricsPerPass(&params));
  return params.maxMetricsPerPass;
}

Status MetricCatalog::evaluate_range(std::span<const uint8_t> counter_data_image, std::size_t range_index,
                                     const std::vector<std::string>& names, double* values) const {
  std::vector<const char*> c_names;
  c_names.reserve(names.size());
  for (const auto& name : names) c_names.push_back(name.c_str());
  std::lock_guard lock(host_api_mutex());
  auto params = RR_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  params.pHostObject = state_->host.get();
  params.pCounterDataImage = counter_data_image.data();
  params.counterDataImageSize = counter_data_image.size();
  params.rangeIndex = range_index;
  params.ppMetricNames = c_names.data();
  params.numMetrics = c_names.size();
  params.pMetricValues = values;
  RR_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&params));
  return ok_status();
}

StatusOr<std::vector<std::string>> supported_chips() {
  std::lock_guard lock(host_api_mutex());
  return HostObject::supported_chips_locked();
}

namespace {

// warm_up_host_api's one run per process. Never destroyed: a run still going
// at the process's exit writes into it.
struct HostApiStart {
  std::atomic<pid_t> runner{0};  // the process that ran or runs it, claimed before the lock
  std::mutex mutex;              // leaf: guards done and result
  std::condition_variable ended;
  bool done = false;
  bool threw = false;           // the run ended in an exception
  Status result = ok_status();  // set before done, never changed after it
};

HostApiStart& host_api_start() {
  static HostApiStart* const start = new HostApiStart;
  return *start;
}

}  // namespace

HostApiWarmUp host_api_warm_up_state() {
  HostApiStart& start = host_api_start();
  if (start.runner.load() != ::getpid()) return HostApiWarmUp::kNotStarted;
  std::lock_guard lock(start.mutex);
  return start.done ? HostApiWarmUp::kEnded : HostApiWarmUp::kRunning;
}

Status warm_up_host_api() {
  HostApiStart* const start = &host_api_start();
  const pid_t self = ::getpid();
  pid_t runner = 0;
  if (start->runner.compare_exchange_strong(runner, self)) {
    Status result = ok_status();
    bool threw = false;
    try {
      // Listing the chips initializes the host API without a host object.
      // kUnavailable is left to the wait's time-out.
      Status listed = supported_chips().status();
      if (!listed.ok()) result = internal_error(listed.message());
    } catch (...) {
      threw = true;
    }
    {
      std::lock_guard lock(start->mutex);
      start->done = true;  // first: the waiters go on whatever throws after it
      start->threw = threw;
      start->result = std::move(result);
    }
    start->ended.notify_all();
    return threw ? internal_error("the host API's initialization threw") : start->result;
  }
  // Started in the parent before a fork: the mutex may be as a parent thread
  // held it, and no thread of this process runs the start.
  if (runner != self) return ok_status();
  std::unique_lock lock(start->mutex);
  if (!start->ended.wait_for(lock, kHostApiStartWait, [&] { return start->done; }))
    return unavailable("CUPTI's profiler host library has been initializing on another thread for more than " +
                       std::to_string(kHostApiStartWait.count() / 1000) + " s");
  return start->threw ? internal_error("the host API's initialization threw") : start->result;
}

StatusOr<uint32_t> pass_count_of_config_image(const std::vector<uint8_t>& config_image) {
  // A metric list that built no configuration.
  if (config_image.empty())
    return invalid_argument("empty config image").with_decline_reason(DeclineReason::kUnknownMetric);
  // GetNumOfPasses takes a non-const pointer but only reads the image.
  std::vector<uint8_t> copy = config_image;
  std::lock_guard lock(host_api_mutex());
  auto params = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  params.configImageSize = copy.size();
  params.pConfigImage = copy.data();
  RR_CUPTI(cuptiProfilerHostGetNumOfPasses(&params));
  return static_cast<uint32_t>(params.numOfPasses);
}

}  // namespace rangereplay::cupti
