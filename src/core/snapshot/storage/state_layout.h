// StateLayout: where each snapshot state's bytes went, piece by piece, read
// off one StoragePlan in which every region was requested once per state.
//
// The Snapshot (cuda/snapshot.h) plans its entry and exit states together:
// the requests are, for state 0, 1, ..., one request per non-empty region in
// region order, earlier states at higher priority. The planner answers with
// placements in priority, then request, then tier order (storage_plan.h), so
// the placements split into states by walking the requests in that order.
// Both the copy plans (one per state) and the digest plan of differential
// restore (one DigestRegion per entry piece) are built from this one walk.
//
//   RR_ASSIGN_OR_RETURN(StateLayout layout, StateLayout::build(plan, regions, 2));
//   for (const StatePiece& p : layout.pieces(0)) ...   // entry state: app bytes -> p.copy
//   std::optional<ArenaSpan> exit_arena = layout.exclusive_span(1);
//
// No CUDA here: tested without a GPU. Thread-safety: an immutable value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/base/memory_range.h"
#include "core/base/status.h"
#include "core/snapshot/storage/storage_plan.h"

namespace rangereplay::storage {

/// One contiguous piece of one state: the application's bytes `app` are
/// copied to `copy` (the tier's arena address + arena_offset: a device
/// address, or the device pointer of mapped pinned memory).
struct StatePiece {
  MemoryRange app;
  std::size_t tier = 0;
  std::uint64_t arena_offset = 0;
  std::uint64_t copy = 0;
  std::uint32_t region = 0;  // index into the `regions` given to build()
  friend bool operator==(const StatePiece&, const StatePiece&) = default;
};

/// Bytes of one tier's arena: [address, address + bytes).
struct ArenaSpan {
  std::size_t tier = 0;
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  friend bool operator==(const ArenaSpan&, const ArenaSpan&) = default;
};

class StateLayout {
 public:
  StateLayout() = default;

  /// Splits `plan`'s placements into `state_count` (>= 1) states of
  /// `regions` (the regions requested, in request order; empty ones were not
  /// requested and have no pieces).
  /// Errors: kInvalidArgument for state_count 0; kInternal when the plan's
  /// placements do not follow the documented order (a piece of another
  /// region, a gap or overlap within a region, a tier the plan does not
  /// have, placements missing or left over), naming the placement.
  static StatusOr<StateLayout> build(const StoragePlan& plan, std::span<const MemoryRange> regions,
                                     std::size_t state_count);

  std::size_t state_count() const { return states_.size(); }
  /// The pieces of `state` (< state_count()), in region order, each region's
  /// pieces by region offset.
  std::span<const StatePiece> pieces(std::size_t state) const { return states_.at(state); }

  /// The largest span of one tier's arena that holds pieces of `state` only:
  /// per tier, from the lowest start to the highest end of the state's pieces
  /// there (alignment gaps included), that end rounded up to `end_alignment`
  /// (a power of two) but never past the tier's arena (TierOutcome::
  /// arena_bytes), kept only when no piece of another state lies inside.
  /// Ties go to the earlier tier. nullopt when the state has no pieces or
  /// every tier's span is shared with another state. (Differential restore
  /// packs the exit state's changed chunks there, in 256-byte slots.)
  std::optional<ArenaSpan> exclusive_span(std::size_t state, std::uint64_t end_alignment = 1) const;

 private:
  std::vector<std::vector<StatePiece>> states_;
  std::vector<std::uint64_t> arena_bytes_;  // per tier of the plan
};

}  // namespace rangereplay::storage
