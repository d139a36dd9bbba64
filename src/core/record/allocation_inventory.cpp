// The application's allocations, keyed by start address (see header).
#include "core/record/allocation_inventory.h"

#include <algorithm>
#include <iterator>

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
  const bool is_virtual = allocation.kind == AllocationKind::kVirtual;
  if (is_virtual && allocation.range.empty()) return;
  allocation.serial = next_serial_++;
  const std::uint64_t start = allocation.range.start().address();
  auto [it, inserted] = by_start_.insert_or_assign(start, std::move(allocation));
  if (is_virtual) coalesce_virtual(it);
}

std::optional<Allocation> AllocationInventory::remove(DevicePtr start) {
  std::lock_guard<std::mutex> guard(mutex_);
  auto it = by_start_.find(start.address());
  if (it == by_start_.end()) return std::nullopt;
  Allocation a = std::move(it->second);
  by_start_.erase(it);
  return a;
}

std::optional<Allocation> AllocationInventory::remove_host(std::uint64_t host) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (host == 0) return std::nullopt;
  // Under unified addressing the device address is the host address: one
  // look-up. Otherwise (write-combined memory, no UVA) a scan of the
  // mapped-host entries, which only cuMemFreeHost/cuMemHostUnregister pay.
  auto it = by_start_.find(host);
  if (it == by_start_.end() || it->second.kind != AllocationKind::kMappedHost || it->second.host_address != host) {
    it = std::find_if(by_start_.begin(), by_start_.end(), [host](const auto& entry) {
      return entry.second.kind == AllocationKind::kMappedHost && entry.second.host_address == host;
    });
  }
  if (it == by_start_.end()) return std::nullopt;
  Allocation a = std::move(it->second);
  by_start_.erase(it);
  return a;
}

void AllocationInventory::split_virtual_at(std::uint64_t at) {
  auto it = by_start_.upper_bound(at);
  if (it == by_start_.begin()) return;
  --it;
  Allocation& a = it->second;
  const std::uint64_t start = a.range.start().address();
  if (a.kind != AllocationKind::kVirtual || start == at || at >= a.range.end().address()) return;
  Allocation right = a;
  right.range = MemoryRange(DevicePtr(at), a.range.end().address() - at);
  a.range = MemoryRange(a.range.start(), at - start);
  by_start_.emplace(at, std::move(right));
}

void AllocationInventory::coalesce_virtual(Map::iterator it) {
  auto mergeable = [](const Allocation& left, const Allocation& right) {
    return left.kind == AllocationKind::kVirtual && right.kind == AllocationKind::kVirtual &&
           left.range.end() == right.range.start() && left.origin == right.origin &&
           left.writable_devices == right.writable_devices;
  };
  // Into the left neighbour first, then swallow the right one.
  if (it != by_start_.begin()) {
    auto left = std::prev(it);
    if (mergeable(left->second, it->second)) {
      left->second.range = MemoryRange(left->second.range.start(), left->second.range.size() + it->second.range.size());
      left->second.serial = std::min(left->second.serial, it->second.serial);
      by_start_.erase(it);
      it = left;
    }
  }
  auto right = std::next(it);
  if (right != by_start_.end() && mergeable(it->second, right->second)) {
    it->second.range = MemoryRange(it->second.range.start(), it->second.range.size() + right->second.range.size());
    it->second.serial = std::min(it->second.serial, right->second.serial);
    by_start_.erase(right);
  }
}

std::uint64_t AllocationInventory::unmap(MemoryRange span) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (span.empty()) return 0;
  const std::uint64_t lo = span.start().address(), hi = span.end().address();
  split_virtual_at(lo);
  split_virtual_at(hi);
  std::uint64_t removed = 0;
  for (auto it = by_start_.lower_bound(lo); it != by_start_.end() && it->first < hi;) {
    if (it->second.kind == AllocationKind::kVirtual) {
      // After the splits a virtual span starting inside [lo, hi) ends by hi.
      removed += it->second.range.size();
      it = by_start_.erase(it);
    } else {
      ++it;
    }
  }
  return removed;
}

bool AllocationInventory::set_host_attached(DevicePtr p, bool host) {
  std::lock_guard<std::mutex> guard(mutex_);
  auto it = by_start_.upper_bound(p.address());
  if (it == by_start_.begin()) return false;
  --it;
  Allocation& a = it->second;
  if (a.kind != AllocationKind::kManaged || !a.range.contains(p)) return false;
  a.host_attached = host;
  return true;
}

std::uint64_t AllocationInventory::set_access(MemoryRange span, int device, bool writable) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (span.empty()) return 0;
  const std::uint64_t lo = span.start().address(), hi = span.end().address();
  split_virtual_at(lo);
  split_virtual_at(hi);
  std::uint64_t changed = 0;
  std::vector<std::uint64_t> touched;
  for (auto it = by_start_.lower_bound(lo); it != by_start_.end() && it->first < hi; ++it) {
    Allocation& a = it->second;
    if (a.kind != AllocationKind::kVirtual) continue;
    a.writable_devices =
        writable ? (a.writable_devices | device_bit(device)) : (a.writable_devices & ~device_bit(device));
    changed += a.range.size();
    touched.push_back(it->first);
  }
  // Coalesce the touched spans (and the neighbours just outside the span,
  // which the splits above may have separated from them).
  for (std::uint64_t start : touched) {
    auto it = by_start_.find(start);
    if (it != by_start_.end()) coalesce_virtual(it);
  }
  return changed;
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

SnapshotSelection select_for_snapshot(std::vector<Allocation> allocations, int device, std::uint64_t context) {
  SnapshotSelection out;
  for (Allocation& a : allocations) {
    if (!a.writable_by(device)) {
      if (a.kind == AllocationKind::kDevice || a.kind == AllocationKind::kStreamOrdered)
        out.other_device.push_back(a.range);
      continue;
    }
    if (a.kind == AllocationKind::kMappedHost || (a.kind == AllocationKind::kManaged && a.host_attached)) {
      out.host_mapped.push_back(a.range);
      continue;
    }
    if (a.context != 0 && context != 0 && a.context != context) {
      out.other_context.push_back(a.range);
      continue;
    }
    out.snapshot.push_back(std::move(a));
  }
  const auto by_start = [](const MemoryRange& x, const MemoryRange& y) { return x.start() < y.start(); };
  std::sort(out.host_mapped.begin(), out.host_mapped.end(), by_start);
  std::sort(out.other_device.begin(), out.other_device.end(), by_start);
  std::sort(out.other_context.begin(), out.other_context.end(), by_start);
  return out;
}

}  // namespace rangereplay
