// RangeRecorder: records a range's pass 0 from the driver calls made inside
// it, decoded into plain events (DriverCallEvent), and decides its
// eligibility: kernel launches with their argument bytes, graph launches,
// memsets and copies become the range's RecordedProgram; a call the
// recording leaves out, an allocation, a free, an untracked copy or a cap
// reached declines the range (Eligibility, with a reason and a detail).
//
// It makes no CUDA call: the tool's RecordSession (tool/record_session.h),
// which builds one per recorded call, does the CUDA-facing parts (copying a
// kernel's arguments by its parameter layout, snapshotting module variables
// and pinned buffers a kernel is passed, the device of a second context)
// and hands it their results. It works on the program and eligibility of
// one range (ActiveRange's), which it does not own, and reads the
// allocation inventory to give a copy its direction.
//
// Thread-safety: none; the record session calls it under the tool's lock,
// the lock that orders the range's recorded operations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "core/base/decline_reason.h"
#include "core/base/status.h"
#include "core/record/allocation_inventory.h"
#include "core/record/recorded_program.h"
#include "tool/logic/driver_calls.h"

namespace rangereplay::tool {

/// One driver call made while a range is open, as the recorder sees it.
struct DriverCallEvent {
  /// Its row of the table (driver_calls.h); null for a call without one.
  const DriverCall* call = nullptr;
  /// The call's name as CUPTI reports it (decline details).
  std::string_view name;
  /// Made at the API's entry (false: its exit).
  bool entry = true;
  /// Memsets and copies: what they write and read.
  MemoryOpParams memory;
  /// Kernel launches: the launch with its arguments copied at the call, and
  /// whether they could be copied (an error: why not).
  KernelLaunchOp kernel;
  Status arguments;
};

class RangeRecorder {
 public:
  /// Records into `program` and declines through `eligibility` (both the
  /// open range's); `inventory` tells device, pinned host and untracked
  /// memory apart; `device_memory(address)`, when given, whether an untracked
  /// address is device memory the host cannot read (memory of another
  /// allocator, an IPC or interop mapping; not managed memory), which a
  /// copy's source must not be read on the host as; without it an untracked
  /// source is host memory.
  RangeRecorder(RecordedProgram& program, Eligibility& eligibility, const AllocationInventory& inventory,
                std::function<bool(std::uint64_t)> device_memory = {})
      : program_(program), eligibility_(eligibility), inventory_(inventory), device_memory_(std::move(device_memory)) {}

  /// A call inside the range at its entry (the range is not declined and
  /// the call comes from the range's context; the tool checks both). A row
  /// of kind kKernelLaunch, kMemset or kCopy* is recorded (a launch whose
  /// arguments could not be copied declines unsupported_api); a row that
  /// declines, or a call without a row of a family of GPU work, declines
  /// (core/record/unrecorded_work.h); anything else is passed through. Calls into
  /// a capturing stream never come here: a range open when a capture begins
  /// is declined then, and one cannot begin while a capture is open. Returns false when a host function or a
  /// multi-device launch declined the range by its row (what the range
  /// recorded is then kept as it is, and after_call must not follow); true
  /// otherwise (after_call follows, and frees the recording of a declined
  /// range).
  bool record(const DriverCallEvent& event);

  /// A graph launch the tool judged replayable (its exec known and its
  /// nodes supported, graph_recording.cpp).
  void record_graph_launch(GraphLaunchOp op);

  /// After a call was recorded from op index `first` on, in context
  /// `context` on device `device` (opaque ids): counts the new operations
  /// against the range's caps and the host bytes they captured, and frees
  /// what was recorded once the range is declined (over a cap, or a second
  /// context): it will not be replayed.
  void after_call(std::size_t first, std::uint64_t context, int device);

  /// An allocation or free row's call while the range is open, at either
  /// site: declines allocation_in_range, or free_in_range for a free at its
  /// entry, with detail "<name> inside the range"; a kTrackAndKeep row
  /// (cuMemAlloc, cuMemAllocPitch) declines nothing here (the session keeps
  /// its bytes at its exit, or declines there). Calls into a capturing
  /// stream (graph memory nodes) are filtered out by the tool before this.
  void observe_memory_api(const DriverCallEvent& event);

 private:
  void record_memory_op(CallKind kind, const MemoryOpParams& p, std::string_view name);
  // A copy's host source bytes, captured as the copy reads them, unless they
  // would take the range over the captured-host-bytes cap (then it declines
  // host_data_too_large without copying).
  void capture_host_copy(std::uint64_t dst, const void* src, std::uint64_t bytes);
  // Tracked pinned host memory contains `address`.
  bool in_pinned(std::uint64_t address) const;

  RecordedProgram& program_;
  Eligibility& eligibility_;
  const AllocationInventory& inventory_;
  std::function<bool(std::uint64_t)> device_memory_;
};

}  // namespace rangereplay::tool
