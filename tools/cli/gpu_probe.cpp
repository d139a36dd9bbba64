// CUDA device presence check through a run-time loaded libcuda (see gpu_probe.h).
#include "cli/gpu_probe.h"

#include <dlfcn.h>

#include <string>

namespace rangereplay::cli {
namespace {

// Driver API signatures (cuda.h); CUresult is an int-sized enum.
using CuInitFn = int (*)(unsigned int);
using CuDeviceGetCountFn = int (*)(int*);
using CuGetErrorNameFn = int (*)(int, const char**);

Status no_device(const std::string& why) {
  return unavailable("no CUDA device found (" + why + "); the profiler needs an NVIDIA GPU");
}

StatusOr<void*> open_libcuda() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) {
    const char* err = ::dlerror();
    return no_device(std::string("cuInit: libcuda.so.1 cannot be loaded: ") + (err ? err : "unknown error"));
  }
  return lib;
}

}  // namespace

Status load_libcuda() { return open_libcuda().status(); }

StatusOr<int> probe_cuda_devices() {
  RR_ASSIGN_OR_RETURN(void* lib, open_libcuda());
  auto cu_init = reinterpret_cast<CuInitFn>(::dlsym(lib, "cuInit"));
  auto cu_count = reinterpret_cast<CuDeviceGetCountFn>(::dlsym(lib, "cuDeviceGetCount"));
  auto cu_error_name = reinterpret_cast<CuGetErrorNameFn>(::dlsym(lib, "cuGetErrorName"));
  if (cu_init == nullptr || cu_count == nullptr) return no_device("cuInit: libcuda.so.1 lacks cuInit");
  auto name_of = [&](int result) {
    const char* name = nullptr;
    if (cu_error_name != nullptr && cu_error_name(result, &name) == 0 && name != nullptr) return std::string(name);
    return "CUresult " + std::to_string(result);
  };
  if (int r = cu_init(0); r != 0) return no_device("cuInit: " + name_of(r));
  int count = 0;
  if (int r = cu_count(&count); r != 0) return no_device("cuDeviceGetCount: " + name_of(r));
  if (count <= 0) return no_device("cuDeviceGetCount: 0 devices");
  return count;
}

}  // namespace rangereplay::cli
