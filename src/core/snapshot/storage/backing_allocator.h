// The backing allocator concept: where a tier's arena memory comes from.
//
// The planner is pure C++; the device and pinned-host backings live in
// src/cuda and implement this concept. A backing only allocates and frees
// whole arenas and says how many bytes it could give; retain mode, rollback
// and user caps are handled by the Arena around it (arena.h).
//
// A backing B must provide (B is move-constructible; its constructor
// arguments are forwarded unchanged by Arena's constructor, so move-only
// arguments work):
//
//   StatusOr<BackingBlock> allocate(std::uint64_t bytes);
//       bytes > 0. Returns a block with block.bytes >= bytes (rounding up is
//       allowed; the planner uses block.bytes as the arena size) whose address
//       is aligned to at least the tier suballocator's alignment. On failure
//       returns a non-ok Status (e.g. RR_CU's "cuMemAlloc ... out of memory")
//       and holds nothing; the planner then disables the tier and replans.
//   void release(const BackingBlock& block) noexcept;
//       Frees a block this backing returned. Called exactly once per block.
//       Cannot fail from the planner's view: log, never throw.
//   StatusOr<std::uint64_t> budget(std::uint64_t retained_bytes) const;
//       Bytes this tier may hold for the next plan, counting the arena the
//       tier retains (`retained_bytes`, 0 when none) as available: it is the
//       memory the next commit can reuse or free first. Use the pure formulas
//       of tier_budget.h on fresh numbers, e.g. for device memory:
//         size_t free = 0, total = 0; RR_CU(cuMemGetInfo(&free, &total));
//         return device_tier_budget({.largest_allocation_bytes = ...,
//                                    .total_bytes = total, .free_bytes = free},
//                                   retained_bytes);
//       The user's --snapshot-*-limit is NOT applied here (TierOptions does it).
//       Called once per plan_and_commit. A non-ok Status disables the tier
//       for that plan (noted in StoragePlan::notes).
//
// Thread-safety: the planner calls a backing from one thread at a time (the
// thread that calls plan_and_commit / end_range / release on the chain); the
// backing needs no locking of its own. It must not call back into the planner.
// Lifetime: blocks still held when the Arena is destroyed are released from
// its destructor, so a backing must stay valid to call until then.
#pragma once

#include <concepts>
#include <cstdint>

#include "core/base/status.h"

namespace rangereplay::storage {

/// One backing allocation (one tier's arena).
struct BackingBlock {
  std::uint64_t address = 0;  // where copies read/write: a device address; for pinned
                              // host memory its device-mapped address (== host pointer under UVA)
  std::uint64_t bytes = 0;    // size of the allocation, >= the bytes asked for
  std::uint64_t handle = 0;   // backing-defined (e.g. a cuMemCreate handle); the planner never reads it
  friend bool operator==(const BackingBlock&, const BackingBlock&) = default;
};

template <class B>
concept BackingAllocator = std::move_constructible<B> &&
    requires(B& backing, const B& const_backing, std::uint64_t bytes, const BackingBlock& block) {
  { backing.allocate(bytes) } -> std::same_as<StatusOr<BackingBlock>>;
  { backing.release(block) }
  noexcept->std::same_as<void>;
  { const_backing.budget(bytes) } -> std::same_as<StatusOr<std::uint64_t>>;
};

}  // namespace rangereplay::storage
