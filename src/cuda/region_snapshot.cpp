// One-arena snapshot of regions (see region_snapshot.h).
#include "cuda/region_snapshot.h"

#include <string>
#include <utility>

#include "cuda/cu_status.h"

namespace rangereplay {

namespace {
constexpr std::uint64_t kAlignment = 256;
std::uint64_t align_up(std::uint64_t v) { return (v + kAlignment - 1) / kAlignment * kAlignment; }
}  // namespace

StatusOr<RegionSnapshot> RegionSnapshot::create(std::vector<MemoryRange> regions) {
  RegionSnapshot s;
  s.regions_ = std::move(regions);
  std::uint64_t total = 0;
  for (const auto& r : s.regions_) {
    s.offsets_.push_back(total);
    total = align_up(total + r.size());
  }
  s.bytes_ = total;
  if (total == 0) return s;
  size_t free_bytes = 0, total_bytes = 0;
  RR_CU(cuMemGetInfo(&free_bytes, &total_bytes));
  if (total > free_bytes / 20 * 19) {
    return resource_exhausted("snapshot needs " + std::to_string(total) + " bytes but only " +
                              std::to_string(free_bytes) + " bytes of device memory are free");
  }
  RR_CU(cuMemAlloc(&s.arena_, total));
  return s;
}

RegionSnapshot::RegionSnapshot(RegionSnapshot&& other) noexcept { *this = std::move(other); }

RegionSnapshot& RegionSnapshot::operator=(RegionSnapshot&& other) noexcept {
  if (this != &other) {
    if (arena_) cuMemFree(arena_);
    regions_ = std::move(other.regions_);
    offsets_ = std::move(other.offsets_);
    arena_ = std::exchange(other.arena_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

RegionSnapshot::~RegionSnapshot() {
  if (arena_) cuMemFree(arena_);
}

Status RegionSnapshot::capture(CUstream stream) const {
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    if (regions_[i].empty()) continue;
    RR_CU(cuMemcpyDtoDAsync(arena_ + offsets_[i], regions_[i].start().address(), regions_[i].size(), stream));
  }
  return ok_status();
}

Status RegionSnapshot::restore(CUstream stream) const {
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    if (regions_[i].empty()) continue;
    RR_CU(cuMemcpyDtoDAsync(regions_[i].start().address(), arena_ + offsets_[i], regions_[i].size(), stream));
  }
  return ok_status();
}

}  // namespace rangereplay
