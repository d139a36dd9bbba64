// RecordSession's recording of pass 0: kernel launches with their argument
// bytes copied at launch time, memsets, copies (through the range's
// RangeRecorder); allocation tracking; and the observations that make a range
// ineligible for replay (another context, a collective kernel, module
// variables that cannot be copied).
// cupti.h brings the driver API parameter structs (generated_cuda_meta.h).
#include <cupti.h>

#include "core/interprocess/collective_kernels.h"
#include "cuda/cu_status.h"
#include "cuda/kernel_arguments.h"
#include "report/demangle.h"
#include "tool/host_regions.h"
#include "tool/logic/launch_attributes.h"
#include "tool/logic/range_report.h"
#include "tool/module_globals.h"
#include "tool/record_session.h"

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

// The launch's kernel, number, function, grid, block and shared memory as a
// KernelLaunchOp; no stream, attributes or arguments.
KernelLaunchOp launch_shape(const LaunchParams& launch, const char* symbol) {
  KernelLaunchOp op;
  op.name = symbol != nullptr ? symbol : "";
  op.launch_index = current_launch_index();
  op.api = launch.api;
  op.function = reinterpret_cast<std::uint64_t>(launch.function);
  for (int i = 0; i < 3; ++i) {
    op.grid[i] = launch.grid[i];
    op.block[i] = launch.block[i];
  }
  op.shared_mem_bytes = launch.shared_mem_bytes;
  return op;
}

// Ordinal of `ctx`'s device, or -1 when it cannot be read. Pushes the
// context for cuCtxGetDevice (cuCtxGetDevice_v2 needs a CUDA 12.8+ driver).
// Caller is in an InToolScope.
int device_of(CUcontext ctx) {
  if (cuCtxPushCurrent(ctx) != CUDA_SUCCESS) return -1;
  CUdevice device = 0;
  const bool ok = cuCtxGetDevice(&device) == CUDA_SUCCESS;
  CUcontext popped = nullptr;
  cuCtxPopCurrent(&popped);
  return ok ? static_cast<int>(device) : -1;
}

// Whether `data`'s call went to another context than `range`'s; if so the
// range is declined (multiple_devices for another device's context, else
// multiple_contexts). Caller holds the tool's lock.
bool in_other_context(ActiveRange& range, const CUpti_CallbackData* data) {
  if (range.ctx == nullptr || data->context == nullptr || data->context == range.ctx) return false;
  // A context of another device (cudaSetDevice(1) inside a range on device
  // 0) is multiple_devices, whose fix is direct; the same device's second
  // context is multiple_contexts.
  const int other = device_of(data->context);
  if (other >= 0 && range.device >= 0 && other != range.device) {
    range.eligibility.decline(DeclineReason::kMultipleDevices,
                              std::string(data->functionName) + " submitted work to device " + std::to_string(other) +
                                  " inside a range on device " + std::to_string(range.device));
  } else {
    range.eligibility.decline(DeclineReason::kMultipleContexts,
                              std::string(data->functionName) + " in a second context inside the range");
  }
  return true;
}

}  // namespace

void decline_collective(ActiveRange& range, const std::string& kernel, const char* what, CollectivesMode mode) {
  if (std::optional<std::string_view> library = collective_library_of(kernel)) {
    if (mode == CollectivesMode::kReplay) {
      // Every rank replays the range together (RankRendezvous::agree_with_peers).
      if (range.collective_kernel.empty()) range.collective_kernel = report::demangle(kernel);
      return;
    }
    range.eligibility.decline(DeclineReason::kCollectiveInRange,
                              std::string(what) + " " + report::demangle(kernel) + " is a " + std::string(*library) +
                                  " collective: replayed in this process alone it would wait for peers that do not "
                                  "replay");
  }
}

void RecordSession::note_app_range_work(ActiveRange& range, const DriverCall& call, const CUpti_CallbackData* data) {
  // The kernel sequence each run's matched range is compared by
  // (report::merge_app_runs): launches in call order, a graph launch as one
  // entry of its own.
  // The range's counters are those of its own context.
  if (in_other_context(range, data)) return;
  auto* collecting = std::get_if<Collecting>(&range.state);
  if (collecting == nullptr) return;
  std::vector<report::KernelRecord>& kernels = collecting->kernels;
  const auto index = static_cast<std::uint32_t>(kernels.size());
  if (call.kind == CallKind::kGraphLaunch) {
    report::KernelRecord k;
    k.index = index;
    k.name = "(graph launch)";
    kernels.push_back(std::move(k));
    return;
  }
  if (call.kind != CallKind::kKernelLaunch || call.decode == nullptr) return;
  // No stream: the list is compared by names, grids and blocks only.
  kernels.push_back(kernel_record(launch_shape(call.decode(data->functionParams).launch, data->symbolName), index));
}

void RecordSession::observe_in_range(ActiveRange& range, const DriverCall* call, const CUpti_CallbackData* data) {
  if (in_other_context(range, data)) return;
  const std::size_t first_new = range.program.ops.size();
  RangeRecorder recorder = range_recorder(range);
  const CallParams params =
      call != nullptr && call->decode != nullptr ? call->decode(data->functionParams) : CallParams{};
  if (call != nullptr && call->kind == CallKind::kGraphLaunch) {
    // cudaGraphLaunch reaches this driver callback too.
    record_graph_launch(range, params, data);
  } else {
    DriverCallEvent event;
    event.call = call;
    event.name = data->functionName != nullptr ? data->functionName : "";
    event.memory = params.memory;
    if (call != nullptr && call->kind == CallKind::kKernelLaunch) prepare_launch(range, params, data, event);
    if (!recorder.record(event)) return;
  }
  if (call != nullptr && (call->kind == CallKind::kKernelLaunch || call->kind == CallKind::kGraphLaunch))
    scan_kernel_pointers(range, first_new, call->per_thread_stream(), captures_.open_or_beginning());
  const CUcontext ctx = data->context != nullptr ? data->context : range.ctx;
  recorder.after_call(first_new, reinterpret_cast<std::uint64_t>(ctx), range.device);
}

void RecordSession::prepare_launch(ActiveRange& range, const CallParams& params, const CUpti_CallbackData* data,
                                   DriverCallEvent& event) {
  const LaunchParams& launch = params.launch;
  if (data->symbolName != nullptr) decline_collective(range, data->symbolName, "kernel", config_.collectives);
  // The launched kernel's module variables are captured before the launch
  // is recorded (the range declines when they cannot be).
  if (data->symbolName != nullptr) {
    if (auto globals = modules_.globals_of(data->symbolName)) {
      // Copying them is a synchronous call, which an open capture forbids
      // (so is one another thread is beginning: it is not registered yet).
      if (captures_.open_or_beginning())
        range.eligibility.decline(DeclineReason::kModuleGlobalsInRange,
                                  "kernel " + report::demangle(data->symbolName) +
                                      " is in a module with __device__ variables (" + globals->names +
                                      "), launched while a stream capture was open: copying them would invalidate "
                                      "the capture");
      else if (Status g = track_module_globals(range, launch.function, *globals); !g.ok())
        range.eligibility.decline(DeclineReason::kModuleGlobalsInRange,
                                  "kernel " + report::demangle(data->symbolName) +
                                      " is in a module with __device__ variables (" + globals->names +
                                      ") that could not be snapshotted: " + g.message());
    }
  }
  event.kernel = launch_shape(launch, data->symbolName);
  KernelLaunchOp& op = event.kernel;
  op.stream = reinterpret_cast<std::uint64_t>(params.stream.value_or(nullptr));
  if (launch.attribute_count) {
    // Replays record none of the application's events (tool/logic/launch_attributes.h).
    const std::vector<CUlaunchAttribute> kept = replayed_launch_attributes(launch.attributes, launch.attribute_count);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(kept.data());
    op.attributes.assign(bytes, bytes + sizeof(CUlaunchAttribute) * kept.size());
    op.attribute_count = static_cast<std::uint32_t>(kept.size());
  }
  // The argument bytes, by the kernel's parameter layout (cuda/kernel_arguments.h).
  event.arguments = copy_kernel_arguments(launch.function, launch.kernel_params, launch.extra, &op);
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

void RecordSession::track_mapped_host(void* host, std::uint64_t bytes, const char* origin) {
  if (host == nullptr || bytes == 0) return;
  const std::optional<std::uint64_t> device = mapped_device_address(host);
  if (!device) return;  // not device-accessible: no kernel can write it
  Allocation a{MemoryRange(DevicePtr(*device), bytes), AllocationKind::kMappedHost, origin, 0};
  a.host_address = reinterpret_cast<std::uint64_t>(host);
  inventory_.add(std::move(a));
}

void RecordSession::track_allocation(const DriverCall& call, const CallParams& params, const CUpti_CallbackData* data) {
  const bool enter = data->callbackSite == CUPTI_API_ENTER;
  const AllocationParams& p = params.allocation;
  const std::string origin(call.base_name());
  // Allocations are added at a successful exit, frees and unmaps taken out
  // at the entry, so no snapshot touches memory being released.
  const bool added_now = !enter && call_succeeded(data);
  switch (call.effect) {
    case MemoryEffect::kMapVirtual: {
      // Mapped, not yet accessible: writable by no device until cuMemSetAccess.
      if (!added_now) return;
      Allocation a{MemoryRange(DevicePtr(p.address), p.bytes), AllocationKind::kVirtual, origin, 0};
      a.writable_devices = kNoDevices;
      inventory_.add(std::move(a));
      return;
    }
    case MemoryEffect::kSetAccess:
      if (!added_now) return;
      for (std::size_t i = 0; p.access != nullptr && i < p.access_count; ++i) {
        const CUmemAccessDesc& d = p.access[i];
        // Host locations concern CPU access; kernels run on devices.
        if (d.location.type != CU_MEM_LOCATION_TYPE_DEVICE) continue;
        // Read-only spans cannot be changed by a range: they stay out of the
        // snapshot, whose restore would write them.
        inventory_.set_access(MemoryRange(DevicePtr(p.address), p.bytes), d.location.id,
                              d.flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
      }
      return;
    case MemoryEffect::kUnmapVirtual:
      if (enter) inventory_.unmap(MemoryRange(DevicePtr(p.address), p.bytes));
      return;
    case MemoryEffect::kAddPinnedHost:
      if (added_now) track_mapped_host(*p.host_out, p.bytes, origin.c_str());
      return;
    case MemoryEffect::kRegisterHost:
      // Read-only registrations cannot be written by kernels (and a restore
      // could not write them); I/O memory is another device's registers,
      // which a snapshot must not read or write.
      if (!added_now || (p.flags & (CU_MEMHOSTREGISTER_READ_ONLY | CU_MEMHOSTREGISTER_IOMEMORY))) return;
      track_mapped_host(p.host, p.bytes, origin.c_str());
      return;
    case MemoryEffect::kRemoveHost:
      if (enter) inventory_.remove_host(reinterpret_cast<std::uint64_t>(p.host));
      return;
    case MemoryEffect::kAddDevice:
    case MemoryEffect::kAddPitched:
    case MemoryEffect::kAddStreamOrdered: {
      if (!added_now) return;
      Allocation a{
          MemoryRange(DevicePtr(*p.address_out), allocated_bytes(call.effect, p)),
          call.effect == MemoryEffect::kAddStreamOrdered ? AllocationKind::kStreamOrdered : AllocationKind::kDevice,
          origin, 0};
      a.writable_devices = allocating_device_bits();
      // cuMemAlloc's memory belongs to its context; a pool's is the device's.
      if (call.effect != MemoryEffect::kAddStreamOrdered) a.context = reinterpret_cast<std::uint64_t>(data->context);
      inventory_.add(std::move(a));
      return;
    }
    case MemoryEffect::kAddManaged: {
      if (!added_now) return;
      Allocation a{MemoryRange(DevicePtr(*p.address_out), p.bytes), AllocationKind::kManaged, origin, 0};
      a.host_attached = (p.flags & CU_MEM_ATTACH_HOST) != 0;
      inventory_.add(std::move(a));
      return;
    }
    case MemoryEffect::kRemove:
      // A stream-ordered free: the memory stays valid until the stream
      // reaches it, but no later snapshot may cover it.
      if (enter) inventory_.remove(DevicePtr(p.address));
      return;
    case MemoryEffect::kCreatePhysical:  // not accessible until mapped (kMapVirtual) and given access
    case MemoryEffect::kNone: return;
  }
}

}  // namespace rangereplay::tool
