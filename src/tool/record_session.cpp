// RecordSession: routing in and out of ranges, the inventory's callbacks and
// the module registry's (see record_session.h). Kernel launches and
// allocations are in recording.cpp, executable graphs in graph_recording.cpp,
// stream captures in capture_tracking.cpp.
#include "tool/record_session.h"

#include <cstdint>
#include <span>

#include "core/record/cubin_symbols.h"
#include "cuda/kernel_arguments.h"
#include "tool/logic/device_room.h"
#include "tool/range_controller.h"

namespace rangereplay::tool {

namespace {

// Whether the driver knows `address` as memory of another type than host
// memory (device, managed, array). Caller holds InToolScope.
bool device_memory(std::uint64_t address) {
  CUmemorytype type{};
  return cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, static_cast<CUdeviceptr>(address)) ==
             CUDA_SUCCESS &&
         type != CU_MEMORYTYPE_HOST;
}

// Whether `address`, which the inventory does not hold, is device memory
// the host cannot read, as the driver sees it (cuPointerGetAttribute: a
// memory type other than host, not managed). Caller holds InToolScope.
bool untracked_device_memory(std::uint64_t address) {
  if (!device_memory(address)) return false;
  // Managed memory (a __managed__ variable, another allocator's
  // cudaMallocManaged) is device memory the host can read.
  unsigned managed = 0;
  return cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, static_cast<CUdeviceptr>(address)) !=
             CUDA_SUCCESS ||
         managed == 0;
}

// The symbols of the module a MODULE_LOADED callback reports, read from its
// cubin; an error when CUPTI gave no cubin or it cannot be read.
StatusOr<CubinSymbols> module_symbols(const CUpti_ResourceData* data) {
  if (data == nullptr || data->resourceDescriptor == nullptr) return invalid_argument("no module data");
  const auto& module = *static_cast<const CUpti_ModuleResourceData*>(data->resourceDescriptor);
  if (module.pCubin == nullptr || module.cubinSize == 0) return invalid_argument("no cubin");
  return read_cubin_symbols(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(module.pCubin), module.cubinSize));
}

}  // namespace

RecordSession::RecordSession(RecordSessionParts parts)
    : config_(parts.config),
      mutex_(parts.mutex),
      lock_hook_(parts.lock_hook),
      ranges_(parts.ranges),
      range_open_(parts.range_open),
      range_beginning_(parts.range_beginning) {}

RangeRecorder RecordSession::range_recorder(ActiveRange& range) {
  return RangeRecorder(range.program, range.eligibility, inventory_, untracked_device_memory);
}

void RecordSession::observe_by_row(const DriverCall& call, const CUpti_CallbackData* data) {
  switch (call.in_range) {
    case InRange::kRecord:
    case InRange::kDecline:
    case InRange::kPassThrough:
      // Work recorded into a graph by a capture does not execute now: no
      // work of a range (the graph's launch is).
      if (data->callbackSite == CUPTI_API_ENTER && call.decode != nullptr && captures_.open_captures() > 0 &&
          captures_.is_capturing(capture_key(call, call.decode(data->functionParams))))
        return;
      observe_if_in_range(&call, data);
      return;
    case InRange::kTrackAndDecline:
    case InRange::kTrackAndKeep:
    case InRange::kDeclineIfLaunched:
    case InRange::kTrackOnly: return;  // handled by the kind, in and out of ranges
  }
}

void RecordSession::on_memory_api(const DriverCall& call, const CUpti_CallbackData* data) {
  const CallParams params = call.decode(data->functionParams);
  // A stream-ordered allocation or free captured into a graph is a memory
  // node: it allocates or frees nothing now, and its address is mapped only
  // while the graph runs.
  if (captures_.open_captures() > 0 && captures_.is_capturing(capture_key(call, params))) return;
  // Waits here while a replay window runs in another thread. The inventory
  // changes under the same lock as the range check, so a range cannot begin
  // between them (a snapshot of a region being freed, or missing one being
  // allocated).
  ToolLock lock = lock_tool(data->functionName);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  // A free, an unmap or an access change while ranges are deferred: they
  // are replayed first, while everything they use exists as it did.
  if (data->callbackSite == CUPTI_API_ENTER && ranges_.deferred().has_pending() &&
      (call.kind == CallKind::kFree || call.effect == MemoryEffect::kSetAccess))
    ranges_.deferred().before_free(data->functionName);
  // An allocation that would not fit beside the memory the tool holds
  // between ranges: the tool gives it back first (tool/logic/device_room.h).
  if (data->callbackSite == CUPTI_API_ENTER && call.kind == CallKind::kAllocation) {
    if (const std::uint64_t bytes = device_bytes_requested(call.effect, params.allocation); bytes > 0)
      ranges_.before_device_allocation(data->functionName, bytes);
  }
  // A free inside a recording range: the range is replayed first, while
  // the memory exists (it is not recording afterwards), or declined below.
  if (data->callbackSite == CUPTI_API_ENTER && call.kind == CallKind::kFree && recording() != nullptr)
    ranges_.replay_before_free(data->functionName);
  if (ActiveRange* range = recording()) {
    DriverCallEvent event;
    event.call = &call;
    event.name = data->functionName;
    event.entry = data->callbackSite == CUPTI_API_ENTER;
    range_recorder(*range).observe_memory_api(event);
  }
  track_allocation(call, params, data);
  // Device memory allocated inside the range: its bytes now are its entry state for the replays.
  if (call.in_range == InRange::kTrackAndKeep && data->callbackSite == CUPTI_API_EXIT && call_succeeded(data)) {
    if (ActiveRange* range = recording()) {
      const AllocationParams& p = params.allocation;
      ranges_.keep_allocation(*range, MemoryRange(DevicePtr(*p.address_out), allocated_bytes(call.effect, p)),
                              data->functionName, data->context, captures_.open_captures() > 0);
    }
  }
}

void RecordSession::on_physical_allocation(const DriverCall& call, const CUpti_CallbackData* data) {
  if (data->callbackSite != CUPTI_API_ENTER) return;
  const std::uint64_t bytes = device_bytes_requested(call.effect, call.decode(data->functionParams).allocation);
  if (bytes == 0) return;
  ToolLock lock = lock_tool(data->functionName);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  ranges_.before_device_allocation(data->functionName, bytes);
}

void RecordSession::on_stream_attach_memory(const DriverCall& call, const CUpti_CallbackData* data) {
  // Managed memory attached to the host is memory host threads use: a
  // range captures it only when one of its kernels is passed it (the
  // inventory's own lock; no tool lock is waited for).
  if (call_succeeded(data)) {
    const AllocationParams p = call.decode(data->functionParams).allocation;
    inventory_.set_host_attached(DevicePtr(p.address), p.flags == CU_MEM_ATTACH_HOST);
  }
}

void RecordSession::observe_if_in_range(const DriverCall* call, const CUpti_CallbackData* data) {
  if (data->callbackSite != CUPTI_API_ENTER) return;
  // While ranges are deferred, the calls that submit work wait for the tool's
  // lock too, so none runs beside a batch's replays.
  if (!range_open_.load(std::memory_order_relaxed) && !ranges_.deferred().has_pending()) return;
  ToolLock lock = lock_tool(data->functionName);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  if (ActiveRange* range = recording()) {
    observe_in_range(*range, call, data);
  } else if (ActiveRange* counted = ranges_.app_range_counting(); counted != nullptr && call != nullptr) {
    note_app_range_work(*counted, *call, data);
  } else if (is_work_after_free(call, data->functionName != nullptr ? data->functionName : "")) {
    // Work after a free that replayed the range.
    ranges_.work_after_free(data->functionName);
  }
}

void RecordSession::observe_launch(const DriverCall& call, const CUpti_CallbackData* data) {
  if (ActiveRange* range = recording()) {
    observe_in_range(*range, &call, data);
  } else if (ActiveRange* counted = ranges_.app_range_counting()) {
    note_app_range_work(*counted, call, data);
  } else {
    ranges_.work_after_free(data->functionName);
  }
}

void RecordSession::replay_deferred_before_untracked_write(const DriverCall* call, const CUpti_CallbackData* data) {
  if (call != nullptr && !may_write_device_memory(call->kind)) return;
  const CallParams params =
      call != nullptr && call->decode != nullptr ? call->decode(data->functionParams) : CallParams{};
  // The pointer query below must not reach our own callbacks.
  InToolScope scope;
  const bool untracked = writes_untracked_device_memory(
      call, data->functionName != nullptr ? data->functionName : "", params,
      [this](std::uint64_t address) { return inventory_.find_containing(DevicePtr(address)).has_value(); },
      device_memory);
  if (!untracked) return;
  ToolLock lock = lock_tool(data->functionName);
  ranges_.deferred().before_untracked_write(data->functionName);
}

void RecordSession::on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData* data) {
  if (cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED && cbid != CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) return;
  // The driver holds its own locks during these callbacks: no tool lock is
  // waited for here (core/record/module_registry.h), only the registry's leaf lock.
  if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
    // Its functions' handles may come back for other functions.
    forget_kernel_param_layouts();
    modules_.unloading();
    return;
  }
  // Lazy loading loads a module at its first launch, often inside the range:
  // harmless unless the module has variables whose entry state is unknown.
  modules_.loaded(module_symbols(data));
}

ActiveRange* RecordSession::recording() const {
  // A declined range is not replayed: recording more would only cost memory.
  ActiveRange* range = ranges_.active();
  return range != nullptr && std::holds_alternative<Recording>(range->state) && !range->eligibility.declined()
             ? range
             : nullptr;
}

}  // namespace rangereplay::tool
