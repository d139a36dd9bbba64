// Chip name and counter availability of a real device (see device_counters.h).
#include "cupti/device_counters.h"

#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "cuda/cu_status.h"
#include "cupti/cupti_params.h"
#include "cupti/cupti_status.h"

namespace rangereplay::cupti {

StatusOr<std::string> chip_name_of_device(int device_ordinal) {
  const CUresult init = cuInit(0);
  if (init != CUDA_SUCCESS) {
    return unavailable("no usable CUDA driver: " + cu_status(init, "cuInit(0)", __FILE__, __LINE__).message());
  }
  int count = 0;
  RR_CU(cuDeviceGetCount(&count));
  if (count == 0) return unavailable("no CUDA device");
  if (device_ordinal < 0 || device_ordinal >= count) {
    return out_of_range("device " + std::to_string(device_ordinal) + " does not exist; " + std::to_string(count) +
                        " device(s) visible");
  }
  auto init_params = RR_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  RR_CUPTI(cuptiProfilerInitialize(&init_params));
  auto params = RR_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  params.deviceIndex = static_cast<std::size_t>(device_ordinal);
  RR_CUPTI(cuptiDeviceGetChipName(&params));
  if (params.pChipName == nullptr) return internal_error("cuptiDeviceGetChipName returned no name");
  return std::string(params.pChipName);
}

StatusOr<std::vector<uint8_t>> counter_availability_image(CUcontext ctx) {
  auto params = RR_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  params.ctx = ctx;
  RR_CUPTI(cuptiProfilerGetCounterAvailability(&params));
  std::vector<uint8_t> image(params.counterAvailabilityImageSize);
  params.pCounterAvailabilityImage = image.data();
  RR_CUPTI(cuptiProfilerGetCounterAvailability(&params));
  image.resize(params.counterAvailabilityImageSize);
  return image;
}

}  // namespace rangereplay::cupti
