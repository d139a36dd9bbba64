// CUDA device presence check through a run-time loaded libcuda (see gpu_probe.h).
#include "cli/gpu_probe.h"

#include <dlfcn.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace rangereplay::cli {
namespace {

// Driver API signatures (cuda.h); CUresult is an int-sized enum.
using CuInitFn = int (*)(unsigned int);
using CuDeviceGetCountFn = int (*)(int*);
using CuGetErrorNameFn = int (*)(int, const char**);
using CuDriverGetVersionFn = int (*)(int*);

// CUDA_ERROR_STUB_LIBRARY (cuda.h): every call of the toolkit's stub
// libcuda.so (lib64/stubs, for linking only) returns it.
constexpr int kStubLibrary = 34;

Status no_device(const std::string& why) {
  return unavailable("no CUDA device found (" + why + "); the profiler needs an NVIDIA GPU");
}

// The file the loaded libcuda.so.1 came from, or "" when unknown.
std::string library_path(void* symbol) {
  Dl_info info{};
  if (symbol == nullptr || ::dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "";
  std::string path = info.dli_fname;
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(path, ec);
  if (!ec && real.string() != path) path += " -> " + real.string();  // a link to the stub
  return path;
}

StatusOr<void*> open_libcuda() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) {
    const char* err = ::dlerror();
    return unavailable(std::string("the NVIDIA driver's libcuda.so.1 cannot be loaded (") +
                       (err ? err : "unknown error") +
                       "); the profiler needs an NVIDIA GPU and its driver: install the driver, or add the folder "
                       "holding libcuda.so.1 to LD_LIBRARY_PATH");
  }
  // The toolkit's stub loads like the driver but answers nothing: tell it
  // apart before the application starts (cuDriverGetVersion needs no cuInit).
  auto version = reinterpret_cast<CuDriverGetVersionFn>(::dlsym(lib, "cuDriverGetVersion"));
  int v = 0;
  if (version != nullptr && version(&v) == kStubLibrary) {
    const std::string path = library_path(reinterpret_cast<void*>(version));
    return unavailable("libcuda.so.1" + (path.empty() ? std::string() : " (" + path + ")") +
                       " is the CUDA toolkit's stub library, not the NVIDIA driver; remove the stubs folder from "
                       "LD_LIBRARY_PATH (the profiler needs an NVIDIA GPU and its driver)");
  }
  return lib;
}

}  // namespace

Status load_libcuda() { return open_libcuda().status(); }

std::string driver_version_text() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return "no driver (libcuda.so.1 cannot be loaded)";
  auto version = reinterpret_cast<CuDriverGetVersionFn>(::dlsym(lib, "cuDriverGetVersion"));
  if (version == nullptr) return "no driver (libcuda.so.1 lacks cuDriverGetVersion)";
  int v = 0;
  const int result = version(&v);
  if (result == kStubLibrary) return "no driver (libcuda.so.1 is the CUDA toolkit's stub library)";
  if (result != 0) return "no driver (cuDriverGetVersion: CUresult " + std::to_string(result) + ")";
  // cuDriverGetVersion: 1000 * major + 10 * minor (13000 is CUDA 13.0).
  std::string text = "CUDA " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  const std::string path = library_path(reinterpret_cast<void*>(version));
  return path.empty() ? text : text + " (" + path + ")";
}

StatusOr<int> probe_cuda_devices() {
  RR_ASSIGN_OR_RETURN(void* lib, open_libcuda());
  auto cu_init = reinterpret_cast<CuInitFn>(::dlsym(lib, "cuInit"));
  auto cu_count = reinterpret_cast<CuDeviceGetCountFn>(::dlsym(lib, "cuDeviceGetCount"));
  auto cu_error_name = reinterpret_cast<CuGetErrorNameFn>(::dlsym(lib, "cuGetErrorName"));
  if (cu_init == nullptr || cu_count == nullptr) return no_device("cuInit: libcuda.so.1 lacks cuInit");
  auto name_of = [&](int result) {
    const char* name = nullptr;
    if (cu_error_name != nullptr && cu_error_name(result, &name) == 0 && name != nullptr) return std::string(name);
    if (result == kStubLibrary) return std::string("CUDA_ERROR_STUB_LIBRARY");
    return "CUresult " + std::to_string(result);
  };
  if (int r = cu_init(0); r != 0) return no_device("cuInit: " + name_of(r));
  int count = 0;
  if (int r = cu_count(&count); r != 0) return no_device("cuDeviceGetCount: " + name_of(r));
  if (count <= 0) return no_device("cuDeviceGetCount: 0 devices");
  return count;
}

}  // namespace rangereplay::cli
