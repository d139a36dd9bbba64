// Device-mapped pinned host memory in a range. It is not
// in the entry snapshot: host threads (a data loader's pin-memory thread, say)
// may write such buffers while a replay window runs, and restoring them would
// overwrite that; most pinned buffers are only copy sources or targets, which
// the recorded program already handles (host-to-device sources are captured at
// record time, device-to-host copies are not re-executed). A buffer a kernel
// is passed a pointer to can be written by the GPU, so at that kernel's launch
// (its first use in the range) its bytes are captured and then restored like
// the module globals: before every replay, and the exit bytes at the end.
// Found through the argument words (core/record/pointer_scan.h) of direct launches
// and of the kernel nodes of graph launches (their arguments as the exec
// holds them, read at instantiation: graph_recording.cpp); pointers stored in
// device memory, and device-updatable graph nodes, are not seen
// (docs/limitations.md). The same scan finds kernels passed another device's
// memory, which the snapshot leaves out.
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>
#include <variant>

#include "core/base/decline.h"
#include "core/record/pointer_scan.h"
#include "cuda/cu_status.h"
#include "tool/host_regions.h"
#include "tool/module_globals.h"

namespace rangereplay::tool {

namespace {
// A pinned buffer is copied twice (entry and exit) into host memory: larger
// ones decline the range (snapshot_does_not_fit) rather than risk the
// application's memory.
constexpr std::uint64_t kMaxHostRegionBytes = std::uint64_t{1} << 30;

// One kernel's part of scan_kernel_pointers; `stream` is its launch's.
// `what` names it in decline details ("kernel", "graph kernel"). Errors:
// the capture failed (resource_exhausted for a buffer over the size the
// tool copies).
Status scan_arguments(ActiveRange& range, const KernelLaunchOp& kernel, CUstream stream, const char* what,
                      bool capture_open) {
  const std::span<const MemoryRange> mapped(range.host_mapped);
  const std::span<const MemoryRange> other_device(range.other_device_memory);
  if (const auto hits = ranges_pointed_into(kernel.arg_bytes, other_device); !hits.empty()) {
    char where[32];
    std::snprintf(where, sizeof where, "0x%llx",
                  static_cast<unsigned long long>(other_device[hits.front()].start().address()));
    range.eligibility.decline(DeclineReason::kMultipleDevices,
                              std::string(what) + " " + kernel.name +
                                  " is passed memory allocated on another device (at " + where +
                                  ") inside a range on device " + std::to_string(range.device));
    return ok_status();
  }
  if (const auto hits = ranges_pointed_into(kernel.arg_bytes, std::span<const MemoryRange>(range.other_context_memory));
      !hits.empty()) {
    char where[32];
    std::snprintf(where, sizeof where, "0x%llx",
                  static_cast<unsigned long long>(range.other_context_memory[hits.front()].start().address()));
    range.eligibility.decline(
        DeclineReason::kMultipleContexts,
        std::string(what) + " " + kernel.name + " is passed memory another context allocated (at " + where + ")");
    return ok_status();
  }
  bool settled = false;
  for (std::size_t index : ranges_pointed_into(kernel.arg_bytes, mapped)) {
    const MemoryRange& r = mapped[index];
    if (holds_global_state(range, r.start().address())) continue;
    if (r.size() > kMaxHostRegionBytes)
      return resource_exhausted("pinned buffer of " + std::to_string(r.size() >> 20) + " MiB passed to " + what + " " +
                                kernel.name + " is larger than the " + std::to_string(kMaxHostRegionBytes >> 20) +
                                " MiB the tool copies per buffer; narrow the range")
          .with_decline_reason(DeclineReason::kSnapshotDoesNotFit);
    // The synchronize and the copy below are calls an open capture forbids
    // (from any thread, in global mode): the application's graph would be
    // invalidated.
    if (capture_open)
      return failed_precondition("pinned buffer passed to " + std::string(what) + " " + kernel.name +
                                 " while a stream capture was open: copying it would invalidate the capture")
          .with_decline_reason(DeclineReason::kStreamCaptureActive);
    // Settle the launch stream's earlier work (a device-to-host copy into
    // the buffer may still be in flight) so these are the bytes this kernel
    // would find; the launch itself is not enqueued yet. Only that stream,
    // as far as the driver allows: the range lock is held, and work on other
    // streams may wait for application threads that wait for the lock. (For
    // the legacy default stream, where <<<>>> launches go by default, the
    // driver waits for every blocking stream of the context as well; the
    // capture's device-to-host copy below is synchronous on that stream too.)
    if (!settled) RR_CU(cuStreamSynchronize(stream));
    settled = true;
    RR_RETURN_IF_ERROR(capture_global_state(range, r.start().address(), r.size()));
    range.host_captured_bytes += r.size();
  }
  return ok_status();
}

}  // namespace

void scan_kernel_pointers(ActiveRange& range, std::size_t first_new, bool per_thread_stream, bool capture_open) {
  if (range.host_mapped.empty() && range.other_device_memory.empty() && range.other_context_memory.empty()) return;
  const auto stream_of = [&](std::uint64_t handle) {
    CUstream stream = reinterpret_cast<CUstream>(handle);
    return stream == nullptr && per_thread_stream ? CU_STREAM_PER_THREAD : stream;
  };
  Status s;
  const auto& ops = range.program.ops;
  for (std::size_t i = first_new; i < ops.size() && s.ok() && !range.eligibility.declined(); ++i) {
    if (const auto* launch = std::get_if<KernelLaunchOp>(&ops[i])) {
      s = scan_arguments(range, *launch, stream_of(launch->stream), "kernel", capture_open);
      continue;
    }
    const auto* graph = std::get_if<GraphLaunchOp>(&ops[i]);
    if (graph == nullptr || !graph->kernels) continue;
    // The exec's kernel nodes run in this order, all after the graph
    // launch's earlier stream work: capturing at the launch gives each buffer
    // the bytes its first node in the graph finds.
    for (const KernelLaunchOp& k : *graph->kernels) {
      if (!k.arguments_unknown.empty()) {
        // Today's documented gap for such nodes (docs/limitations.md).
        std::string note = "graph kernel " + k.name + ": arguments not scanned for pinned host memory (" +
                           k.arguments_unknown + "); pinned memory it writes is not restored before replays";
        auto& notes = range.record.notes;
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(std::move(note));
        continue;
      }
      s = scan_arguments(range, k, stream_of(graph->stream), "graph kernel", capture_open);
      if (!s.ok() || range.eligibility.declined()) break;
    }
  }
  if (!s.ok()) {
    const Decline failed = decline_of(s, DeclineReason::kReplayFailed);
    range.eligibility.decline(failed.reason,
                              "pinned host memory passed to a kernel could not be captured: " + failed.detail);
  }
}

}  // namespace rangereplay::tool
