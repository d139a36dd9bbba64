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

Status ProfilerTool::track_host_regions(std::size_t first_new) {
  if (active_->host_mapped.empty()) return ok_status();
  const std::span<const MemoryRange> mapped(active_->host_mapped);
  for (std::size_t i = first_new; i < active_->program.ops.size(); ++i) {
    const auto* launch = std::get_if<KernelLaunchOp>(&active_->program.ops[i]);
    if (launch == nullptr) continue;
    for (std::size_t index : ranges_pointed_into(launch->arg_bytes, mapped)) {
      const MemoryRange& r = mapped[index];
      bool known = false;
      for (const auto& g : active_->globals) known = known || g.address == r.start().address();
      if (known) continue;
      // Settle earlier work of every stream (a device-to-host copy into the
      // buffer may still be in flight) so these are the bytes this kernel
      // would find; the launch itself is not enqueued yet.
      RR_CU(cuCtxSynchronize());
      ActiveRange::GlobalState state;
      state.address = r.start().address();
      state.entry.resize(r.size());
      RR_CU(cuMemcpyDtoH(state.entry.data(), state.address, state.entry.size()));
      active_->host_captured_bytes += r.size();
      active_->globals.push_back(std::move(state));
    }
  }
  return ok_status();
}

void ProfilerTool::check_other_device_pointers(std::size_t first_new) {
  if (active_->other_device_memory.empty()) return;
  for (std::size_t i = first_new; i < active_->program.ops.size(); ++i) {
    const auto* launch = std::get_if<KernelLaunchOp>(&active_->program.ops[i]);
    if (launch == nullptr) continue;
    const auto hits = ranges_pointed_into(launch->arg_bytes, active_->other_device_memory);
    if (hits.empty()) continue;
    char where[32];
    std::snprintf(where, sizeof where, "0x%llx",
                  static_cast<unsigned long long>(active_->other_device_memory[hits.front()].start().address()));
    decline(*active_, DeclineReason::kMultipleDevices,
            "kernel " + launch->name + " is passed memory allocated on another device (at " + where +
                ") inside a range on device " + std::to_string(active_->device));
    return;
  }
}

}  // namespace rangereplay::tool
