// Checks that a CUDA device is present: libcuda loadable before the launcher
// starts the application, cuInit and a device while the application starts.
//
// The launcher does not link libcuda: it loads libcuda.so.1 at run time, so
// `rangereplay --help`, option errors and this message work on a machine
// without the NVIDIA driver too.
#pragma once

#include "core/status.h"

namespace rangereplay::cli {

/// Loads libcuda.so.1 only (dlopen: no driver initialization; a refcount
/// increment when the metric module already brought it in). The launcher
/// checks this before starting the application, probe_cuda_devices after.
/// Errors: unavailable, the message probe_cuda_devices gives for a missing
/// library ("no CUDA device found (cuInit: libcuda.so.1 cannot be loaded:
/// <dlerror>); the profiler needs an NVIDIA GPU"). Thread-safe.
Status load_libcuda();

/// Loads libcuda.so.1, calls cuInit(0) and cuDeviceGetCount. Returns the
/// number of devices (>= 1). Errors: unavailable, with the one-line message
///   "no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE); the profiler needs an NVIDIA GPU"
/// (the parenthesis names the failing step: libcuda.so.1 not loadable, cuInit's
/// error name, or zero devices). Thread-safe after the first call.
StatusOr<int> probe_cuda_devices();

}  // namespace rangereplay::cli
