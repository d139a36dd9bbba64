// Device-mapped pinned host memory in a range (MISSION.md point 4). It is not
// in the entry snapshot: host threads (a data loader's pin-memory thread, say)
// may write such buffers while a replay window runs, and restoring them would
// overwrite that; most pinned buffers are only copy sources or targets, which
// the recorded program already handles (host-to-device sources are captured at
// record time, device-to-host copies are not re-executed). A buffer a kernel
// is passed a pointer to can be written by the GPU, so at that kernel's launch
// (its first use in the range) its bytes are captured and then restored like
// the module globals: before every replay, and the exit bytes at the end.
// Found through the argument words (core/pointer_scan.h); pointers stored in
// device memory are not seen (docs/limitations.md). The same scan finds
// kernels passed another device's memory, which the snapshot leaves out.
#include <cuda.h>

#include <cstdio>
#include <span>

#include "core/pointer_scan.h"
#include "cuda/cu_status.h"
#include "tool/profiler_tool.h"

namespace rangereplay::tool {

namespace {
// A pinned buffer is copied twice (entry and exit) into host memory: larger
// ones decline the range (snapshot_does_not_fit) rather than risk the
// application's memory.
constexpr std::uint64_t kMaxHostRegionBytes = std::uint64_t{1} << 30;
}  // namespace

Status ProfilerTool::scan_kernel_pointers(std::size_t first_new, bool per_thread_stream) {
  const std::span<const MemoryRange> mapped(active_->host_mapped);
  const std::span<const MemoryRange> other_device(active_->other_device_memory);
  if (mapped.empty() && other_device.empty()) return ok_status();
  for (std::size_t i = first_new; i < active_->program.ops.size(); ++i) {
    const auto* launch = std::get_if<KernelLaunchOp>(&active_->program.ops[i]);
    if (launch == nullptr) continue;
    if (const auto hits = ranges_pointed_into(launch->arg_bytes, other_device); !hits.empty()) {
      char where[32];
      std::snprintf(where, sizeof where, "0x%llx",
                    static_cast<unsigned long long>(other_device[hits.front()].start().address()));
      decline(*active_, DeclineReason::kMultipleDevices,
              "kernel " + launch->name + " is passed memory allocated on another device (at " + where +
                  ") inside a range on device " + std::to_string(active_->device));
      return ok_status();
    }
    for (std::size_t index : ranges_pointed_into(launch->arg_bytes, mapped)) {
      const MemoryRange& r = mapped[index];
      if (holds_global_state(r.start().address())) continue;
      if (r.size() > kMaxHostRegionBytes)
        return resource_exhausted("pinned buffer of " + std::to_string(r.size() >> 20) +
                                  " MiB passed to kernel " + launch->name + " is larger than the " +
                                  std::to_string(kMaxHostRegionBytes >> 20) +
                                  " MiB the tool copies per buffer; narrow the range");
      // Settle the launch stream's earlier work (a device-to-host copy into
      // the buffer may still be in flight) so these are the bytes this kernel
      // would find; the launch itself is not enqueued yet. Only that stream:
      // the range lock is held, and work on other streams may wait for
      // application threads that wait for the lock.
      CUstream stream = reinterpret_cast<CUstream>(launch->stream);
      if (stream == nullptr && per_thread_stream) stream = CU_STREAM_PER_THREAD;
      RR_CU(cuStreamSynchronize(stream));
      RR_RETURN_IF_ERROR(capture_global_state(r.start().address(), r.size()));
      active_->host_captured_bytes += r.size();
    }
  }
  return ok_status();
}

}  // namespace rangereplay::tool
