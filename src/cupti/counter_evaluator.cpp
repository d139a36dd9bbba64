// Counter data image -> metric values per range (see counter_evaluator.h).
#include "cupti/counter_evaluator.h"

#include <cupti_range_profiler.h>
#include <nvperf_cuda_host.h>
#include <nvperf_host.h>

#include <mutex>

#include "cupti/cupti_params.h"
#include "cupti/cupti_status.h"

namespace rangereplay::cupti {

StatusOr<std::size_t> counter_data_range_count(std::span<const uint8_t> counter_data_image) {
  if (counter_data_image.empty()) return invalid_argument("empty counter data image");
  auto params = RR_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  params.pCounterDataImage = counter_data_image.data();
  params.counterDataImageSize = counter_data_image.size();
  RR_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&params));
  return params.numTotalRanges;
}

StatusOr<std::string> counter_data_range_name(std::span<const uint8_t> counter_data_image, std::size_t range_index) {
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

namespace {

// Both evaluations' start: the image and names checked, then one RangeValues
// per range of the image, named, its values zeroed (one per name).
StatusOr<std::vector<RangeValues>> named_ranges(const MetricCatalog& catalog,
                                                std::span<const uint8_t> counter_data_image,
                                                const std::vector<std::string>& names) {
  if (counter_data_image.empty()) return invalid_argument("empty counter data image");
  RR_RETURN_IF_ERROR(catalog.validate(names));
  RR_ASSIGN_OR_RETURN(std::size_t ranges, counter_data_range_count(counter_data_image));
  std::vector<RangeValues> out(ranges);
  for (std::size_t i = 0; i < ranges; ++i) {
    RR_ASSIGN_OR_RETURN(out[i].range_name, counter_data_range_name(counter_data_image, i));
    out[i].values.assign(names.size(), 0.0);
  }
  return out;
}

}  // namespace

StatusOr<std::vector<RangeValues>> evaluate_counter_data(const MetricCatalog& catalog,
                                                         std::span<const uint8_t> counter_data_image,
                                                         const std::vector<std::string>& names,
                                                         const std::vector<bool>& wanted) {
  RR_ASSIGN_OR_RETURN(std::vector<RangeValues> out, named_ranges(catalog, counter_data_image, names));
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i < wanted.size() && !wanted[i]) continue;
    RR_RETURN_IF_ERROR(catalog.evaluate_range(counter_data_image, i, names, out[i].values.data()));
  }
  return out;
}

namespace {

Status nvpw_status(NVPA_Status status, const char* call) {
  if (status == NVPA_STATUS_SUCCESS) return ok_status();
  const char* name = nullptr;
  const char* comment = nullptr;
  NVPW_NVPAStatusToString(status, &name, &comment);
  return internal_error(std::string(call) + " failed: " + (name != nullptr ? name : "unknown status") +
                        (comment != nullptr && *comment != '\0' ? std::string(" (") + comment + ")" : ""));
}

#define RR_NVPW(call) RR_RETURN_IF_ERROR(nvpw_status(call, #call))

// NVPW's host library, loaded once per process (NVPW_InitializeHost). The
// kept result is a plain enum: a batch flushed by an exit handler may call
// this after the process's static destructors ran.
Status initialize_nvpw_host() {
  static const NVPA_Status loaded = [] {
    NVPW_InitializeHost_Params p{NVPW_InitializeHost_Params_STRUCT_SIZE, nullptr};
    return NVPW_InitializeHost(&p);
  }();
  return nvpw_status(loaded, "NVPW_InitializeHost");
}

// A metrics evaluator over one counter data image, with its scratch buffer;
// destroyed with it.
class ImageEvaluator {
 public:
  ImageEvaluator() = default;
  ImageEvaluator(const ImageEvaluator&) = delete;
  ImageEvaluator& operator=(const ImageEvaluator&) = delete;
  ~ImageEvaluator() {
    if (evaluator_ == nullptr) return;
    NVPW_MetricsEvaluator_Destroy_Params p{NVPW_MetricsEvaluator_Destroy_Params_STRUCT_SIZE, nullptr, evaluator_};
    NVPW_MetricsEvaluator_Destroy(&p);
  }

  Status initialize(const std::string& chip, std::span<const uint8_t> image) {
    NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params size{
        NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params_STRUCT_SIZE};
    size.pChipName = chip.c_str();
    RR_NVPW(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&size));
    scratch_.assign(size.scratchBufferSize, 0);
    NVPW_CUDA_MetricsEvaluator_Initialize_Params init{NVPW_CUDA_MetricsEvaluator_Initialize_Params_STRUCT_SIZE};
    init.pScratchBuffer = scratch_.data();
    init.scratchBufferSize = scratch_.size();
    init.pCounterDataImage = image.data();
    init.counterDataImageSize = image.size();
    RR_NVPW(NVPW_CUDA_MetricsEvaluator_Initialize(&init));
    evaluator_ = init.pMetricsEvaluator;
    NVPW_MetricsEvaluator_SetDeviceAttributes_Params attributes{
        NVPW_MetricsEvaluator_SetDeviceAttributes_Params_STRUCT_SIZE};
    attributes.pMetricsEvaluator = evaluator_;
    attributes.pCounterDataImage = image.data();
    attributes.counterDataImageSize = image.size();
    RR_NVPW(NVPW_MetricsEvaluator_SetDeviceAttributes(&attributes));
    return ok_status();
  }

  StatusOr<NVPW_MetricEvalRequest> request(const std::string& name) const {
    NVPW_MetricEvalRequest request{};
    NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params p{
        NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params_STRUCT_SIZE};
    p.pMetricsEvaluator = evaluator_;
    p.pMetricName = name.c_str();
    p.pMetricEvalRequest = &request;
    p.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
    if (Status s = nvpw_status(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(&p),
                               "NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest");
        !s.ok())
      return internal_error(s.message() + " for metric '" + name + "'");
    return request;
  }

  Status evaluate(const std::vector<NVPW_MetricEvalRequest>& requests, std::span<const uint8_t> image,
                  std::size_t range, bool isolated, double* values) const {
    NVPW_MetricsEvaluator_EvaluateToGpuValues_Params p{NVPW_MetricsEvaluator_EvaluateToGpuValues_Params_STRUCT_SIZE};
    p.pMetricsEvaluator = evaluator_;
    p.pMetricEvalRequests = requests.data();
    p.numMetricEvalRequests = requests.size();
    p.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
    p.metricEvalRequestStrideSize = sizeof(NVPW_MetricEvalRequest);
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    p.rangeIndex = range;
    p.isolated = isolated ? 1 : 0;
    p.pMetricValues = values;
    RR_NVPW(NVPW_MetricsEvaluator_EvaluateToGpuValues(&p));
    return ok_status();
  }

 private:
  std::vector<uint8_t> scratch_;
  NVPW_MetricsEvaluator* evaluator_ = nullptr;
};

}  // namespace

StatusOr<std::vector<RangeValues>> evaluate_counter_data_at_once(const MetricCatalog& catalog,
                                                                 std::span<const uint8_t> counter_data_image,
                                                                 const std::vector<std::string>& names,
                                                                 const std::vector<bool>& wanted, bool isolated) {
  RR_ASSIGN_OR_RETURN(std::vector<RangeValues> out, named_ranges(catalog, counter_data_image, names));
  // Held while the evaluator is made, used and destroyed (it is declared
  // after the lock), but let go between ranges, so that another thread's
  // host-API call waits for one range at most.
  std::unique_lock lock(host_api_mutex());
  RR_RETURN_IF_ERROR(initialize_nvpw_host());
  ImageEvaluator evaluator;
  RR_RETURN_IF_ERROR(evaluator.initialize(catalog.chip_name(), counter_data_image));
  std::vector<NVPW_MetricEvalRequest> requests;
  requests.reserve(names.size());
  for (const std::string& name : names) {
    RR_ASSIGN_OR_RETURN(NVPW_MetricEvalRequest request, evaluator.request(name));
    requests.push_back(request);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i < wanted.size() && !wanted[i]) continue;
    RR_RETURN_IF_ERROR(evaluator.evaluate(requests, counter_data_image, i, isolated, out[i].values.data()));
    lock.unlock();
    lock.lock();
  }
  return out;
}

#undef RR_NVPW

}  // namespace rangereplay::cupti
