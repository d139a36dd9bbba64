// Snapshot: a range's snapshot states (entry and exit) placed by the storage
// planner and copied by the batched copy engine.
//
//   SnapshotStorage storage(options, ctx);            // once per process: the tier chain
//   ...
//   // range entry (regions: the allocation inventory, inventory locked):
//   RR_ASSIGN_OR_RETURN(Snapshot snap, Snapshot::create(storage, regions, kSnapshotStates, stream));
//   RR_RETURN_IF_ERROR(snap.capture(SnapshotState::kEntry, stream));
//   // end of pass 0:
//   RR_RETURN_IF_ERROR(snap.capture(SnapshotState::kExit, stream));
//   // before every replayed pass:
//   RR_RETURN_IF_ERROR(snap.restore(SnapshotState::kEntry, stream));
//   // end of the window (the application's own range-exit memory):
//   RR_RETURN_IF_ERROR(snap.restore(SnapshotState::kExit, stream));
//   record.tiers = snap.tiers();
//   // destroying `snap` ends the storage's range; retained arenas stay.
//
// How the states share the storage: ONE plan in which every region is
// requested once per state, the entry state at a higher priority than the
// exit state. So one plan_and_commit places both, each tier holds one arena
// for both (retain mode reuses it for the next range), the entry state (restored
// before every pass) gets the device tier first and the exit state (restored
// once) spills to pinned host memory first, and a snapshot that does not fit
// is known at range entry, before any replay. Each state gets its own
// CopyPlan (its own work stream), built once and reused by every pass.
//
// Tiers, in chain order: 0 "device" (cuMemAlloc; PrefixChunking on a 2 MiB
// granule, so a region may continue on the next tier), 1 "pinned"
// (cuMemHostAlloc; WholeRegion), then the NullAllocator. Both bump-allocate at
// 256-byte offsets from an arena base aligned to at least 256 bytes, so a
// piece's arena address is congruent to its application address modulo 16
// whenever the region starts 16-byte aligned (every cuMemAlloc region does);
// pieces of regions that do not are copied with narrower vectors, counted in
// narrow_items(). Pinned pieces are copied as CopyPlanOptions says (the copy
// engines by default).
//
// Thread-safety: none; the caller serializes all calls on one storage and its
// snapshots (the tool's lock). A storage holds at most one live Snapshot.
#pragma once

#include <cuda.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/memory_range.h"
#include "core/base/status.h"
#include "core/snapshot/storage/snapshot_storage.h"
#include "core/snapshot/storage/state_layout.h"
#include "cuda/copy_plan.h"
#include "cuda/storage_backings.h"

namespace rangereplay {

/// One state of a range's memory.
enum class SnapshotState : std::uint8_t {
  kEntry = 0,  // at range entry: restored before every replayed pass
  kExit = 1,   // the application's own range exit: restored at the end of the window
};
/// States a multi-pass range needs.
inline constexpr std::size_t kSnapshotStates = 2;

/// Snapshot bytes one storage tier holds for a range (the report's
/// report::TierUsage has the same fields; the tool copies them there).
struct SnapshotTierUsage {
  std::string tier;               // the tier's name: "device", "pinned"
  std::uint64_t bytes = 0;        // snapshot bytes placed on this tier (all states)
  std::uint64_t arena_bytes = 0;  // size of the tier's arena
  bool new_allocation = false;    // false when a retained arena was reused
  friend bool operator==(const SnapshotTierUsage&, const SnapshotTierUsage&) = default;
};

struct SnapshotOptions {
  std::uint64_t device_limit_bytes = 0;                  // user cap on the device tier; 0 = none
  std::uint64_t host_limit_bytes = 0;                    // user cap on the pinned tier; 0 = none
  std::uint64_t granule_bytes = std::uint64_t{2} << 20;  // device tier's prefix-chunking granule, > 0
  std::uint64_t alignment_bytes = 256;  // bump alignment of both tiers: a power of two, <= kBackingAlignment
  std::uint32_t growth_divisor = kDefaultGrowthDivisor;  // retain hysteresis (storage_backings.h)
  CopyPlanOptions copy;                                  // pinned copy method (default kCopyEngine), piece size
};

/// The process-long tier chain. Construct once (per profiled context) and
/// keep it: its retained arenas are reused by later ranges. Frees every arena
/// on destruction; no Snapshot created from it may outlive it.
class SnapshotStorage {
 public:
  using DeviceTier = storage::Arena<storage::PrefixChunking, storage::BumpSuballocator, CuDeviceBacking>;
  using PinnedTier = storage::Arena<storage::WholeRegion, storage::BumpSuballocator, CuPinnedBacking>;
  using Chain = storage::FallbackAllocator<DeviceTier, PinnedTier, storage::NullAllocator>;
  /// Chain indices (Placement::tier).
  static constexpr std::size_t kDeviceTier = 0;
  static constexpr std::size_t kPinnedTier = 1;

  /// context: the context whose memory backs the tiers (nullptr: the current
  /// one at each call). Allocates nothing yet.
  SnapshotStorage(const SnapshotOptions& options, CUcontext context);
  SnapshotStorage(const SnapshotStorage&) = delete;
  SnapshotStorage& operator=(const SnapshotStorage&) = delete;
  ~SnapshotStorage();

  const SnapshotOptions& options() const { return options_; }
  /// Bytes of the arena tier `tier` holds now (retained between ranges), 0: none.
  std::uint64_t arena_bytes(std::size_t tier);
  /// True while a Snapshot created from this storage is alive.
  bool in_use() const { return in_use_; }
  /// Frees every arena, retained or not. failed_precondition while in_use().
  Status release();

 private:
  friend class Snapshot;
  SnapshotOptions options_;
  Chain chain_;
  bool in_use_ = false;
};

/// The snapshot states of one range (see the file comment).
class Snapshot {
 public:
  /// Plans `state_count` (1 or 2; state s < state_count) copies of `regions`
  /// in `storage`, commits the tiers that received bytes and builds one
  /// CopyPlan per state, uploading its work stream on `stream` (so the first
  /// capture on `stream` is ordered after it). Captures nothing.
  /// regions: the application's, pairwise disjoint, any size (empty ones are
  /// skipped) and alignment. Needs `storage`'s context current.
  /// Errors: kResourceExhausted with the planner's message (the region that
  /// fits nowhere and the shortfall) or when a copy plan's device buffer
  /// cannot be allocated, carrying DeclineReason::kSnapshotDoesNotFit;
  /// kFailedPrecondition when another snapshot of `storage` is alive;
  /// kInvalidArgument for a bad state count or overlapping regions;
  /// kInternal for other driver errors.
  static StatusOr<Snapshot> create(SnapshotStorage& storage, std::span<const MemoryRange> regions,
                                   std::size_t state_count, CUstream stream);

  /// A moved-from snapshot fails every call and ends no range.
  Snapshot(Snapshot&&) noexcept = default;
  Snapshot& operator=(Snapshot&&) noexcept = default;
  /// Waits for this snapshot's last copies (events), frees its copy plans and
  /// ends the storage's range (retained arenas stay for the next range).
  ~Snapshot() {
    copy_plans_.clear();
    for (std::unique_ptr<CopyPlan>& plan : engine_plans_) plan.reset();
  }

  /// Copies the regions into `state`'s storage. Asynchronous on `stream`
  /// (a stream of the storage's context). Errors: kInvalidArgument for a
  /// state not planned; kInternal when a launch or copy is rejected.
  Status capture(SnapshotState state, CUstream stream);
  /// Copies `state`'s storage back into the regions. Same contract as capture().
  Status restore(SnapshotState state, CUstream stream);
  /// Builds `state`'s copy-engine plan: the spans of its copy plan, every one
  /// copied by the copy engines (CopyPlanOptions::device_by_copy_engines), so
  /// that restore_by_copy_engines() launches no kernel. A second call for a
  /// state does nothing. Needs the storage's context current. Errors:
  /// kInvalidArgument for a state not planned; CopyPlan::create's.
  Status plan_copy_engine_restore(SnapshotState state, CUstream stream);
  /// restore() through `state`'s copy-engine plan: the same bytes, copied by
  /// the copy engines only. Errors: kFailedPrecondition before
  /// plan_copy_engine_restore(state); else restore()'s.
  Status restore_by_copy_engines(SnapshotState state, CUstream stream);

  /// Bytes of one state: the sum of the region sizes (what a restore moves).
  std::uint64_t bytes() const { return bytes_; }
  std::size_t state_count() const { return copy_plans_.size(); }
  /// Per tier that holds bytes of this snapshot (all states), chain order:
  /// name, bytes, arena bytes, and whether this plan allocated the arena
  /// (false: a retained arena was reused).
  std::vector<SnapshotTierUsage> tiers() const;
  /// The storage plan (placements of every state, per-tier outcomes, notes).
  const storage::StoragePlan& plan() const { return plan_; }
  /// The pieces of `state` (empty for a state not planned): the application's
  /// bytes and the device-accessible address of their copy (a device arena or
  /// mapped pinned memory), in region order. Differential restore builds its
  /// DigestRegions from the entry state's pieces.
  std::span<const storage::StatePiece> pieces(SnapshotState state) const;
  /// The largest span of one tier's arena holding pieces of `state` only,
  /// its end rounded up to `end_alignment` within the arena
  /// (StateLayout::exclusive_span); nullopt for a state not planned or
  /// without one. Differential restore packs the exit state's changed chunks
  /// there (DigestPlan::capture_changed, kernels::kExitSlotAlignment).
  std::optional<storage::ArenaSpan> exclusive_span(SnapshotState state, std::uint64_t end_alignment = 1) const;
  /// The copy plan of `state` (stats: kernel/copy-engine bytes, items).
  const CopyPlan& copy_plan(SnapshotState state) const;
  /// Work items of all states moved with vectors under 16 bytes (0 when every
  /// region starts 16-byte aligned).
  std::uint64_t narrow_items() const;

 private:
  // create() less the decline reason of a snapshot that does not fit.
  static StatusOr<Snapshot> plan_and_allocate(SnapshotStorage& storage, std::span<const MemoryRange> regions,
                                              std::size_t state_count, CUstream stream);
  Snapshot() = default;
  Status check_state(SnapshotState state) const;
  // `state`'s spans per tier (chain order), as CopyPlan::create takes them.
  std::vector<ArenaCopyList> arena_lists(std::size_t state) const;

  /// Ends the range of the storage a snapshot used (its arenas are free for
  /// the next snapshot; retained ones stay allocated).
  struct EndStorageRange {
    void operator()(SnapshotStorage* storage) const noexcept;
  };

  storage::StoragePlan plan_;
  storage::StateLayout layout_;       // plan_'s placements per state
  std::vector<CopyPlan> copy_plans_;  // one per state
  // Per state, its copy-engine plan once plan_copy_engine_restore() built it.
  std::array<std::unique_ptr<CopyPlan>, kSnapshotStates> engine_plans_;
  std::uint64_t bytes_ = 0;
  // The storage whose range this snapshot holds (null once moved from).
  // Declared after the plans: a move assignment frees the plans it replaces
  // (each waiting for its last copies) before it ends their storage's range,
  // as the destructor does (it frees the plans first).
  std::unique_ptr<SnapshotStorage, EndStorageRange> storage_;
};

}  // namespace rangereplay
