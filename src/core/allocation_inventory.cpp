// The application's allocations, keyed by start address (see header).
#include "core/allocation_inventory.h"

namespace rangereplay {

const char* allocation_kind_name(AllocationKind kind) {
  switch (kind) {
    case AllocationKind::kDevice: return "device";
    case AllocationKind::kStreamOrdered: return "stream-ordered";
    case AllocationKind::kVirtual: return "virtual";
    case AllocationKind::kManaged: return "managed";
    case AllocationKind::kMappedHost: return "mapped-host";
    case AllocationKind::kModuleGlobal: return "module-global";
  }
  return "unknown";
}

void AllocationInventory::add(Allocation allocation) {
  std::lock_guard<std::mutex> guard(mutex_);
  allocation.serial = next_serial_++;
  by_start_[allocation.range.start().address()] = std::move(allocation);
}

std::optional<Allocation> AllocationInventory::remove(DevicePtr start) {
  std::lock_guard<std::mutex> guard(mutex_);
  auto it = by_start_.find(start.address());
  if (it == by_start_.end()) return std::nullopt;
  Allocation a = std::move(it->second);
  by_start_.erase(it);
  return a;
}

std::optional<Allocation> AllocationInventory::find_containing(DevicePtr p) const {
  std::lock_guard<std::mutex> guard(mutex_);
  auto it = by_start_.upper_bound(p.address());
  if (it == by_start_.begin()) return std::nullopt;
  --it;
  if (!it->second.range.contains(p)) return std::nullopt;
  return it->second;
}

std::vector<Allocation> AllocationInventory::regions() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return regions_locked();
}

std::vector<Allocation> AllocationInventory::regions_locked() const {
  std::vector<Allocation> out;
  out.reserve(by_start_.size());
  for (const auto& [start, a] : by_start_) out.push_back(a);
  return out;
}

std::uint64_t AllocationInventory::footprint_bytes() const {
  std::lock_guard<std::mutex> guard(mutex_);
  std::uint64_t total = 0;
  for (const auto& [start, a] : by_start_) total += a.range.size();
  return total;
}

std::size_t AllocationInventory::size() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return by_start_.size();
}

}  // namespace rangereplay
