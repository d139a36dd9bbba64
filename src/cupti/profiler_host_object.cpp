// ProfilerHostObject (see profiler_host_object.h).
#include "cupti/profiler_host_object.h"

#include "core/base/decline.h"
#include "cupti/cupti_params.h"
#include "cupti/cupti_status.h"

namespace rangereplay::cupti {

Status ProfilerHostObject::initialize(CUpti_ProfilerType type, const std::string& chip_name,
                                      const std::vector<std::uint8_t>& availability) {
  reset();
  auto params = RR_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  params.profilerType = type;
  params.pChipName = chip_name.c_str();
  params.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  const CUptiResult result = cuptiProfilerHostInitialize(&params);
  if (result == CUPTI_ERROR_INVALID_CHIP_NAME) {
    std::string chips;
    if (StatusOr<std::vector<std::string>> supported = supported_chips_locked(); supported.ok()) {
      for (std::size_t i = 0; i < supported->size(); ++i)
        chips += (i == 0 ? "; supported chips: " : ", ") + (*supported)[i];
    }
    // None of the metric list can be looked up on this chip: an unknown
    // metric for the range that asked for it.
    return invalid_argument("CUPTI's profiler host API does not know chip '" + chip_name + "'" + chips)
        .with_decline_reason(DeclineReason::kUnknownMetric);
  }
  RR_CUPTI(result);
  object_ = params.pHostObject;
  return ok_status();
}

StatusOr<std::vector<std::uint8_t>> ProfilerHostObject::config_image(const std::vector<const char*>& metric_names) {
  std::vector<const char*> names = metric_names;  // the host API takes a non-const array
  auto add = RR_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = object_;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  RR_CUPTI(cuptiProfilerHostConfigAddMetrics(&add));
  auto size = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = object_;
  RR_CUPTI(cuptiProfilerHostGetConfigImageSize(&size));
  std::vector<std::uint8_t> image(size.configImageSize);
  auto get = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  get.pHostObject = object_;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  RR_CUPTI(cuptiProfilerHostGetConfigImage(&get));
  return image;
}

void ProfilerHostObject::reset() {
  if (object_ == nullptr) return;
  auto params = RR_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
  params.pHostObject = object_;
  cupti_status(cuptiProfilerHostDeinitialize(&params), "cuptiProfilerHostDeinitialize", __FILE__, __LINE__)
      .ignore();  // nothing useful to do when it fails
  object_ = nullptr;
}

StatusOr<std::vector<std::string>> ProfilerHostObject::supported_chips_locked() {
  auto params = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params);
  RR_CUPTI(cuptiProfilerHostGetSupportedChips(&params));
  std::vector<std::string> chips;
  for (std::size_t i = 0; i < params.numChips; ++i) chips.emplace_back(params.ppChipNames[i]);
  return chips;
}

}  // namespace rangereplay::cupti
