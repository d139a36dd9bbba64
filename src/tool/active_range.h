// ActiveRange: everything the tool holds about the range that is open (or
// was just ended and is being replayed): its identity, its decline decision,
// the recorded program, the entry and exit states and the report record it
// fills. Owned by the RangeController (one at a time) and guarded by the
// tool's mutex_.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/base/decline_reason.h"
#include "core/base/memory_range.h"
#include "core/range/range_event.h"
#include "core/record/allocation_inventory.h"
#include "core/record/recorded_program.h"
#include "core/snapshot/write_set.h"
#include "cuda/digest_plan.h"
#include "cuda/snapshot.h"
#include "report/report_model.h"
#include "tool/logic/counter_layout.h"
#include "tool/logic/range_state.h"

namespace rangereplay::tool {

struct ActiveRange {
  std::uint32_t index = 0;  // matched-range number (RangeEvent::match_index)
  std::string name;
  range::RangeSource source = range::RangeSource::kNvtxPushPop;
  CUcontext ctx = nullptr;
  int device = -1;  // ordinal of ctx's device; -1 when unknown
  // What the tool does with it (tool/logic/range_state.h): untouched,
  // recording, collected by an application range replay run, or left alone.
  RangeState state;
  // Stream captures begun inside the range (their work was left out of the
  // recording: it did not execute).
  std::uint32_t captures_begun = 0;
  // A deferred range's record, reserved in the report's ranges at its end
  // and filled when its batch is replayed.
  std::size_t record_index = 0;
  // How its counter values are laid out in the counter ranges of its passes
  // (tool/logic/counter_layout.h): the configured layout at its begin, a
  // counter range of the standing pass once pushed into it, the layout for
  // its kernels once a pass 0 that only recorded ended.
  CounterLayout counters;
  Eligibility eligibility;  // the decline decision (first reason wins)
  RecordedProgram program;
  std::optional<Snapshot> snapshot;  // entry and exit states (multi-pass ranges)
  // Differential restore (--restore differential, the default): a digest
  // plan over the snapshot's entry pieces with the entry digests, built at
  // range entry; absent with --restore full or when it could not be built.
  // Declared after `snapshot`, so it is destroyed first.
  std::optional<DigestPlan> restore_plan;
  // Write-set snapshot (core/snapshot/write_set.h): regions too large to capture
  // whole are digested at entry and after pass 0 and only their predicted
  // chunks are in `snapshot`; absent when every region fits whole.
  struct WriteSetState {
    WriteSetLayout layout;
    // The range index of the instance whose measurement last grew the prediction; nullopt for the
    // first instance of the name (nothing predicted: a learn instance).
    std::optional<std::uint32_t> from_instance;
    // Per region of layout.digested, its allocation's origin (divergences name it).
    std::vector<std::string> digested_origins;
    // Digest-only plan over layout.digested with the entry digests.
    std::optional<DigestPlan> digests;
    // Per chunk of `digests`, the state pass 0 left (read at its end).
    std::vector<std::uint64_t> pass0_digests;
    double entry_digest_ms = 0;  // the entry digests, with their plan's creation
    // A first instance's snapshot holds the chunks that were not zero at entry (nothing was predicted).
    bool non_zero_snapshot = false;
    // Why a first instance's snapshot could not hold the chunks not zero at entry (empty when it did).
    std::string non_zero_unfit;
    // The chunks pass 0 changed outside the snapshot that held only zeros at entry, clipped to
    // each write-set region (a span never crosses two allocations), in region order: each entry
    // restore zeroes them; `zeroed_exit` (their total size, allocated when the proof holds) receives
    // their bytes as pass 0 left them, in span order, for the exit restore.
    std::vector<MemoryRange> zeroed;
    std::unique_ptr<std::byte[]> zeroed_exit;
  };
  std::optional<WriteSetState> write_set;
  std::vector<Allocation> allocations;  // the snapshot's regions, for --verify's report
  // Per region of the --verify digests (restore_plan's, or exit_digests()'s),
  // its index in `allocations`.
  std::vector<std::uint32_t> digest_allocations;
  std::vector<std::uint64_t> exit_chunk_digests;  // --verify with --restore full: range-exit state, per chunk
  // Module-scope __device__ variables used by the range's kernels: their
  // bytes at range entry (captured at the first launch of their module) and
  // at range exit, restored like the snapshot's regions.
  struct GlobalState {
    std::uint64_t address = 0;
    std::vector<std::uint8_t> entry, exit;
  };
  std::vector<GlobalState> globals;
  // Device-mapped pinned host memory at range entry, sorted, kept out of
  // the snapshot; one a kernel is passed a pointer into is captured then
  // and restored like the globals (host_regions.cpp).
  std::vector<MemoryRange> host_mapped;
  std::uint64_t host_captured_bytes = 0;
  // Device memory allocated inside the range (cuMemAlloc, cuMemAllocPitch):
  // its bytes when allocated are kept in `globals` as its entry state
  // (EntrySnapshots::keep_allocation); the sum of their sizes.
  std::uint64_t kept_allocation_bytes = 0;
  // Device memory of other devices at range entry, sorted: out of the
  // snapshot; a kernel passed a pointer into it declines multiple_devices.
  std::vector<MemoryRange> other_device_memory;
  // Device memory another context of the range's device allocated, sorted:
  // out of the snapshot (the tool's copies, in the range's context, cannot
  // reach it); a kernel passed a pointer into it declines multiple_contexts.
  std::vector<MemoryRange> other_context_memory;
  // Its counters were stopped early (close_range_counters): a capture began
  // inside it.
  bool counters_closed = false;
  // --collectives replay: the first collective kernel the range launched
  // (demangled), empty when none.
  std::string collective_kernel;
  // --collectives replay: the barriers the replay window met the other ranks at.
  std::uint32_t rendezvous_barriers = 0;
  // ModuleRegistry::unloads() when the range ended: a replay pass is not
  // submitted once another thread has unloaded a module since.
  std::uint64_t unloads_at_end = 0;
  // Modules without variables loaded inside the range (lazy loading).
  std::uint32_t modules_loaded = 0;
  report::RangeRecord record;
  // When pass 0 began (the end of the range's begin) and when the window
  // began (the range's end).
  std::chrono::steady_clock::time_point pass0_start;
  std::chrono::steady_clock::time_point window_start;
  // The thread the range began on: only its frees replay the range
  // (RangeController::replay_before_free).
  std::thread::id begin_thread;
};

}  // namespace rangereplay::tool
