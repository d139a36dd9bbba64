// EntrySnapshots: the entry-state side of the range controller
// (range_controller.h). At a range's begin it splits the inventory into the
// range's snapshot regions, captures their entry state in the snapshot tiers
// (cuda/snapshot.h) and plans the differential restore (the entry digests);
// a snapshot that does not fit whole becomes a write-set snapshot
// (core/snapshot/write_set.h), proven by digests after pass 0 and checked again after
// the replay window. It owns what lives across ranges for that: the snapshot
// storages (the process's, and one per deferred range) with their retained
// arenas, and the write-set predictions per range name. The controller
// decides when each step runs; the state it builds is the range's
// (ActiveRange: snapshot, restore_plan, write_set, allocations).
//
// Thread-safety: called with the tool's lock held (the controller's callers
// hold it) and inside an InToolScope. It waits for the GPU (snapshot copies,
// digests on the tool's stream) and takes the inventory's leaf lock to
// select regions, never the tool's lock of another thread. Nothing here
// throws: failures become the range's decline or a note in its record.
#pragma once

#include <cuda.h>

#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/base/decline.h"
#include "core/base/memory_range.h"
#include "core/base/status.h"
#include "core/config/profile_config.h"
#include "core/record/allocation_inventory.h"
#include "core/snapshot/write_set.h"
#include "cuda/snapshot.h"
#include "report/report_model.h"
#include "tool/active_range.h"
#include "tool/logic/tool_mutex.h"
#include "tool/restore_strategy.h"

namespace rangereplay::tool {

/// What the entry snapshots use of the tool around them; every reference
/// outlives them.
struct EntrySnapshotsParts {
  /// The configuration (snapshot limits, --restore, --quiet; read when used).
  const ProfileConfig& config;
  /// Split into snapshot regions under its lock.
  AllocationInventory& inventory;
  /// The process's report: the write-set check's errors.
  report::Report& report;
  /// The tool's lock, held by every caller; the snapshot names its stage.
  ToolMutex& mutex;
  /// The tool's stream (the range controller's, created with the counters;
  /// null before): snapshot copies, digests and restores run on it.
  const CUstream& tool_stream;
};

class EntrySnapshots {
 public:
  explicit EntrySnapshots(EntrySnapshotsParts parts)
      : parts_{parts.config, parts.inventory, parts.report, parts.mutex}, tool_stream_(parts.tool_stream) {}
  EntrySnapshots(const EntrySnapshots&) = delete;
  EntrySnapshots& operator=(const EntrySnapshots&) = delete;

  /// The entry snapshot over the regions `range`'s device can write (in
  /// range.snapshot, range.allocations and the other memory lists), with
  /// the differential restore plan under --restore differential; its notes,
  /// tiers and sizes into the range's record. With `allow_write_set`, a
  /// snapshot that does not fit whole becomes a write-set snapshot
  /// (range.write_set set). Returns the range's decline: snapshot_does_not_fit
  /// (from the snapshot's plan), replay_failed for a failing copy.
  std::optional<Decline> capture_entry_state(ActiveRange& range, bool allow_write_set);
  /// At the end of pass 0 (drained) of a write-set range: digests the
  /// write-set regions again, grows the prediction by the chunks that
  /// changed, and declines (write_set_learned, write_set_exceeded) unless
  /// every one was in the snapshot or held only zeros at entry (at most
  /// 1 GiB of those, restored by zeroing: range.write_set's `zeroed`);
  /// otherwise notes the policy in the record.
  std::optional<Decline> prove_write_set(ActiveRange& range);
  /// After the replay window of a write-set range restored the exit state:
  /// digests the write-set regions once more and reports chunks the replays
  /// changed outside the snapshot (memory the exit restore could not put
  /// back) in the record's notes and the report's errors.
  void check_write_set_after_window(ActiveRange& range);
  /// The capture and restore of `range`'s module variables and pinned
  /// buffers (module_globals.h) and of its zeroed write-set chunks
  /// (capture_zeroed_exit, restore_zeroed) on the tool's stream, for its
  /// restore strategy. `range` must outlive the returned functions.
  RangeGlobals range_globals(ActiveRange& range);
  /// Device memory `region` that `call` (cuMemAlloc, cuMemAllocPitch)
  /// allocated inside `range` while it records: the snapshot taken at the
  /// range's entry does not hold it, so its bytes now, before any of the
  /// range's work can use it, are copied to the host (on the tool's stream,
  /// which waits for no application work) as its entry state and restored
  /// with the module variables before every replay; its exit bytes are
  /// taken at the window's start (range.globals). A range without a snapshot
  /// (it is not replayed) keeps nothing. Declines allocation_in_range when
  /// a stream capture is open (`capture_open`: the copy would invalidate
  /// it), when the range's allocations pass 512 MiB (or half of
  /// --snapshot-host-limit: two host copies each), or when the copy fails.
  /// Caller holds the tool's lock and InToolScope.
  /// Also declines for memory of another context than the range's (`ctx`:
  /// the allocating call's), and when the two copies would take more than
  /// half of the host memory /proc/meminfo gives as available.
  void keep_allocation(ActiveRange& range, const MemoryRange& region, std::string_view call, CUcontext ctx,
                       bool capture_open);
  /// Idle batch storages (no deferred range's snapshot in them) give their
  /// retained arenas back, but the first.
  void release_idle_batch_storage();
  /// Device bytes a flush of the deferred ranges and release_idle_storage()
  /// could give back: the device arenas of the storages no snapshot uses
  /// now, and with `with_batch_snapshots` those of the batch storages in use
  /// (deferred ranges' snapshots, and the open range's when it is
  /// deferrable: an overcount only). 0 when none.
  std::uint64_t releasable_device_bytes(bool with_batch_snapshots);
  /// Every storage no snapshot uses frees its arenas (device and pinned);
  /// the next snapshot allocates again. Call with the profiled context
  /// current.
  void release_idle_storage();

 private:
  // The parts but the stream, under the names the members read them by.
  struct Parts {
    const ProfileConfig& config;
    AllocationInventory& inventory;
    report::Report& report;
    ToolMutex& mutex;
  };

  // Splits the inventory for a range: its snapshot regions (returned, and
  // range.allocations), pinned or host-attached memory (range.host_mapped),
  // other devices' memory (range.other_device_memory). Takes the
  // inventory's lock.
  std::vector<MemoryRange> select_snapshot_regions(ActiveRange& range);
  // Builds range.restore_plan over the entry snapshot just captured and
  // digests the entry state; on failure leaves it empty (full restore) with
  // a note in the range's record.
  void plan_differential_restore(ActiveRange& range);
  // Write-set snapshots (write_set_snapshot.cpp, core/snapshot/write_set.h). After
  // `regions` did not fit whole: switches the largest regions (of 64 MiB or
  // more, at most 8) one at a time to their predicted chunks until the
  // snapshot fits, rebuilding range.allocations as the snapshot's regions
  // and filling range.write_set. A first instance (nothing predicted) holds
  // the chunks not zero at entry instead, when they fit.
  // Errors: the last attempt's (snapshot_does_not_fit when none fits), or
  // snapshot_non_zero_chunks'.
  StatusOr<Snapshot> create_write_set_snapshot(ActiveRange& range, const std::vector<MemoryRange>& regions);
  // A first instance's write-set layout (range.write_set, with `snap`
  // planned for it) becomes the chunks that are not zero at entry, digested
  // here: `snap` is planned again for them, or again as it was when they do
  // not fit (the reason in non_zero_unfit). Errors: the digests' or a
  // snapshot plan's other than snapshot_does_not_fit.
  Status snapshot_non_zero_chunks(ActiveRange& range, std::span<const MemoryRange> regions, StatusOr<Snapshot>& snap);
  // The digest-only plan over the write-set regions and their entry digests
  // (call at entry, nothing written since; a second call does nothing).
  Status digest_write_set_entry(ActiveRange& range);
  // The exit bytes of a write-set range's zeroed chunks (range.write_set's
  // `zeroed`), copied to the host at the start of its replay window, and
  // their restore: zeros at entry, those bytes at exit (queued on the tool's
  // stream). Nothing for other ranges.
  Status capture_zeroed_exit(ActiveRange& range);
  Status restore_zeroed(ActiveRange& range, bool exit_state);
  // The snapshot storage of the range beginning now: the process's, or for
  // a deferrable range the first batch storage no snapshot uses.
  SnapshotStorage& storage_for(const ActiveRange& range);

  Parts parts_;
  const CUstream& tool_stream_;
  // Write-set predictions per range name (core/snapshot/write_set.h).
  WriteSetPredictor write_sets_;
  // Snapshot tiers for the process: retained arenas are reused across ranges.
  std::unique_ptr<SnapshotStorage> snapshot_storage_;
  // One snapshot storage per deferred range (retained across batches).
  std::vector<std::unique_ptr<SnapshotStorage>> batch_storage_;
};

}  // namespace rangereplay::tool
