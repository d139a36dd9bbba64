// One chip's metric universe, from CUPTI's Profiler Host API
// (cupti_profiler_host.h, CUDA 13): which metric names exist, what they mean,
// their units, the configuration image that schedules a list of them for the
// Range Profiler (cuptiRangeProfilerSetConfig), and how many passes that
// configuration needs.
//
// The host API works from a chip name alone ("GH100" for H100/H200), without
// a GPU or driver, so names are validated and pass counts computed before the
// application starts, and all of this is tested on CPU-only machines
// (tests/cupti_host/). On a device, pass the counter-availability image
// (device_counters.h) so counters the device cannot collect right now are
// excluded from scheduling.
//
//   RR_ASSIGN_OR_RETURN(auto catalog, cupti::MetricCatalog::create("GH100"));
//   RR_RETURN_IF_ERROR(catalog.validate(names));     // unknown -> "closest: ..."
//   RR_ASSIGN_OR_RETURN(auto image, catalog.config_image(names));
//   RR_ASSIGN_OR_RETURN(uint32_t passes, cupti::pass_count_of_config_image(image));
//
// Metric names follow Nsight Compute: a base metric (dram__bytes_read) plus a
// rollup/submetric suffix (.sum, .avg.pct_of_peak_sustained_elapsed, .pct,
// ...). Counter base metrics take 44 suffixes, ratios 3 (.ratio, .pct,
// .max_rate), throughputs 8 (.avg.pct_of_peak_sustained_elapsed, ...); GH100
// has 3650 base metrics, about 150,000 full names.
//
// Thread-safety: a MetricCatalog may be used from several threads; calls that
// touch its CUPTI host object are serialised by an internal mutex. Movable,
// not copyable; the host object is released in the destructor.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"

struct CUpti_Profiler_Host_Object;

namespace rangereplay::cupti {

/// CUpti_MetricType: how a base metric's value is formed.
enum class MetricKind { kCounter, kRatio, kThroughput };

/// "counter", "ratio" or "throughput".
const char* metric_kind_name(MetricKind kind);

/// What cuptiProfilerHostGetMetricProperties says about one metric.
struct MetricInfo {
  std::string name;  // as asked: a base name or a full name
  MetricKind kind = MetricKind::kCounter;
  std::string description;  // e.g. "# of bytes read from DRAM"
  std::string hw_unit;      // the hardware unit counted, e.g. "dram", "sm", "smsp"
  std::string dim_unit;     // the value's dimension, e.g. "byte", "byte/second", "percent",
                            // "nanosecond", "cycle"; "" for unitless ratios
};

class MetricCatalog {
 public:
  /// Initialises a CUPTI host object for `chip_name` (e.g. "GH100"; see
  /// supported_chips()) and reads its base metrics and suffixes (about 300 ms
  /// the first time in a process, a few ms afterwards).
  /// `counter_availability_image`: optional, from
  /// counter_availability_image(CUcontext); empty means "all counters of the
  /// chip".
  /// Errors: kInvalidArgument for an unknown chip name (listing the supported
  /// chips; carries DeclineReason::kUnknownMetric); kInternal for other CUPTI
  /// failures.
  static StatusOr<MetricCatalog> create(const std::string& chip_name,
                                        const std::vector<uint8_t>& counter_availability_image = {});

  MetricCatalog(MetricCatalog&&) noexcept;
  MetricCatalog& operator=(MetricCatalog&&) noexcept;
  MetricCatalog(const MetricCatalog&) = delete;
  MetricCatalog& operator=(const MetricCatalog&) = delete;
  ~MetricCatalog();

  const std::string& chip_name() const;

  /// Base metric names (no suffix), in CUPTI's order: counters, then ratios,
  /// then throughputs.
  const std::vector<std::string>& base_metrics() const;

  /// Every full name: each base metric with each of its suffixes, in
  /// base_metrics() order ("dram__bytes_read.avg", ..., "dram__bytes_read.sum",
  /// ...). Built on first call (about 150,000 names, ~10 MB on GH100), then
  /// cached.
  const std::vector<std::string>& list_metrics() const;

  /// The suffixes `base` accepts (".sum", ".pct", ...), or an empty list if
  /// `base` is not a base metric of this chip.
  const std::vector<std::string>& suffixes_of(const std::string& base) const;

  /// The kind of base metric `base`, or kNotFound.
  StatusOr<MetricKind> kind_of_base(const std::string& base) const;

  /// Whether `name` is a full metric name of this chip (base + suffix). Base
  /// names alone are not collectable and return false.
  bool contains(const std::string& name) const;

  /// ok if every name is a full metric name of this chip. Otherwise
  /// kInvalidArgument for the first bad name, e.g.
  ///   "unknown metric 'dram__byte_read.sum' for GH100; closest: dram__bytes_read.sum, ..."
  ///   "metric 'dram__bytes_read' needs a rollup suffix, e.g. dram__bytes_read.sum, ..."
  /// An empty list is kInvalidArgument ("no metrics requested"). Every error
  /// carries DeclineReason::kUnknownMetric.
  Status validate(const std::vector<std::string>& names) const;

  /// Description, hardware unit and dimension of a base or full name.
  /// Errors: kInvalidArgument for an unknown name (with suggestions).
  StatusOr<MetricInfo> describe(const std::string& name) const;

  /// describe() of every base metric, in base_metrics() order: what
  /// `--list-metrics` prints, like `ncu --query-metrics` (name, kind, unit,
  /// description). About 10 ms for GH100's 3650 base metrics.
  StatusOr<std::vector<MetricInfo>> describe_base_metrics() const;

  /// The dimension of a full or base metric's value ("byte", "nanosecond",
  /// "percent", "byte/second", "" for ratios), as the host API reports it.
  StatusOr<std::string> unit_of(const std::string& name) const;

  /// The configuration image for cuptiRangeProfilerSetConfig that schedules
  /// `names` (validated first). Built on a fresh host object, so calls do not
  /// accumulate metrics. Errors: kInvalidArgument for unknown names or for a
  /// combination CUPTI cannot schedule together, naming the first metric that
  /// breaks it (found by bisection over prefixes of `names`), each carrying
  /// DeclineReason::kUnknownMetric.
  StatusOr<std::vector<uint8_t>> config_image(const std::vector<std::string>& names) const;

  /// Passes needed to collect `names` (config_image + its pass count).
  StatusOr<uint32_t> pass_count(const std::vector<std::string>& names) const;

  /// Theoretical upper bound of hardware metrics in one pass for this chip
  /// (cuptiProfilerHostGetMaxNumHardwareMetricsPerPass).
  StatusOr<std::size_t> max_hardware_metrics_per_pass() const;

  /// Evaluates `names` (already validated) for range `range_index` of a
  /// decoded counter data image into `values` (names.size() doubles).
  /// Used by evaluate_counter_data (counter_evaluator.h).
  Status evaluate_range(std::span<const uint8_t> counter_data_image, std::size_t range_index,
                        const std::vector<std::string>& names, double* values) const;

 private:
  struct State;
  explicit MetricCatalog(std::unique_ptr<State> state);
  Status unknown_name_error(const std::string& name) const;
  std::unique_ptr<State> state_;
};

/// The chip names the host API accepts ("GV100", ..., "GH100", ..., "GB202").
StatusOr<std::vector<std::string>> supported_chips();

/// Runs the host API's one-time initialization, which every later host
/// object reuses whatever its chip (its metric tables: on the 2-core CPU
/// build machine about 0.3 s the first time in a process; a first GH100
/// catalog and config image of the full set then take 0.11-0.16 s instead
/// of 0.42 s). Host-only: no GPU, driver or context. Holds the host API's
/// mutex while it runs, so a catalog created meanwhile waits for it.
///
/// Runs once per process. A call while another thread of the process runs
/// it waits for that run to end (at most kHostApiStartWait) and returns its
/// result; later calls return that result at once. A forked child whose
/// parent started it returns at once and takes no lock. The counter set-up
/// calls it before its first device-side CUPTI call: cuptiProfilerInitialize
/// failed with CUPTI_ERROR_UNKNOWN while another thread was inside this
/// initialization (H100, driver 580.159.04), and succeeds after it.
/// Errors: kUnavailable when another thread's run has gone on past the wait
/// (the host API is still initializing: no device-side profiler call may
/// come yet); kInternal for a failure of the host API itself (or an
/// exception), which leaves the next catalog to initialize it. Thread-safe.
Status warm_up_host_api();

/// How long warm_up_host_api() waits for another thread's run.
inline constexpr std::chrono::milliseconds kHostApiStartWait{10000};

/// Where this process's warm_up_host_api() run stands. Thread-safe.
enum class HostApiWarmUp { kNotStarted, kRunning, kEnded };
HostApiWarmUp host_api_warm_up_state();

/// The process-wide mutex that every call of CUPTI's profiler host API holds
/// (this file's and pm_sampling_session.h's): whether a host object may be
/// used from several threads is not documented. A leaf lock: no device-side
/// CUPTI call and no other lock of the project is taken while it is held.
std::mutex& host_api_mutex();

/// Passes a configuration image needs (cuptiProfilerHostGetNumOfPasses).
/// Errors: kInvalidArgument for an empty image (carries DeclineReason::kUnknownMetric).
StatusOr<uint32_t> pass_count_of_config_image(const std::vector<uint8_t>& config_image);

}  // namespace rangereplay::cupti
