// CUptiResult -> Status. Every CUPTI call goes through RR_CUPTI so a failure
// names the call, CUPTI's error string and file:line.
// CUPTI_ERROR_INSUFFICIENT_PRIVILEGES becomes kPermissionDenied with the fix
// (the driver's profiling restriction, NVreg_RestrictProfilingToAdminUsers),
// carrying DeclineReason::kCountersNotPermitted; CUPTI_ERROR_INVALID_METRIC_NAME
// becomes kInvalidArgument carrying kUnknownMetric.
// Thread-safety: stateless.
#pragma once

#include <cupti.h>

#include "core/base/status.h"

namespace rangereplay {

Status cupti_status(CUptiResult result, const char* call, const char* file, int line);

}  // namespace rangereplay

#define RR_CUPTI(call) RR_RETURN_IF_ERROR(::rangereplay::cupti_status((call), #call, __FILE__, __LINE__))
