// AllocationInventory: every device-visible allocation the application owns,
// as the driver API reported it (MISSION.md point 4). The snapshot covers
// exactly these regions.
//
//   inventory.add({MemoryRange(ptr, bytes), AllocationKind::kDevice, "cuMemAlloc"});
//   inventory.remove(ptr);                // on cuMemFree
//   auto regions = inventory.regions();   // sorted by address
//
// Thread-safety: every method locks the inventory's mutex. A replay window
// holds lock() for its whole duration, so other threads' frees and
// allocations wait instead of changing memory under a replay.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/memory_range.h"

namespace rangereplay {

enum class AllocationKind : std::uint8_t {
  kDevice,        // cuMemAlloc / cuMemAllocPitch
  kStreamOrdered, // cuMemAllocAsync / cuMemAllocFromPoolAsync
  kVirtual,       // cuMemMap of a cuMemCreate handle
  kManaged,       // cuMemAllocManaged
  kMappedHost,    // device-mapped pinned host memory
  kModuleGlobal,  // module-scope __device__ variable
};

const char* allocation_kind_name(AllocationKind kind);

struct Allocation {
  MemoryRange range;
  AllocationKind kind = AllocationKind::kDevice;
  std::string origin;  // the call that created it, e.g. "cuMemAlloc_v2"
  std::uint64_t serial = 0;  // allocation order in the process, from 1
};

class AllocationInventory {
 public:
  /// Records an allocation. An allocation starting at an address already
  /// tracked replaces the old entry (the driver reused the address).
  void add(Allocation allocation);
  /// Forgets the allocation starting at `start`; returns it, or nullopt when
  /// the address was not tracked.
  std::optional<Allocation> remove(DevicePtr start);
  /// The allocation containing `p`, if any.
  std::optional<Allocation> find_containing(DevicePtr p) const;
  /// All allocations, sorted by start address.
  std::vector<Allocation> regions() const;
  /// Sum of all allocation sizes, in bytes.
  std::uint64_t footprint_bytes() const;
  std::size_t size() const;

  /// The inventory lock, for a replay window to hold (see class comment).
  std::unique_lock<std::mutex> lock() const { return std::unique_lock<std::mutex>(mutex_); }
  /// Like regions(), for a caller already holding lock().
  std::vector<Allocation> regions_locked() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::uint64_t, Allocation> by_start_;
  std::uint64_t next_serial_ = 1;
};

}  // namespace rangereplay
