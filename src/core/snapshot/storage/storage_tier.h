// The runtime face of one storage tier, as the chain planner drives it.
//
// Arena<Admission, Suballocator, Backing> (arena.h) is the one
// implementation; FallbackAllocator hands the planner loop
// (chain_planner.h) a list of StorageTier pointers so the loop is ordinary,
// non-template code. Calls come in this order per range:
//   budget() -> begin_plan(capacity) -> offer()... -> [commit() -> rollback()?]
//   -> outcome() -> end_range()
// and release() at shutdown. Not thread-safe: one planner drives a tier.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"
#include "core/snapshot/storage/storage_plan.h"

namespace rangereplay::storage {

/// The part of a request a tier took: `bytes` (0 = declined) at `arena_offset`.
struct TierOffer {
  std::uint64_t bytes = 0;
  std::uint64_t arena_offset = 0;
};

class StorageTier {
 public:
  virtual ~StorageTier() = default;

  /// Name for reports and errors, e.g. "device".
  virtual const std::string& name() const = 0;
  /// Bytes the next plan may place here: the backing's budget (counting a
  /// retained arena) lowered by the user's limit. Errors come from the backing.
  virtual StatusOr<std::uint64_t> budget() const = 0;
  /// Forgets earlier placements; this plan may use `capacity_bytes` (0: none).
  virtual void begin_plan(std::uint64_t capacity_bytes) = 0;
  /// Takes part of `remaining_bytes` (> 0) of a request, or declines.
  virtual TierOffer offer(std::uint64_t remaining_bytes) = 0;
  /// Arena bytes this plan's placements need (0: the tier got nothing).
  virtual std::uint64_t planned_bytes() const = 0;
  /// Makes the tier hold an arena of at least planned_bytes() (> 0): reuses a
  /// retained arena that is big enough, else frees it and allocates.
  virtual Status commit() = 0;
  /// Undoes the last commit(): frees an arena it allocated; keeps a reused one.
  virtual void rollback() = 0;
  /// The arena fields of TierOutcome (tier, planned_bytes, arena_bytes,
  /// arena_address, new_allocation); the planner fills the rest.
  virtual TierOutcome outcome() const = 0;
  /// The range's snapshot is no longer needed: frees the arena unless retained.
  virtual void end_range() = 0;
  /// Frees the arena, retained or not.
  virtual void release() = 0;

 protected:
  StorageTier() = default;
  StorageTier(const StorageTier&) = default;
  StorageTier(StorageTier&&) = default;
  StorageTier& operator=(const StorageTier&) = default;
  StorageTier& operator=(StorageTier&&) = default;
};

}  // namespace rangereplay::storage
