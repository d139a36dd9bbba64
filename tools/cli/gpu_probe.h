// Checks that a CUDA device is present: libcuda loadable before the launcher
// starts the application, cuInit and a device while the application starts.
//
// The launcher does not link libcuda: it loads libcuda.so.1 at run time, so
// `rangereplay --help`, option errors and this message work on a machine
// without the NVIDIA driver too.
#pragma once

#include <string>

#include "core/base/status.h"

namespace rangereplay::cli {

/// Loads libcuda.so.1 (dlopen: no driver initialization; a refcount
/// increment when the metric module already brought it in) and asks it
/// cuDriverGetVersion, which needs no cuInit, to tell the CUDA toolkit's stub
/// library from the driver. The launcher checks this before starting the
/// application, probe_cuda_devices after. Errors: unavailable, one line each:
///   "the NVIDIA driver's libcuda.so.1 cannot be loaded (<dlerror>); the profiler needs an NVIDIA GPU and its
///    driver: install the driver, or add the folder holding libcuda.so.1 to LD_LIBRARY_PATH"
///   "libcuda.so.1 (<path>) is the CUDA toolkit's stub library, not the NVIDIA driver; remove the stubs folder
///    from LD_LIBRARY_PATH (the profiler needs an NVIDIA GPU and its driver)"
/// Thread-safe.
Status load_libcuda();

/// The driver `rangereplay --version` names, found the way load_libcuda
/// finds it (dlopen of "libcuda.so.1" through the loader's usual search,
/// never the working folder) and asked cuDriverGetVersion (no cuInit, no
/// device needed):
///   "CUDA 13.0 (/usr/lib/x86_64-linux-gnu/libcuda.so.1)"   the CUDA version the driver supports, and its file
///   "no driver (libcuda.so.1 cannot be loaded)"            no NVIDIA driver on this machine
///   "no driver (libcuda.so.1 is the CUDA toolkit's stub library)"
///   "no driver (cuDriverGetVersion: CUresult 3)"           any other failure
/// Never fails and never ends the process. Thread-safe.
std::string driver_version_text();

/// load_libcuda, then cuInit(0) and cuDeviceGetCount. Returns the number of
/// devices (>= 1). Errors: load_libcuda's, or unavailable with the one-line
/// message
///   "no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE); the profiler needs an NVIDIA GPU"
/// (the parenthesis names the failing step: cuInit's or cuDeviceGetCount's
/// error name, or zero devices). Thread-safe after the first call.
StatusOr<int> probe_cuda_devices();

}  // namespace rangereplay::cli
