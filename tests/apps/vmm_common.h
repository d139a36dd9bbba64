// vmm_common.h: what the virtual-memory apps (vmm_in_range, vmm_map_in_range)
// both set up: the current device (checked to support virtual memory
// management), device-memory allocation properties, their granularity, and a
// read-write access descriptor for that device.
#pragma once

#include <cuda.h>

#include <cstddef>

#include "example_common.h"

namespace rangereplay::example {

struct VmmDevice {
  CUdevice device = 0;
  CUmemAllocationProp prop{};    // pinned device memory on `device`
  size_t granularity = 0;        // minimum granularity of `prop`, > 0
  CUmemAccessDesc read_write{};  // read-write access for `device`

  /// `bytes` rounded up to a multiple of the granularity.
  size_t round_up(size_t bytes) const { return (bytes + granularity - 1) / granularity * granularity; }
};

/// The current context's device, set up for cuMemCreate/cuMemMap/cuMemSetAccess.
/// Exits (CHECK_*) when the device lacks virtual memory management.
inline VmmDevice vmm_device() {
  VmmDevice v;
  CHECK_CU(cuCtxGetDevice(&v.device));
  int vmm_supported = 0;
  CHECK_CU(cuDeviceGetAttribute(&vmm_supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, v.device));
  CHECK_THAT(vmm_supported != 0);
  v.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  v.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  v.prop.location.id = static_cast<int>(v.device);
  CHECK_CU(cuMemGetAllocationGranularity(&v.granularity, &v.prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CHECK_THAT(v.granularity > 0);
  v.read_write.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  v.read_write.location.id = static_cast<int>(v.device);
  v.read_write.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return v;
}

}  // namespace rangereplay::example
