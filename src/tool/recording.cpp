// Recording pass 0: kernel launches with their argument bytes copied at
// launch time, memsets, copies; allocation tracking; and the observations
// that make a range ineligible for replay.
// cupti.h brings the driver API parameter structs (generated_cuda_meta.h).
#include <cupti.h>

#include "core/unrecorded_work.h"
#include "cuda/cu_status.h"
#include "cuda/kernel_arguments.h"
#include "tool/profiler_tool.h"

namespace rangereplay::tool {

namespace {

// Devices that may write a new classic allocation: the current context's
// device (the allocating call runs in it), or every device when that cannot
// be read. A range on another device keeps it out of its snapshot, and a
// kernel passed a pointer into it declines the range (host_regions.cpp): a
// copy kernel on one device touching another's memory without peer access
// would fault the application's context.
std::uint64_t allocating_device_bits() {
  CUdevice device = 0;
  return cuCtxGetDevice(&device) == CUDA_SUCCESS ? device_bit(static_cast<int>(device)) : kAllDevices;
}

}  // namespace

void ProfilerTool::record_launch(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  KernelLaunchOp op;
  op.name = data->symbolName ? data->symbolName : "";
  op.launch_index = current_launch_index();
  Status s;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchKernel_params*>(data->functionParams);
      op.api = LaunchApi::kLaunchKernel;
      op.function = reinterpret_cast<std::uint64_t>(p->f);
      op.grid[0] = p->gridDimX; op.grid[1] = p->gridDimY; op.grid[2] = p->gridDimZ;
      op.block[0] = p->blockDimX; op.block[1] = p->blockDimY; op.block[2] = p->blockDimZ;
      op.shared_mem_bytes = p->sharedMemBytes;
      op.stream = reinterpret_cast<std::uint64_t>(p->hStream);
      s = copy_kernel_arguments(p->f, p->kernelParams, p->extra, &op);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(data->functionParams);
      op.api = LaunchApi::kCooperative;
      op.function = reinterpret_cast<std::uint64_t>(p->f);
      op.grid[0] = p->gridDimX; op.grid[1] = p->gridDimY; op.grid[2] = p->gridDimZ;
      op.block[0] = p->blockDimX; op.block[1] = p->blockDimY; op.block[2] = p->blockDimZ;
      op.shared_mem_bytes = p->sharedMemBytes;
      op.stream = reinterpret_cast<std::uint64_t>(p->hStream);
      s = copy_kernel_arguments(p->f, p->kernelParams, nullptr, &op);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* p = static_cast<const cuLaunchKernelEx_params*>(data->functionParams);
      const CUlaunchConfig* c = p->config;
      op.api = LaunchApi::kLaunchKernelEx;
      op.function = reinterpret_cast<std::uint64_t>(p->f);
      op.grid[0] = c->gridDimX; op.grid[1] = c->gridDimY; op.grid[2] = c->gridDimZ;
      op.block[0] = c->blockDimX; op.block[1] = c->blockDimY; op.block[2] = c->blockDimZ;
      op.shared_mem_bytes = c->sharedMemBytes;
      op.stream = reinterpret_cast<std::uint64_t>(c->hStream);
      if (c->numAttrs) {
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(c->attrs);
        op.attributes.assign(bytes, bytes + sizeof(CUlaunchAttribute) * c->numAttrs);
        op.attribute_count = c->numAttrs;
      }
      s = copy_kernel_arguments(p->f, p->kernelParams, p->extra, &op);
      break;
    }
    default:
      return;
  }
  if (!s.ok()) {
    decline(*active_, DeclineReason::kUnsupportedApi,
            "cannot copy the arguments of kernel " + op.name + ": " + s.message());
    return;
  }
  active_->program.ops.emplace_back(std::move(op));
}

void ProfilerTool::record_memory_op(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  auto& ops = active_->program.ops;
  // Writes into tracked pinned host memory are host-visible results, like a
  // device-to-host copy: not re-executed (host threads may be using the buffer
  // while the window runs); a kernel later given the buffer captures it then.
  const auto in_pinned = [&](CUdeviceptr p) {
    const std::optional<Allocation> a = inventory_.find_containing(DevicePtr(p));
    return a.has_value() && a->kind == AllocationKind::kMappedHost;
  };
  const auto record_memset = [&](MemsetOp op) {
    if (in_pinned(op.dst)) {
      ++active_->program.skipped_device_to_host;
      return;
    }
    ops.emplace_back(op);
  };
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds: {
      const auto* p = static_cast<const cuMemsetD8_v2_params*>(data->functionParams);
      record_memset(MemsetOp{p->dstDevice, p->uc, 1, p->N});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz: {
      const auto* p = static_cast<const cuMemsetD8Async_params*>(data->functionParams);
      record_memset(MemsetOp{p->dstDevice, p->uc, 1, p->N});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds: {
      const auto* p = static_cast<const cuMemsetD16_v2_params*>(data->functionParams);
      record_memset(MemsetOp{p->dstDevice, p->us, 2, p->N});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz: {
      const auto* p = static_cast<const cuMemsetD16Async_params*>(data->functionParams);
      record_memset(MemsetOp{p->dstDevice, p->us, 2, p->N});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds: {
      const auto* p = static_cast<const cuMemsetD32_v2_params*>(data->functionParams);
      record_memset(MemsetOp{p->dstDevice, p->ui, 4, p->N});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz: {
      const auto* p = static_cast<const cuMemsetD32Async_params*>(data->functionParams);
      record_memset(MemsetOp{p->dstDevice, p->ui, 4, p->N});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds: {
      const auto* p = static_cast<const cuMemcpyDtoD_v2_params*>(data->functionParams);
      ops.emplace_back(CopyDeviceOp{p->dstDevice, p->srcDevice, p->ByteCount});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz: {
      const auto* p = static_cast<const cuMemcpyDtoDAsync_v2_params*>(data->functionParams);
      ops.emplace_back(CopyDeviceOp{p->dstDevice, p->srcDevice, p->ByteCount});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds: {
      const auto* p = static_cast<const cuMemcpyHtoD_v2_params*>(data->functionParams);
      const auto* src = static_cast<const std::uint8_t*>(p->srcHost);
      ops.emplace_back(CopyFromHostOp{p->dstDevice, std::vector<std::uint8_t>(src, src + p->ByteCount)});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz: {
      const auto* p = static_cast<const cuMemcpyHtoDAsync_v2_params*>(data->functionParams);
      const auto* src = static_cast<const std::uint8_t*>(p->srcHost);
      ops.emplace_back(CopyFromHostOp{p->dstDevice, std::vector<std::uint8_t>(src, src + p->ByteCount)});
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
      ++active_->program.skipped_device_to_host;
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz: {
      // Unified addressing: the direction follows from which side is tracked.
      CUdeviceptr dst = 0, src = 0;
      std::size_t bytes = 0;
      if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpy || cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds) {
        const auto* p = static_cast<const cuMemcpy_params*>(data->functionParams);
        dst = p->dst; src = p->src; bytes = p->ByteCount;
      } else {
        const auto* p = static_cast<const cuMemcpyAsync_params*>(data->functionParams);
        dst = p->dst; src = p->src; bytes = p->ByteCount;
      }
      // A tracked pinned host buffer as the source is host data all the same:
      // its bytes are captured now, as the copy read them (the host may refill
      // it later in the range, and replays restore it to its entry state).
      const std::optional<Allocation> dst_region = inventory_.find_containing(DevicePtr(dst));
      const std::optional<Allocation> src_region = inventory_.find_containing(DevicePtr(src));
      const bool dst_pinned = dst_region.has_value() && dst_region->kind == AllocationKind::kMappedHost;
      const bool dst_dev = dst_region.has_value() && !dst_pinned;
      const bool src_dev = src_region.has_value() && src_region->kind != AllocationKind::kMappedHost;
      if (dst_pinned) {
        ++active_->program.skipped_device_to_host;  // into host memory: see in_pinned above
      } else if (dst_dev && src_dev) {
        ops.emplace_back(CopyDeviceOp{dst, src, bytes});
      } else if (dst_dev) {
        const auto* h = reinterpret_cast<const std::uint8_t*>(src);
        ops.emplace_back(CopyFromHostOp{dst, std::vector<std::uint8_t>(h, h + bytes)});
      } else if (src_dev) {
        ++active_->program.skipped_device_to_host;
      } else {
        decline(*active_, DeclineReason::kUnsupportedApi,
                std::string(data->functionName) + " between untracked addresses");
      }
      return;
    }
    default:
      // Anything else that writes device memory or enqueues work would be
      // left out of every replay: decline, naming the call.
      if (data->functionName != nullptr && is_unrecorded_gpu_work(data->functionName))
        decline(*active_, DeclineReason::kUnsupportedApi,
                std::string(data->functionName) +
                    " inside the range: the tool does not record this call, so a replay would leave it out");
      return;
  }
}

namespace {

// The device address of pinned host memory at `host`, or nullopt when no
// device can reach it. Under unified addressing every cuMemHostAlloc /
// cuMemAllocHost allocation is mapped, at the host address except for
// write-combined memory (cuMemHostAlloc's documentation);
// cuMemHostGetDevicePointer answers for DEVICEMAP memory, the pointer
// attribute for the rest. The calls run inside InToolScope, so they are not
// observed.
std::optional<std::uint64_t> mapped_device_address(void* host) {
  InToolScope scope;
  CUdeviceptr device = 0;
  if (cuMemHostGetDevicePointer(&device, host, 0) == CUDA_SUCCESS && device != 0) return device;
  device = 0;
  if (cuPointerGetAttribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, reinterpret_cast<CUdeviceptr>(host)) ==
          CUDA_SUCCESS &&
      device != 0)
    return device;
  return std::nullopt;
}

}  // namespace

void ProfilerTool::track_mapped_host(void* host, std::uint64_t bytes, const char* origin) {
  if (host == nullptr || bytes == 0) return;
  const std::optional<std::uint64_t> device = mapped_device_address(host);
  if (!device) return;  // not device-accessible: no kernel can write it
  Allocation a{MemoryRange(DevicePtr(*device), bytes), AllocationKind::kMappedHost, origin, 0};
  a.host_address = reinterpret_cast<std::uint64_t>(host);
  inventory_.add(std::move(a));
}

void ProfilerTool::track_allocation(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  const bool enter = data->callbackSite == CUPTI_API_ENTER;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
      // Mapped, not yet accessible: writable by no device until cuMemSetAccess.
      if (enter || !call_succeeded(data)) return;
      const auto* p = static_cast<const cuMemMap_params*>(data->functionParams);
      Allocation a{MemoryRange(DevicePtr(p->ptr), p->size), AllocationKind::kVirtual, "cuMemMap", 0};
      a.writable_devices = kNoDevices;
      inventory_.add(std::move(a));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess: {
      if (enter || !call_succeeded(data)) return;
      const auto* p = static_cast<const cuMemSetAccess_params*>(data->functionParams);
      for (std::size_t i = 0; p->desc != nullptr && i < p->count; ++i) {
        const CUmemAccessDesc& d = p->desc[i];
        // Host locations concern CPU access; kernels run on devices.
        if (d.location.type != CU_MEM_LOCATION_TYPE_DEVICE) continue;
        // Read-only spans cannot be changed by a range: they stay out of the
        // snapshot, whose restore would write them.
        inventory_.set_access(MemoryRange(DevicePtr(p->ptr), p->size), d.location.id,
                              d.flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
      }
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
      // Forget the span before the driver unmaps it, so no snapshot touches it.
      if (!enter) return;
      const auto* p = static_cast<const cuMemUnmap_params*>(data->functionParams);
      inventory_.unmap(MemoryRange(DevicePtr(p->ptr), p->size));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: {
      if (enter || !call_succeeded(data)) return;
      const auto* p = static_cast<const cuMemHostAlloc_params*>(data->functionParams);
      track_mapped_host(*p->pp, p->bytesize, "cuMemHostAlloc");
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
      if (enter || !call_succeeded(data)) return;
      const auto* p = static_cast<const cuMemAllocHost_v2_params*>(data->functionParams);
      track_mapped_host(*p->pp, p->bytesize, "cuMemAllocHost_v2");
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost: {
      if (enter || !call_succeeded(data)) return;
      const auto* p = static_cast<const cuMemAllocHost_params*>(data->functionParams);
      track_mapped_host(*p->pp, p->bytesize, "cuMemAllocHost");
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister:
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
      if (enter || !call_succeeded(data)) return;
      // Both versions pass (p, bytesize, Flags).
      const auto* p = static_cast<const cuMemHostRegister_v2_params*>(data->functionParams);
      // Read-only registrations cannot be written by kernels (and a restore
      // could not write them); I/O memory is another device's registers,
      // which a snapshot must not read or write.
      if (p->Flags & (CU_MEMHOSTREGISTER_READ_ONLY | CU_MEMHOSTREGISTER_IOMEMORY)) return;
      track_mapped_host(p->p, p->bytesize,
                        cbid == CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister ? "cuMemHostRegister" : "cuMemHostRegister_v2");
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost: {
      if (!enter) return;
      const auto* p = static_cast<const cuMemFreeHost_params*>(data->functionParams);
      inventory_.remove_host(reinterpret_cast<std::uint64_t>(p->p));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister: {
      if (!enter) return;
      const auto* p = static_cast<const cuMemHostUnregister_params*>(data->functionParams);
      inventory_.remove_host(reinterpret_cast<std::uint64_t>(p->p));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
      if (enter) return;
      const auto* p = static_cast<const cuMemAlloc_v2_params*>(data->functionParams);
      if (*static_cast<const CUresult*>(data->functionReturnValue) != CUDA_SUCCESS) return;
      Allocation a{MemoryRange(DevicePtr(*p->dptr), p->bytesize), AllocationKind::kDevice, "cuMemAlloc_v2", 0};
      a.writable_devices = allocating_device_bits();
      inventory_.add(std::move(a));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
      if (enter) return;
      const auto* p = static_cast<const cuMemAllocPitch_v2_params*>(data->functionParams);
      if (*static_cast<const CUresult*>(data->functionReturnValue) != CUDA_SUCCESS) return;
      Allocation a{MemoryRange(DevicePtr(*p->dptr), *p->pPitch * p->Height), AllocationKind::kDevice,
                   "cuMemAllocPitch_v2", 0};
      a.writable_devices = allocating_device_bits();
      inventory_.add(std::move(a));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
      if (enter) return;
      const auto* p = static_cast<const cuMemAllocManaged_params*>(data->functionParams);
      if (*static_cast<const CUresult*>(data->functionReturnValue) != CUDA_SUCCESS) return;
      Allocation a{MemoryRange(DevicePtr(*p->dptr), p->bytesize), AllocationKind::kManaged, "cuMemAllocManaged", 0};
      a.host_attached = (p->flags & CU_MEM_ATTACH_HOST) != 0;
      inventory_.add(std::move(a));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
      if (enter) return;
      const auto* p = static_cast<const cuMemAllocAsync_params*>(data->functionParams);
      if (*static_cast<const CUresult*>(data->functionReturnValue) != CUDA_SUCCESS) return;
      Allocation a{MemoryRange(DevicePtr(*p->dptr), p->bytesize), AllocationKind::kStreamOrdered,
                   "cuMemAllocAsync", 0};
      a.writable_devices = allocating_device_bits();
      inventory_.add(std::move(a));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
      if (enter) return;
      const auto* p = static_cast<const cuMemAllocFromPoolAsync_params*>(data->functionParams);
      if (*static_cast<const CUresult*>(data->functionReturnValue) != CUDA_SUCCESS) return;
      Allocation a{MemoryRange(DevicePtr(*p->dptr), p->bytesize), AllocationKind::kStreamOrdered,
                   "cuMemAllocFromPoolAsync", 0};
      a.writable_devices = allocating_device_bits();
      inventory_.add(std::move(a));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2: {
      // Forget the region before the driver frees it, so no snapshot touches it.
      if (!enter) return;
      const auto* p = static_cast<const cuMemFree_v2_params*>(data->functionParams);
      inventory_.remove(DevicePtr(p->dptr));
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: {
      // A stream-ordered free: the memory stays valid until the stream reaches
      // it, but no later snapshot may cover it.
      if (!enter) return;
      const auto* p = static_cast<const cuMemFreeAsync_params*>(data->functionParams);
      inventory_.remove(DevicePtr(p->dptr));
      return;
    }
    default:
      return;
  }
}

}  // namespace rangereplay::tool
