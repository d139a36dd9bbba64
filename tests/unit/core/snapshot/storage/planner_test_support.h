// Shared shorthands for the storage planner tests: tier types over the fake
// backing, and builders that keep each test's setup to one line per tier.
#pragma once

#include <cstdint>
#include <string>

#include "core/snapshot/storage/snapshot_storage.h"
#include "unit/core/snapshot/storage/fake_backing.h"

namespace rangereplay::storage::testing {

using WholeTier = Arena<WholeRegion, BumpSuballocator, FakeBacking>;
using ChunkTier = Arena<PrefixChunking, BumpSuballocator, FakeBacking>;

/// A tier that takes whole regions, with `free_bytes` in its pool (its budget
/// when nothing is retained).
inline WholeTier whole_tier(FakeLedger& ledger, std::string name, std::uint64_t free_bytes, std::uint64_t alignment = 1,
                            bool retain = false) {
  return WholeTier(TierOptions{name, std::nullopt, retain}, WholeRegion{}, BumpSuballocator(alignment), ledger, name,
                   free_bytes);
}

/// A tier that splits regions on `granule` bytes.
inline ChunkTier chunk_tier(FakeLedger& ledger, std::string name, std::uint64_t free_bytes, std::uint64_t granule,
                            std::uint64_t alignment = 1, bool retain = false) {
  return ChunkTier(TierOptions{name, std::nullopt, retain}, PrefixChunking(granule), BumpSuballocator(alignment),
                   ledger, name, free_bytes);
}

inline MemoryRange region(std::uint64_t address, std::uint64_t bytes) { return MemoryRange(DevicePtr(address), bytes); }

}  // namespace rangereplay::storage::testing
