// Adapter from the tool's needs to cupti::MetricCatalog (see header).
#include "tool/metric_evaluator.h"

#include <cstdio>

#include "core/base/environment.h"
#include "core/config/metric_sets.h"
#include "cupti/counter_evaluator.h"
#include "cupti/metric_catalog.h"

namespace rangereplay::tool {

struct MetricEvaluator::Impl {
  cupti::MetricCatalog catalog;
};

MetricEvaluator::~MetricEvaluator() = default;

StatusOr<std::unique_ptr<MetricEvaluator>> MetricEvaluator::create(const std::string& chip,
                                                                   const std::vector<std::uint8_t>& availability_image,
                                                                   const std::vector<std::string>& typed,
                                                                   const std::string& metric_set) {
  RR_ASSIGN_OR_RETURN(cupti::MetricCatalog catalog, cupti::MetricCatalog::create(chip, availability_image));
  RR_ASSIGN_OR_RETURN(ResolvedMetrics resolved, resolve_metric_list(typed, metric_set, [&](const std::string& n) {
                        return catalog.contains(n);
                      }));
  std::vector<std::string> metrics = std::move(resolved.metrics);
  RR_RETURN_IF_ERROR(catalog.validate(metrics));
  std::unique_ptr<MetricEvaluator> e(new MetricEvaluator());
  e->missing_ = std::move(resolved.missing);
  RR_ASSIGN_OR_RETURN(e->config_image_, catalog.config_image(metrics));
  RR_ASSIGN_OR_RETURN(e->pass_count_, cupti::pass_count_of_config_image(e->config_image_));
  for (const auto& m : metrics) {
    auto unit = catalog.unit_of(m);
    e->units_.push_back(unit.ok() ? *unit : "");
  }
  e->metrics_ = std::move(metrics);
  e->impl_ = std::make_unique<Impl>(Impl{std::move(catalog)});
  return e;
}

StatusOr<std::vector<std::vector<double>>> MetricEvaluator::evaluate(std::span<const std::uint8_t> counter_data,
                                                                     const std::vector<bool>& wanted) const {
  StatusOr<std::vector<cupti::RangeValues>> evaluated = internal_error("not evaluated");
  bool at_once_broke = false;
  if (!at_once_off_.load(std::memory_order_relaxed)) {
    evaluated = cupti::evaluate_counter_data_at_once(impl_->catalog, counter_data, metrics_, wanted);
    // Bad input fails the same way on either path: returned as it is.
    if (!evaluated.ok() && evaluated.status().code() != StatusCode::kInternal) return evaluated.status();
    at_once_broke = !evaluated.ok();
  }
  if (!evaluated.ok()) {
    const Status at_once_failure = evaluated.status();
    evaluated = cupti::evaluate_counter_data(impl_->catalog, counter_data, metrics_, wanted);
    // Only a failure CUPTI's own path does not share turns the evaluator off
    // for this list: the image, not NVPW, may be what failed.
    if (at_once_broke && evaluated.ok() && !at_once_off_.exchange(true, std::memory_order_relaxed) &&
        environment::debug())
      std::fprintf(stderr, "rangereplay[debug] metric evaluation falls back to CUPTI's host API: %s\n",
                   at_once_failure.message().c_str());
  }
  RR_ASSIGN_OR_RETURN(auto ranges, std::move(evaluated));
  std::vector<std::vector<double>> out;
  out.reserve(ranges.size());
  for (auto& r : ranges) out.push_back(std::move(r.values));
  return out;
}

}  // namespace rangereplay::tool
