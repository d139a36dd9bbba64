// Counter data image -> metric values per range (see counter_evaluator.h).
#include "cupti/counter_evaluator.h"

#include <cupti_range_profiler.h>

#include "cupti/cupti_params.h"
#include "cupti/cupti_status.h"

namespace rangereplay::cupti {

StatusOr<std::size_t> counter_data_range_count(const std::vector<uint8_t>& counter_data_image) {
  if (counter_data_image.empty()) return invalid_argument("empty counter data image");
  auto params = RR_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  params.pCounterDataImage = counter_data_image.data();
  params.counterDataImageSize = counter_data_image.size();
  RR_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&params));
  return params.numTotalRanges;
}

StatusOr<std::string> counter_data_range_name(const std::vector<uint8_t>& counter_data_image, std::size_t range_index) {
  RR_ASSIGN_OR_RETURN(std::size_t ranges, counter_data_range_count(counter_data_image));
  if (range_index >= ranges) {
    return out_of_range("range " + std::to_string(range_index) + " of a counter data image holding " +
                        std::to_string(ranges) + " range(s)");
  }
  auto params = RR_CUPTI_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
  params.pCounterDataImage = counter_data_image.data();
  params.counterDataImageSize = counter_data_image.size();
  params.rangeIndex = range_index;
  params.rangeDelimiter = "/";
  RR_CUPTI(cuptiRangeProfilerCounterDataGetRangeInfo(&params));
  return std::string(params.rangeName != nullptr ? params.rangeName : "");
}

StatusOr<std::vector<RangeValues>> evaluate_counter_data(const MetricCatalog& catalog,
                                                         const std::vector<uint8_t>& counter_data_image,
                                                         const std::vector<std::string>& names) {
  if (counter_data_image.empty()) return invalid_argument("empty counter data image");
  RR_RETURN_IF_ERROR(catalog.validate(names));
  RR_ASSIGN_OR_RETURN(std::size_t ranges, counter_data_range_count(counter_data_image));
  std::vector<RangeValues> out(ranges);
  for (std::size_t i = 0; i < ranges; ++i) {
    RR_ASSIGN_OR_RETURN(out[i].range_name, counter_data_range_name(counter_data_image, i));
    out[i].values.assign(names.size(), 0.0);
    RR_RETURN_IF_ERROR(catalog.evaluate_range(counter_data_image, i, names, out[i].values.data()));
  }
  return out;
}

}  // namespace rangereplay::cupti
