// What the launcher asks about metrics, behind one small interface:
// named sets, expansion of --metrics/--set, metric names of a chip, their
// validation and pass count, and where libcupti was loaded from.
//
// The real implementation (metric_queries.cpp) is the only launcher code that
// calls the CUPTI metric catalog (src/cupti/metric_catalog.h). It is built as
// a separate module, librangereplay_cli_metrics.so, that the launcher loads
// at run time: it links CUPTI and the CUDA driver, and the launcher itself
// must start (for --help, option errors and the "no CUDA device" message) on
// machines without a driver. A host-only build of the same source,
// librangereplay_cli_metrics_host.so, needs no libcuda (its chip_name fails):
// with it the launcher checks names against kOfflineChip when no GPU is found.
// Unit tests substitute a fake.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/config/metric_sets.h"

namespace rangereplay::cli {

struct MetricSetInfo {
  std::string name;                   // e.g. "basic", "full"
  std::string description;            // one line
  std::vector<std::string> metrics;   // roles, in their GH100 spelling
  std::vector<std::string> sections;  // section names (core/config/metric_sets.h)
};

/// Not thread-safe: the launcher calls it from its main thread only.
class MetricQueries {
 public:
  virtual ~MetricQueries() = default;

  /// The named metric sets (no GPU needed).
  virtual std::vector<MetricSetInfo> metric_sets() = 0;
  /// `metrics_csv` (comma separated, may be empty) plus the metrics of set
  /// `set_name` (may be empty), expanded. No GPU needed. Errors:
  /// invalid_argument for an unknown set or a malformed list.
  virtual StatusOr<std::vector<std::string>> expand(const std::string& metrics_csv, const std::string& set_name) = 0;
  /// `metrics_csv` (as typed) plus the roles of set `set_name` (may be
  /// empty) resolved on `chip`: the names to collect there and the set's
  /// roles the chip lacks. Needs the chip name only. Errors: invalid_argument
  /// for an unknown set or chip.
  virtual StatusOr<ResolvedMetrics> resolve(const std::string& chip, const std::string& metrics_csv,
                                            const std::string& set_name) = 0;
  /// Chip name of CUDA device `device` ("GH100"). Needs a GPU.
  virtual StatusOr<std::string> chip_name(int device) = 0;
  /// ok when CUDA device `device` can be profiled (core/config/gpu_support.h:
  /// compute capability 8.0 or later, a chip CUPTI's host API knows);
  /// otherwise failed_precondition with one line. Needs a GPU.
  virtual Status check_supported(int device) = 0;
  /// Every metric name the chip supports. Needs the chip name only.
  virtual StatusOr<std::vector<std::string>> list_metrics(const std::string& chip) = 0;
  /// ok when every name is valid on `chip`; otherwise invalid_argument naming
  /// the first unknown name and the closest valid names.
  virtual Status validate(const std::string& chip, const std::vector<std::string>& names) = 0;
  /// Hardware-counter passes the names need on `chip`.
  virtual StatusOr<std::uint32_t> pass_count(const std::string& chip, const std::vector<std::string>& names) = 0;
  /// Canonical path of the libcupti this module loaded, "" when unknown.
  virtual std::string cupti_library_path() = 0;
};

/// The chip names are checked against when no GPU is found (the chip whose
/// names name the sets' roles, see src/core/config/metric_sets.h).
inline constexpr const char* kOfflineChip = "GH100";

/// ABI between the launcher and its metric-query module; bump on any change
/// to MetricQueries.
inline constexpr int kMetricQueriesAbi = 2;
/// The module's one exported symbol:
///   extern "C" MetricQueries* rangereplay_cli_create_metric_queries(int abi);
/// returns nullptr when `abi` differs from the module's kMetricQueriesAbi.
inline constexpr const char* kMetricQueriesFactory = "rangereplay_cli_create_metric_queries";

/// Loads the module at `module_path` and creates its MetricQueries. The module
/// stays loaded for the life of the process. Errors: failed_precondition with
/// dlopen's message (e.g. libcuda.so.1 missing), or an ABI mismatch.
StatusOr<std::unique_ptr<MetricQueries>> load_metric_queries(const std::string& module_path);

}  // namespace rangereplay::cli
