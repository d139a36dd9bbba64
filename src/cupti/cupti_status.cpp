// CUptiResult -> Status (see cupti_status.h).
#include "cupti/cupti_status.h"

#include <string>

namespace rangereplay {

Status cupti_status(CUptiResult result, const char* call, const char* file, int line) {
  if (result == CUPTI_SUCCESS) return ok_status();
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
  std::string where = std::string(call) + " failed: " + text + " at " + file + ":" + std::to_string(line);
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return permission_denied(
                 "GPU performance counters are restricted to admin users by the driver; run as root or set "
                 "NVreg_RestrictProfilingToAdminUsers=0 (" +
                 where + ")")
          .with_decline_reason(DeclineReason::kCountersNotPermitted);
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_HARDWARE_BUSY: return unavailable(std::move(where));
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return invalid_argument(std::move(where)).with_decline_reason(DeclineReason::kUnknownMetric);
    case CUPTI_ERROR_OUT_OF_MEMORY: return resource_exhausted(std::move(where));
    default: return internal_error(std::move(where));
  }
}

}  // namespace rangereplay
