// ActiveRange: everything the tool holds about the range that is open (or
// was just ended and is being replayed): its identity, its decline decision,
// the recorded program, the entry and exit states and the report record it
// fills. Owned by the RangeController (one at a time) and guarded by the
// tool's mutex_.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/allocation_inventory.h"
#include "core/decline_reason.h"
#include "core/memory_range.h"
#include "core/range/range_event.h"
#include "core/recorded_program.h"
#include "core/write_set.h"
#include "cuda/digest_plan.h"
#include "cuda/snapshot.h"
#include "report/report_model.h"

namespace rangereplay::tool {

struct ActiveRange {
  std::uint32_t index = 0;  // matched-range number (RangeEvent::match_index)
  std::string name;
  range::RangeSource source = range::RangeSource::kNvtxPushPop;
  CUcontext ctx = nullptr;
  int device = -1;        // ordinal of ctx's device; -1 when unknown
  bool profiled = false;  // the range is recorded (pass 0 runs under the tool)
  // Application range replay runs (ProfileConfig::app_range): the range is
  // one this run collects a counter pass of, counted in its own execution
  // and neither recorded nor replayed (`app_range_kernels` lists its
  // launches); or one the run leaves alone, with no record at all.
  bool app_range = false;
  bool left_alone = false;
  std::vector<report::KernelRecord> app_range_kernels;
  // Pass 0 is a counter pass. Per-kernel multi-pass ranges leave it
  // uncounted: the counter image is then sized to the kernels pass 0
  // recorded and every counter pass is a replay.
  bool counting_pass0 = false;
  // Stream captures begun inside the range (their work was left out of the
  // recording: it did not execute).
  std::uint32_t captures_begun = 0;
  // Pass 0 was counted until a capture began in it (its counters were
  // stopped then; every counter pass is a replay).
  bool pass0_stopped_at_capture = false;
  // Its replay may be deferred and batched with other ranges'
  // (--batch-ranges): decided at its begin, as its pass 0 then only
  // records and its snapshot lives in a storage of its own.
  bool deferrable = false;
  // A deferred range's record, reserved in the report's ranges at its end
  // and filled when its batch is replayed.
  std::size_t record_index = 0;
  // Counters for the whole range (one user range per pass) although
  // per-kernel values were asked for: per-kernel multi-pass ranges with a
  // graph launch (CUPTI's auto ranges failed on replayed graph launches).
  bool whole_range_counters = false;
  // Per-kernel values of a range whose pass 0 only recorded come from a user
  // counter range pushed around each replayed kernel (KernelCounterRanges,
  // restore_strategy.h) instead of CUPTI's auto ranges
  // (RANGEREPLAY_KERNEL_RANGES=user).
  bool kernel_counter_ranges = false;
  // Per-kernel values from CUPTI's auto ranges with a cache flush: every
  // replayed pass flushes L2 once more after its counters start, as the
  // pass's first kernel, so that nothing CUPTI's pass start leaves dirty in
  // L2 is written back during the range's first kernel. That flush is the
  // pass's first counter range; its values are dropped (evaluate). (Whole-
  // range counters get the same from a lead-in user range of their own:
  // RangeController::end_whole_range_lead_in.)
  bool lead_in_flush = false;
  // One-pass whole-range metrics: the range is counter range number
  // `standing_counter_range` of the standing pass (user ranges pushed and
  // popped inside one CUPTI pass left open across ranges); its values are
  // decoded when that pass is flushed (flush_standing_pass).
  std::optional<std::size_t> standing_counter_range;
  Eligibility eligibility;  // the decline decision (first reason wins)
  RecordedProgram program;
  std::optional<Snapshot> snapshot;  // entry and exit states (multi-pass ranges)
  // Differential restore (--restore differential, the default): a digest
  // plan over the snapshot's entry pieces with the entry digests, built at
  // range entry; absent with --restore full or when it could not be built.
  // Declared after `snapshot`, so it is destroyed first.
  std::optional<DigestPlan> restore_plan;
  // Write-set snapshot (core/write_set.h): regions too large to capture
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
};

}  // namespace rangereplay::tool
