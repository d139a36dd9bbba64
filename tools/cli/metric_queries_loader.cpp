// Loading of the metric-query module (see metric_queries.h).
#include <dlfcn.h>

#include "cli/metric_queries.h"

namespace rangereplay::cli {

StatusOr<std::unique_ptr<MetricQueries>> load_metric_queries(const std::string& module_path) {
  void* module = ::dlopen(module_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (module == nullptr) {
    const char* err = ::dlerror();
    return failed_precondition("cannot load " + module_path + ": " + (err ? err : "unknown error"));
  }
  using Factory = MetricQueries* (*)(int);
  auto factory = reinterpret_cast<Factory>(::dlsym(module, kMetricQueriesFactory));
  if (factory == nullptr) {
    return failed_precondition(module_path + " has no " + kMetricQueriesFactory + "; rebuild rangereplay");
  }
  MetricQueries* queries = factory(kMetricQueriesAbi);
  if (queries == nullptr) {
    return failed_precondition(module_path + " was built for another rangereplay version; rebuild rangereplay");
  }
  return std::unique_ptr<MetricQueries>(queries);
}

}  // namespace rangereplay::cli
