// CUresult -> Status (see cu_status.h).
#include "cuda/cu_status.h"

#include <string>

namespace rangereplay {

Status cu_status(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS) return ok_status();
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS) name = "CUDA_ERROR_UNKNOWN";
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS) text = "unknown error";
  std::string message =
      std::string(call) + " failed: " + name + " (" + text + ") at " + file + ":" + std::to_string(line);
  switch (result) {
    case CUDA_ERROR_OUT_OF_MEMORY: return resource_exhausted(std::move(message));
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED: return unavailable(std::move(message));
    default: return internal_error(std::move(message));
  }
}

}  // namespace rangereplay
