// cudaError_t -> Status for the kernels' launches (the CUDA runtime's errors,
// as cu_status.h converts the driver's).
//
//   copy_kernel<<<grid, threads, 0, stream>>>(args);
//   return runtime_status(cudaGetLastError(), "copy_kernel launch");
//
// Thread-safety: stateless.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/base/status.h"

namespace rangereplay::kernels {

/// ok for cudaSuccess; otherwise kInternal: "<call> failed: <error name> (<error string>)".
inline Status runtime_status(cudaError_t error, const char* call) {
  if (error == cudaSuccess) return ok_status();
  return internal_error(std::string(call) + " failed: " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) +
                        ")");
}

}  // namespace rangereplay::kernels
