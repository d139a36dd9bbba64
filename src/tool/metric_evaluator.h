// MetricEvaluator: one metric list's host-side state for a chip: the config
// image the Range Profiler is set up with, the number of passes it needs,
// units, and evaluation of a decoded counter data image into values.
// A thin adapter over cupti::MetricCatalog (src/cupti/metric_catalog.h).
// Thread-safety: const methods may be called concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace rangereplay::tool {

class MetricEvaluator {
 public:
  /// The list for `metrics` (names as typed) plus the roles of set
  /// `metric_set` ("" for none) resolved on `chip` (core/config/metric_sets.h
  /// resolve_metric_list): metrics() is what is collected, missing() the
  /// set's roles the chip has under no name.
  /// Errors: unknown metric or set (kInvalidArgument, with the closest
  /// names), the host library failing for this chip (kUnavailable).
  static StatusOr<std::unique_ptr<MetricEvaluator>> create(const std::string& chip,
                                                           const std::vector<std::uint8_t>& availability_image,
                                                           const std::vector<std::string>& metrics,
                                                           const std::string& metric_set);
  ~MetricEvaluator();
  const std::vector<std::uint8_t>& config_image() const { return config_image_; }
  std::uint32_t pass_count() const { return pass_count_; }
  const std::vector<std::string>& metrics() const { return metrics_; }
  const std::vector<std::string>& units() const { return units_; }
  const std::vector<std::string>& missing() const { return missing_; }
  /// Values per counter range (outer, in collection order) and metric (inner,
  /// in metrics() order): by NVIDIA's metrics evaluator over the whole image
  /// (cupti::evaluate_counter_data_at_once). Where that fails inside NVPW or
  /// CUPTI (kInternal), range by range through CUPTI's host API
  /// (cupti::evaluate_counter_data); when that then succeeds, this evaluator
  /// uses CUPTI's path from then on. Errors: the first path's when it is not
  /// kInternal (bad input), else the second path's. `wanted`: a counter range
  /// whose entry is false is not evaluated, its row left zeros; ranges past
  /// its end (all of them when it is empty) are evaluated.
  StatusOr<std::vector<std::vector<double>>> evaluate(std::span<const std::uint8_t> counter_data,
                                                      const std::vector<bool>& wanted = {}) const;

 private:
  MetricEvaluator() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::uint8_t> config_image_;
  std::uint32_t pass_count_ = 0;
  std::vector<std::string> metrics_;
  std::vector<std::string> units_;
  std::vector<std::string> missing_;
  mutable std::atomic<bool> at_once_off_{false};  // NVPW failed where CUPTI did not
};

}  // namespace rangereplay::tool
