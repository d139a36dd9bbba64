// What the profiler needs to know about a real device before building a
// metric catalog for it: its chip name (for MetricCatalog::create) and its
// counter-availability image (which counters it can collect right now, e.g.
// under MIG or with another profiling session active).
//
//   RR_ASSIGN_OR_RETURN(std::string chip, cupti::chip_name_of_device(0));  // "GH100" on H100/H200
//   RR_ASSIGN_OR_RETURN(auto availability, cupti::counter_availability_image(ctx));
//   RR_ASSIGN_OR_RETURN(auto catalog, cupti::MetricCatalog::create(chip, availability));
//
// Both need the driver and a GPU. Source followed: cupti_target.h
// (cuptiDeviceGetChipName) and cupti_profiler_target.h
// (cuptiProfilerGetCounterAvailability), CUDA 13, and NVIDIA's range_profiling
// sample for the order (cuInit, cuptiProfilerInitialize, then the chip name).
// Thread-safety: may be called from any thread.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace rangereplay::cupti {

/// The chip name of CUDA device `device_ordinal` as CUPTI spells it ("GH100").
/// Initialises the driver (cuInit) and CUPTI's profiler interface
/// (cuptiProfilerInitialize, idempotent) first: cuptiDeviceGetChipName
/// crashes inside CUPTI when no driver is present, so the device is checked
/// through the driver before CUPTI is asked.
/// Errors: kUnavailable without a driver or device; kOutOfRange for an ordinal
/// past the device count; kInternal for CUPTI failures.
StatusOr<std::string> chip_name_of_device(int device_ordinal);

/// The counter-availability image of `ctx`'s device
/// (cuptiProfilerGetCounterAvailability, queried for its size then filled).
/// Fails while a profiling session is active on the device.
StatusOr<std::vector<uint8_t>> counter_availability_image(CUcontext ctx);

}  // namespace rangereplay::cupti
