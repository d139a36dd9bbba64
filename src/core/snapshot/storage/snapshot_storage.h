// Snapshot storage: where the bytes of a range's snapshot live. Include this
// one header.
//
//   using DeviceTier = Arena<PrefixChunking, BumpSuballocator, DeviceBacking>;
//   using PinnedTier = Arena<WholeRegion, BumpSuballocator, PinnedBacking>;
//   FallbackAllocator<DeviceTier, PinnedTier, NullAllocator> storage(
//       DeviceTier({.name = "device", .limit_bytes = device_limit, .retain = true},
//                  PrefixChunking(2 << 20), BumpSuballocator(256), ctx),
//       PinnedTier({.name = "pinned", .limit_bytes = host_limit, .retain = true},
//                  WholeRegion{}, BumpSuballocator(256), ctx),
//       NullAllocator{});
//
//   // At range entry (one thread at a time):
//   RR_ASSIGN_OR_RETURN(StoragePlan plan,
//                       storage.plan_and_commit(whole_region_requests(regions)));
//   for (const Placement& p : plan.placements)
//     copy(p.region.start() + p.region_offset, plan.destination(p), p.bytes);
//   // plan.tiers[i]: bytes, arena_bytes, new_allocation for report::TierUsage.
//   ...
//   storage.end_range();  // after the replay window; retained arenas stay
//
// A plan that does not fit returns resource_exhausted naming the first region
// that fits nowhere and its shortfall in bytes: decline the range with it.
// User limits come from parse_byte_size("512MiB"); backings compute their
// budgets with device_tier_budget / pinned_tier_budget.
#pragma once

#include "core/snapshot/storage/admission.h"           // WholeRegion, PrefixChunking
#include "core/snapshot/storage/arena.h"               // Arena, TierOptions
#include "core/snapshot/storage/backing_allocator.h"   // BackingAllocator concept, BackingBlock
#include "core/snapshot/storage/bump_suballocator.h"   // BumpSuballocator
#include "core/snapshot/storage/byte_size.h"           // parse_byte_size
#include "core/snapshot/storage/fallback_allocator.h"  // FallbackAllocator, NullAllocator
#include "core/snapshot/storage/storage_plan.h"        // Request, Placement, TierOutcome, StoragePlan
#include "core/snapshot/storage/tier_budget.h"         // device_tier_budget, pinned_tier_budget
