// RangeRecorder (range_recorder.h): pass 0's recorded operations and the
// declines of the calls it leaves out.
#include "tool/logic/range_recorder.h"

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace rangereplay::tool {

bool RangeRecorder::in_pinned(std::uint64_t address) const {
  const std::optional<Allocation> a = inventory_.find_containing(DevicePtr(address));
  return a.has_value() && a->kind == AllocationKind::kMappedHost;
}

bool RangeRecorder::record(const DriverCallEvent& event) {
  const DriverCall* call = event.call;
  if (call != nullptr && call->kind == CallKind::kHostFunction) {
    // Host code, run by the driver when the stream reaches it: pass 0 ran it,
    // replays leave it out. That keeps the replayed work's order only when
    // no work follows it in the range (after_call declines otherwise).
    ++program_.host_functions;
    if (!program_.ops_before_host_function) program_.ops_before_host_function = program_.ops.size();
    return false;
  }
  if (call == nullptr || call->in_range != InRange::kRecord) {
    // Anything else that writes device memory or enqueues work would be
    // left out of every replay: decline, naming the call. A host function
    // or a multi-device launch keeps what the range recorded so far; other
    // declines go on to after_call, which frees it.
    if (auto left_out = unrecorded_call_decline(call, event.name)) {
      eligibility_.decline(left_out->reason, std::move(left_out->detail));
      if (call != nullptr && call->kind == CallKind::kMultiDeviceLaunch) return false;
    }
    return true;
  }
  if (call->kind == CallKind::kKernelLaunch) {
    if (!event.arguments.ok()) {
      eligibility_.decline(DeclineReason::kUnsupportedApi, "cannot copy the arguments of kernel " + event.kernel.name +
                                                               ": " + event.arguments.message());
      return true;
    }
    program_.ops.emplace_back(event.kernel);
    return true;
  }
  record_memory_op(call->kind, event.memory, event.name);
  return true;
}

void RangeRecorder::record_graph_launch(GraphLaunchOp op) { program_.ops.emplace_back(std::move(op)); }

void RangeRecorder::record_memory_op(CallKind kind, const MemoryOpParams& p, std::string_view name) {
  auto& ops = program_.ops;
  // Writes into tracked pinned host memory are host-visible results, like a
  // device-to-host copy: not re-executed (host threads may be using the buffer
  // while the window runs); a kernel later given the buffer captures it then.
  switch (kind) {
    case CallKind::kMemset:
      if (in_pinned(p.dst)) {
        ++program_.skipped_device_to_host;
        return;
      }
      ops.emplace_back(MemsetOp{p.dst, p.value, p.element_bytes, p.count});
      return;
    case CallKind::kCopyDeviceToDevice: ops.emplace_back(CopyDeviceOp{p.dst, p.src, p.bytes}); return;
    case CallKind::kCopyHostToDevice: {
      const auto src = reinterpret_cast<std::uint64_t>(p.src_host);
      const std::optional<Allocation> src_region = inventory_.find_containing(DevicePtr(src));
      const bool device_source =
          src_region ? src_region->kind != AllocationKind::kMappedHost && src_region->kind != AllocationKind::kManaged
                     : device_memory_ && device_memory_(src);
      if (device_source) {
        // Not memory the host can read: reading it here would fault.
        eligibility_.decline(DeclineReason::kUnsupportedApi,
                             std::string(name) + " from a source that is device memory, not host memory");
        return;
      }
      capture_host_copy(p.dst, p.src_host, p.bytes);
      return;
    }
    case CallKind::kCopyDeviceToHost: ++program_.skipped_device_to_host; return;
    case CallKind::kCopyUnified: {
      // Unified addressing: the direction follows from which side is tracked.
      // A tracked pinned host buffer as the source is host data all the same:
      // its bytes are captured now, as the copy read them (the host may refill
      // it later in the range, and replays restore it to its entry state).
      const std::optional<Allocation> dst_region = inventory_.find_containing(DevicePtr(p.dst));
      const std::optional<Allocation> src_region = inventory_.find_containing(DevicePtr(p.src));
      const bool dst_pinned = dst_region.has_value() && dst_region->kind == AllocationKind::kMappedHost;
      const bool dst_dev = dst_region.has_value() && !dst_pinned;
      const bool src_dev = src_region.has_value() && src_region->kind != AllocationKind::kMappedHost;
      if (dst_pinned) {
        ++program_.skipped_device_to_host;  // into host memory: see above
      } else if (dst_dev && src_dev) {
        ops.emplace_back(CopyDeviceOp{p.dst, p.src, p.bytes});
      } else if (dst_dev && !src_region.has_value() && device_memory_ && device_memory_(p.src)) {
        // Device memory the inventory does not hold: reading it on the host
        // as a host buffer would fault the application.
        eligibility_.decline(DeclineReason::kUnsupportedApi,
                             std::string(name) +
                                 " from device memory the tool does not track (allocated by another "
                                 "allocator, imported or mapped); a replay could not restore it");
      } else if (dst_dev) {
        capture_host_copy(p.dst, reinterpret_cast<const void*>(p.src), p.bytes);
      } else if (src_dev) {
        ++program_.skipped_device_to_host;
      } else {
        eligibility_.decline(DeclineReason::kUnsupportedApi, std::string(name) + " between untracked addresses");
      }
      return;
    }
    default: return;
  }
}

void RangeRecorder::capture_host_copy(std::uint64_t dst, const void* src, std::uint64_t bytes) {
  if (!eligibility_.host_bytes_fit(bytes)) {
    // Over the cap: declined before any host copy is made (a copy of many
    // gigabytes would otherwise be allocated first, on the application's
    // thread).
    eligibility_.observe_captured_host_bytes(bytes);
    return;
  }
  const auto* h = static_cast<const std::uint8_t*>(src);
  program_.ops.emplace_back(CopyFromHostOp{dst, std::vector<std::uint8_t>(h, h + bytes)});
}

void RangeRecorder::after_call(std::size_t first, std::uint64_t context, int device) {
  auto& ops = program_.ops;
  for (std::size_t i = first; i < ops.size(); ++i) {
    const auto* graph = std::get_if<GraphLaunchOp>(&ops[i]);
    const bool kernel = std::holds_alternative<KernelLaunchOp>(ops[i]) ||
                        (graph != nullptr && graph->kernels && !graph->kernels->empty());
    eligibility_.observe_operation(context, device, kernel);
    if (const auto* h2d = std::get_if<CopyFromHostOp>(&ops[i]))
      eligibility_.observe_captured_host_bytes(h2d->data.size());
  }
  if (program_.ops_before_host_function && ops.size() > *program_.ops_before_host_function)
    eligibility_.decline(DeclineReason::kHostFunctionInRange,
                         "cuLaunchHostFunc inside the range with work submitted after it: replays leave host "
                         "functions out, so they could not keep that work's order; end the range before the host "
                         "function, or enqueue it after the range's last work");
  if (eligibility_.declined()) {
    // Over a cap (or a second context): free what was recorded, it will not be replayed.
    ops.clear();
    ops.shrink_to_fit();
  }
}

void RangeRecorder::observe_memory_api(const DriverCallEvent& event) {
  if (event.call == nullptr || !event.call->reason) return;
  // Its bytes are kept at its exit instead (the session's part), or it declines there.
  if (event.call->in_range == InRange::kTrackAndKeep) return;
  // A free declines at its entry (the memory is still there at its exit).
  if (event.entry || event.call->kind != CallKind::kFree)
    eligibility_.decline(*event.call->reason, std::string(event.name) + " inside the range");
}

}  // namespace rangereplay::tool
