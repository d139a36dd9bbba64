// The values that go into and come out of the snapshot storage planner.
//
// A Request asks for the bytes [region_offset, region.size()) of one region to
// be stored; the planner answers with a StoragePlan: Placements (which part of
// which region goes where in which tier's arena) and one TierOutcome per tier
// (what the capture path needs to copy, and what the report shows).
// Plain values; thread-safe to copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/base/memory_range.h"

namespace rangereplay::storage {

/// One region (or the tail of one) to place in snapshot storage.
struct Request {
  MemoryRange region;               // the application's bytes, device addresses
  std::uint64_t region_offset = 0;  // first byte of `region` this request covers; <= region.size()
  std::int32_t priority = 0;        // higher is placed first (earlier tiers are faster)

  /// Bytes this request asks for: region.size() - region_offset.
  std::uint64_t bytes() const { return region.size() - region_offset; }
  friend bool operator==(const Request&, const Request&) = default;
};

/// One request per region, each from offset 0 with the same priority.
std::vector<Request> whole_region_requests(std::span<const MemoryRange> regions, std::int32_t priority = 0);

/// A contiguous piece of a region stored in one tier's arena:
/// source = region.start() + region_offset, destination =
/// StoragePlan::tiers[tier].arena_address + arena_offset, `bytes` long.
struct Placement {
  std::size_t tier = 0;             // index of the tier in the fallback chain (0 = first)
  MemoryRange region;               // the whole region the piece belongs to
  std::uint64_t region_offset = 0;  // where the piece starts inside `region`
  std::uint64_t bytes = 0;          // > 0
  std::uint64_t arena_offset = 0;   // where the piece starts inside the tier's arena
  friend bool operator==(const Placement&, const Placement&) = default;
};

/// What one tier of the chain holds after a plan (fields named like
/// report::TierUsage where they mean the same thing).
struct TierOutcome {
  std::string tier;                 // the tier's name, e.g. "device", "pinned"
  std::uint64_t budget_bytes = 0;   // capacity the plan was allowed to use
  std::uint64_t bytes = 0;          // snapshot bytes placed on this tier
  std::uint64_t planned_bytes = 0;  // arena bytes the placements need (bytes + alignment padding)
  std::uint64_t arena_bytes = 0;    // size of the arena held now (0: none)
  std::uint64_t arena_address = 0;  // the arena's BackingBlock::address (0: none)
  bool new_allocation = false;      // true when this plan allocated the arena (false: reused or none)
  bool disabled = false;            // excluded from this plan (commit or budget query failed)
  std::string disabled_reason;      // one line, when disabled
  friend bool operator==(const TierOutcome&, const TierOutcome&) = default;
};

/// The result of planning (and, from plan_and_commit, committing) a snapshot.
struct StoragePlan {
  std::vector<Placement> placements;  // in placement order: priority, then request order, then tier
  std::vector<TierOutcome> tiers;     // one per tier, chain order (the NullAllocator has none)
  std::uint64_t footprint_bytes = 0;  // bytes of all requests (saturating)
  std::uint32_t replans = 0;          // plans redone after a failed commit
  std::vector<std::string> notes;     // one line per failed commit or budget query

  /// Destination address of a placement: its tier's arena address + arena_offset.
  std::uint64_t destination(const Placement& p) const { return tiers[p.tier].arena_address + p.arena_offset; }
  friend bool operator==(const StoragePlan&, const StoragePlan&) = default;
};

}  // namespace rangereplay::storage
