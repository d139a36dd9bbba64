// Strong types for addresses in the application's GPU address space.
//
// A DevicePtr is a device virtual address (CUdeviceptr's value) and is never
// confused with a host pointer; a MemoryRange is a half-open byte span
// [start, start + size) of device addresses. Both are plain values
// (thread-safe to copy). Modelled on rr's remote_ptr / MemoryRange.
#pragma once

#include <cassert>
#include <compare>
#include <cstdint>

namespace rangereplay {

/// A device virtual address (the numeric value of a CUdeviceptr).
class DevicePtr {
 public:
  constexpr DevicePtr() = default;
  constexpr explicit DevicePtr(std::uint64_t address) : address_(address) {}
  constexpr std::uint64_t address() const { return address_; }
  constexpr bool is_null() const { return address_ == 0; }
  constexpr DevicePtr operator+(std::uint64_t bytes) const { return DevicePtr(address_ + bytes); }
  friend constexpr auto operator<=>(DevicePtr, DevicePtr) = default;

 private:
  std::uint64_t address_ = 0;
};

/// Half-open span [start, start + size) of device addresses, in bytes.
class MemoryRange {
 public:
  constexpr MemoryRange() = default;
  constexpr MemoryRange(DevicePtr start, std::uint64_t size) : start_(start), size_(size) {
    assert(start.address() + size >= start.address() && "MemoryRange wraps the address space");
  }
  constexpr DevicePtr start() const { return start_; }
  constexpr DevicePtr end() const { return start_ + size_; }
  constexpr std::uint64_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr bool contains(DevicePtr p) const { return p >= start_ && p < end(); }
  constexpr bool contains(const MemoryRange& r) const { return r.start_ >= start_ && r.end() <= end(); }
  constexpr bool overlaps(const MemoryRange& r) const {
    return !empty() && !r.empty() && start_ < r.end() && r.start_ < end();
  }
  friend constexpr bool operator==(const MemoryRange&, const MemoryRange&) = default;

 private:
  DevicePtr start_;
  std::uint64_t size_ = 0;
};

}  // namespace rangereplay
