// CUresult -> Status. Every driver call in the tool goes through RR_CU so a
// failure names the call, the driver's error string and file:line:
//
//   RR_CU(cuMemAlloc(&ptr, bytes));            // returns Status on failure
//   Status s = cu_status(cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__);
//
// Thread-safety: stateless.
#pragma once

#include <cuda.h>

#include "core/base/status.h"

namespace rangereplay {

/// Converts a driver result into a Status naming `call` and `file:line`.
/// CUDA_ERROR_OUT_OF_MEMORY becomes kResourceExhausted, CUDA_ERROR_NO_DEVICE
/// kUnavailable, anything else kInternal.
Status cu_status(CUresult result, const char* call, const char* file, int line);

}  // namespace rangereplay

#define RR_CU(call) RR_RETURN_IF_ERROR(::rangereplay::cu_status((call), #call, __FILE__, __LINE__))
