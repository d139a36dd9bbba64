// PLACEHOLDER — DELETE AT MERGE. Stands in for src/cupti/metric_catalog.h,
// which another branch is writing, so that this branch builds on its own.
// It declares the API as announced (cupti::metric_sets, expand_metric_list,
// chip_name_of_device, MetricCatalog::create / list_metrics / validate /
// pass_count) and every call fails with `unimplemented`: nothing here
// pretends to know a metric. At merge: delete this file, include
// "cupti/metric_catalog.h" in metric_queries.cpp, link rangereplay_cupti in
// tools/cli/CMakeLists.txt (marked there), and adjust the few calls in
// metric_queries.cpp if the real signatures differ.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace rangereplay::cupti {

inline Status placeholder_error() {
  return unimplemented(
      "this rangereplay was built without the CUPTI metric catalog (tools/cli/metric_catalog_placeholder.h)");
}

struct MetricSet {
  std::string name;
  std::string description;
  std::vector<std::string> metrics;
};

inline std::vector<MetricSet> metric_sets() { return {}; }

inline StatusOr<std::vector<std::string>> expand_metric_list(const std::string& /*metrics_csv*/,
                                                             const std::string& /*set_name*/) {
  return placeholder_error();
}

inline StatusOr<std::string> chip_name_of_device(int /*device*/) { return placeholder_error(); }

class MetricCatalog {
 public:
  static StatusOr<MetricCatalog> create(const std::string& /*chip*/) { return placeholder_error(); }
  std::vector<std::string> list_metrics() const { return {}; }
  Status validate(const std::vector<std::string>& /*names*/) const { return placeholder_error(); }
  StatusOr<std::uint32_t> pass_count(const std::vector<std::string>& /*names*/) const { return placeholder_error(); }
};

}  // namespace rangereplay::cupti
