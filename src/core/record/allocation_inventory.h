// AllocationInventory: every device-visible allocation the application owns,
// as the driver API reported it. The snapshot covers
// exactly these regions.
//
//   inventory.add({MemoryRange(ptr, bytes), AllocationKind::kDevice, "cuMemAlloc"});
//   inventory.remove(ptr);                // on cuMemFree
//   auto regions = inventory.regions();   // sorted by address
//
// Virtual-memory mappings (cuMemMap) are spans that become writable by a
// device only through cuMemSetAccess; they are split, trimmed and coalesced
// as the application maps, grants access to and unmaps parts of them:
//
//   inventory.add({MemoryRange(va, 4 << 20), AllocationKind::kVirtual, "cuMemMap", 0, 0, kNoDevices});
//   inventory.set_access(MemoryRange(va, 4 << 20), /*device=*/0, /*writable=*/true);
//   inventory.unmap(MemoryRange(va + (1 << 20), 1 << 20));   // leaves [va, +1M) and [va+2M, +2M)
//
// Device-mapped pinned host memory (kMappedHost) is tracked at its device
// address and forgotten by the host address the application frees it by:
//
//   inventory.add({MemoryRange(dptr, n), AllocationKind::kMappedHost, "cuMemHostAlloc", 0, host});
//   inventory.remove_host(host);          // on cuMemFreeHost / cuMemHostUnregister
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

#include "core/base/memory_range.h"

namespace rangereplay {

enum class AllocationKind : std::uint8_t {
  kDevice,         // cuMemAlloc / cuMemAllocPitch
  kStreamOrdered,  // cuMemAllocAsync / cuMemAllocFromPoolAsync
  kVirtual,        // cuMemMap of a cuMemCreate handle (a mapped span)
  kManaged,        // cuMemAllocManaged
  kMappedHost,     // device-mapped pinned host memory (cuMemHostAlloc, cuMemAllocHost, cuMemHostRegister)
  kModuleGlobal,   // module-scope __device__ variable
};

const char* allocation_kind_name(AllocationKind kind);

/// Allocation::writable_devices values: a bit per device ordinal (ordinals
/// from 63 up share bit 63).
inline constexpr std::uint64_t kAllDevices = ~std::uint64_t{0};
inline constexpr std::uint64_t kNoDevices = 0;
/// The writable_devices bit of device ordinal `device` (0 for a negative one).
constexpr std::uint64_t device_bit(int device) {
  return device < 0 ? 0 : std::uint64_t{1} << (device < 63 ? device : 63);
}

struct Allocation {
  MemoryRange range;
  AllocationKind kind = AllocationKind::kDevice;
  std::string origin;        // the call that created it, e.g. "cuMemAlloc_v2"
  std::uint64_t serial = 0;  // allocation order in the process, from 1
  // kMappedHost: the host address the application frees or unregisters it by
  // (equal to range.start() under unified addressing); 0 for other kinds.
  std::uint64_t host_address = 0;
  // Devices whose kernels may write it (device_bit). Allocations of the
  // classic APIs are writable wherever they are accessible: kAllDevices.
  // kVirtual spans start at kNoDevices and gain bits through cuMemSetAccess.
  std::uint64_t writable_devices = kAllDevices;
  // kManaged: attached to the host (allocated with CU_MEM_ATTACH_HOST, or
  // last attached with cuStreamAttachMemAsync(..., CU_MEM_ATTACH_HOST)), so
  // host threads may be writing it at any time; false for other kinds.
  bool host_attached = false;
  // kDevice memory of cuMemAlloc / cuMemAllocPitch: the context (CUcontext's
  // value) that allocated it, the only one whose kernels can reach it; 0 for
  // other kinds and when unknown.
  std::uint64_t context = 0;

  /// Whether kernels on device ordinal `device` may write it, so a range on
  /// that device must snapshot it (and the snapshot can read and restore it).
  /// A negative (unknown) device: writable by any device.
  bool writable_by(int device) const {
    return device < 0 ? writable_devices != kNoDevices : (writable_devices & device_bit(device)) != 0;
  }
};

/// What a range on device ordinal `device` in context `context` (CUcontext's
/// value; 0 when unknown) does with each allocation at its entry.
struct SnapshotSelection {
  std::vector<Allocation> snapshot;        // held by the entry snapshot
  std::vector<MemoryRange> host_mapped;    // pinned host, host-attached managed: captured at a kernel's first use
  std::vector<MemoryRange> other_device;   // device memory the range's device cannot write
  std::vector<MemoryRange> other_context;  // device memory of another context: its kernels cannot reach it
};

/// Sorts `allocations` into a SnapshotSelection: every allocation the
/// range's kernels can write goes into the snapshot, except device-mapped
/// pinned host memory and managed memory attached to the host (host threads
/// may write those while the replay window runs) and device memory another
/// context allocated (the snapshot's copies, launched in the range's
/// context, would fault on it). Allocations the range's device cannot write
/// are left out; the device-memory ones among them are listed in
/// other_device. The range lists are sorted by start; `snapshot` keeps the
/// given order. Pure.
SnapshotSelection select_for_snapshot(std::vector<Allocation> allocations, int device, std::uint64_t context);

class AllocationInventory {
 public:
  /// Records an allocation. An allocation starting at an address already
  /// tracked replaces the old entry (the driver reused the address). A
  /// kVirtual span coalesces with kVirtual neighbours it touches that share
  /// its origin and access (an empty kVirtual span is not recorded).
  void add(Allocation allocation);
  /// Forgets the allocation starting at `start`; returns it, or nullopt when
  /// the address was not tracked.
  std::optional<Allocation> remove(DevicePtr start);
  /// Forgets the kMappedHost allocation the application frees by host
  /// address `host` (Allocation::host_address); returns it, or nullopt.
  std::optional<Allocation> remove_host(std::uint64_t host);
  /// cuMemUnmap: forgets the bytes of kVirtual spans inside `span`, trimming
  /// or splitting spans that extend past it (both pieces keep the span's
  /// kind, origin, serial and access). Other kinds are left alone. Returns the
  /// bytes forgotten (0 when `span` covers no tracked virtual byte).
  std::uint64_t unmap(MemoryRange span);
  /// cuMemSetAccess: kVirtual bytes inside `span` become writable (or not) by
  /// device ordinal `device`; spans are split at the bounds of `span` first.
  /// Adjacent kVirtual spans of the same origin and access coalesce into one.
  /// Returns the virtual bytes whose access was set.
  std::uint64_t set_access(MemoryRange span, int device, bool writable);
  /// cuStreamAttachMemAsync: the kManaged allocation containing `p` is now
  /// attached to the host (`host` true) or to a stream or every stream.
  /// Returns false when no managed allocation contains `p`.
  bool set_host_attached(DevicePtr p, bool host);
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
  using Map = std::map<std::uint64_t, Allocation>;
  // Splits the kVirtual allocation containing `at` (if it starts before it)
  // into [start, at) and [at, end). Caller holds mutex_.
  void split_virtual_at(std::uint64_t at);
  // Merges the kVirtual allocation at `it` with kVirtual neighbours that touch
  // it and share origin and access. Caller holds mutex_.
  void coalesce_virtual(Map::iterator it);

  Map by_start_;
  std::uint64_t next_serial_ = 1;
};

}  // namespace rangereplay
