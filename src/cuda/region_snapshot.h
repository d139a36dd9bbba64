// RegionSnapshot: the bytes of a set of regions at one point (range entry or
// range exit), held in one device arena, captured and restored with
// asynchronous device-to-device copies on a given stream.
//
// This is the simple placement the main job starts with; the storage planner
// (src/core/storage) and the batched copy engine (src/cuda/copy_engine.h)
// replace its placement and its copies.
//
//   RR_ASSIGN_OR_RETURN(auto snap, RegionSnapshot::create(regions));
//   RR_RETURN_IF_ERROR(snap.capture(stream));   // regions -> arena
//   RR_RETURN_IF_ERROR(snap.restore(stream));   // arena -> regions
//
// Errors: kResourceExhausted when the arena does not fit in device memory
// (the range is then declined with snapshot_does_not_fit).
// Thread-safety: one thread at a time; the caller holds the inventory lock.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <vector>

#include "core/memory_range.h"
#include "core/status.h"

namespace rangereplay {

class RegionSnapshot {
 public:
  static StatusOr<RegionSnapshot> create(std::vector<MemoryRange> regions);
  RegionSnapshot(RegionSnapshot&& other) noexcept;
  RegionSnapshot& operator=(RegionSnapshot&& other) noexcept;
  RegionSnapshot(const RegionSnapshot&) = delete;
  RegionSnapshot& operator=(const RegionSnapshot&) = delete;
  ~RegionSnapshot();

  Status capture(CUstream stream) const;
  Status restore(CUstream stream) const;
  std::uint64_t bytes() const { return bytes_; }
  const std::vector<MemoryRange>& regions() const { return regions_; }

 private:
  RegionSnapshot() = default;
  std::vector<MemoryRange> regions_;
  std::vector<std::uint64_t> offsets_;
  CUdeviceptr arena_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace rangereplay
