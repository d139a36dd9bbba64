// The planning loop over a chain of storage tiers, shared by every
// FallbackAllocator instantiation (fallback_allocator.h) so it is ordinary
// non-template code.
//
// plan: requests in priority order (higher first, ties in input order); each
// request is offered to tier 0, 1, ... in turn, and each tier is re-asked
// until it declines, so one region may span tiers. Bytes no tier takes fail
// the plan (resource_exhausted naming the region and the shortfall).
// plan_and_commit: budgets once, then plan; commit every tier that received
// bytes, in chain order; if one fails, roll back the committed ones in
// reverse order, disable the failed tier and plan again.
// Not thread-safe: the caller serializes calls on a chain.
#pragma once

#include <span>

#include "core/base/status.h"
#include "core/snapshot/storage/storage_plan.h"
#include "core/snapshot/storage/storage_tier.h"

namespace rangereplay::storage {

/// Dry run: budgets and placements, no allocation and no release.
StatusOr<StoragePlan> plan_on_tiers(std::span<StorageTier* const> tiers, std::span<const Request> requests);

/// Ends the previous range (end_range on every tier), then budgets, plans
/// and commits as above. On error no tier holds an arena allocated by this
/// call (retained arenas stay retained). invalid_argument for a request whose
/// region_offset is past its region.
StatusOr<StoragePlan> plan_and_commit_on_tiers(std::span<StorageTier* const> tiers, std::span<const Request> requests);

}  // namespace rangereplay::storage
