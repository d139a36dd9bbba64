// The snapshot planner's backings on a real GPU: where a storage tier's arena
// memory comes from (the BackingAllocator concept of
// core/snapshot/storage/backing_allocator.h).
//
//   CuDeviceBacking  device memory (cuMemAlloc). Budget from cuMemGetInfo:
//                    device_tier_budget({largest = total, total, free}, retained).
//   CuPinnedBacking  pinned, device-mapped host memory (cuMemHostAlloc with
//                    DEVICEMAP | PORTABLE; the arena's address is its
//                    cuMemHostGetDevicePointer). Budget from /proc/meminfo:
//                    pinned_tier_budget({largest = no limit, MemAvailable}, retained).
//
//   using DeviceTier = storage::Arena<storage::PrefixChunking, storage::BumpSuballocator, CuDeviceBacking>;
//   DeviceTier device({.name = "device", .retain = true}, storage::PrefixChunking(2 << 20),
//                     storage::BumpSuballocator(256), ctx);
//
// Retain hysteresis: both budgets go through retained_growth_budget() before
// the planner sees them. A tier that retains an arena does not grow it for a
// gain below 1/growth_divisor of its size (default 1/8): freeing a
// multi-gigabyte arena to allocate one a few percent larger costs more
// (pinning host pages runs at a few GB/s) than the bytes it would move off the
// slower tier, and with device memory nearly full the "retained + 95% of free"
// budget grows by a sliver at every range, so without it no range would ever
// reuse the retained device arena.
//
// Context: each backing is bound to one CUDA context at construction and makes
// it current (push/pop) around its driver calls when another one is current;
// nullptr binds to whichever context is current at each call.
// Thread-safety: none of its own; the planner calls a backing from one thread
// at a time (backing_allocator.h). Every driver call is checked; release()
// ignores errors (the context may already be gone at process exit).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <utility>

#include "core/base/status.h"
#include "core/snapshot/storage/backing_allocator.h"

namespace rangereplay {

/// Every arena a backing returns starts at a multiple of this many bytes
/// (the copy kernel's 16-byte vectors and the planner's 256-byte bump
/// alignment both rely on it); allocate() checks it.
inline constexpr std::uint64_t kBackingAlignment = 256;

/// Default retain hysteresis: a retained arena grows only for a gain of at
/// least 1/8 of its size.
inline constexpr std::uint32_t kDefaultGrowthDivisor = 8;

/// The budget after retain hysteresis: retained_bytes when a tier retains an
/// arena (retained_bytes > 0) and budget_bytes exceeds it by less than
/// retained_bytes / growth_divisor; budget_bytes otherwise (also when
/// growth_divisor is 0: hysteresis off). Never raises the budget. Pure.
constexpr std::uint64_t retained_growth_budget(std::uint64_t budget_bytes, std::uint64_t retained_bytes,
                                               std::uint32_t growth_divisor) {
  if (growth_divisor == 0 || retained_bytes == 0 || budget_bytes <= retained_bytes) return budget_bytes;
  return budget_bytes - retained_bytes < retained_bytes / growth_divisor ? retained_bytes : budget_bytes;
}

/// Device memory from cuMemAlloc. block.handle is unused (0).
class CuDeviceBacking {
 public:
  /// context: the context to allocate in (nullptr: the current one at each
  /// call). growth_divisor: see retained_growth_budget (0: off).
  explicit CuDeviceBacking(CUcontext context, std::uint32_t growth_divisor = kDefaultGrowthDivisor)
      : context_(context), growth_divisor_(growth_divisor) {}

  /// cuMemAlloc(bytes). Errors: kResourceExhausted for out of memory,
  /// kInternal for other driver errors or a base not aligned to kBackingAlignment.
  StatusOr<storage::BackingBlock> allocate(std::uint64_t bytes);
  /// cuMemFree; errors are ignored.
  void release(const storage::BackingBlock& block) noexcept;
  /// device_tier_budget with the largest allocation = total device memory,
  /// then retained_growth_budget. Errors: cuMemGetInfo failing (kInternal).
  StatusOr<std::uint64_t> budget(std::uint64_t retained_bytes) const;

  CUcontext context() const { return context_; }

 private:
  CUcontext context_;
  std::uint32_t growth_divisor_;
};

/// Pinned host memory from cuMemHostAlloc(DEVICEMAP | PORTABLE).
/// block.address is the device pointer (cuMemHostGetDevicePointer; equal to
/// the host pointer under unified addressing), block.handle the host pointer.
class CuPinnedBacking {
 public:
  /// context: as for CuDeviceBacking. meminfo_path: where MemAvailable is read
  /// (tests may point it at a file of their own).
  explicit CuPinnedBacking(CUcontext context, std::uint32_t growth_divisor = kDefaultGrowthDivisor,
                           std::string meminfo_path = "/proc/meminfo")
      : context_(context), growth_divisor_(growth_divisor), meminfo_path_(std::move(meminfo_path)) {}

  /// cuMemHostAlloc(bytes, DEVICEMAP | PORTABLE) + cuMemHostGetDevicePointer.
  /// Errors: kResourceExhausted for out of memory, kInternal otherwise (the
  /// allocation is freed again when the device pointer query fails).
  StatusOr<storage::BackingBlock> allocate(std::uint64_t bytes);
  /// cuMemFreeHost; errors are ignored.
  void release(const storage::BackingBlock& block) noexcept;
  /// pinned_tier_budget with MemAvailable from meminfo_path and no
  /// single-allocation limit, then retained_growth_budget. Errors: the file
  /// cannot be read (kUnavailable) or has no valid MemAvailable line.
  StatusOr<std::uint64_t> budget(std::uint64_t retained_bytes) const;

  CUcontext context() const { return context_; }

 private:
  CUcontext context_;
  std::uint32_t growth_divisor_;
  std::string meminfo_path_;
};

static_assert(storage::BackingAllocator<CuDeviceBacking>);
static_assert(storage::BackingAllocator<CuPinnedBacking>);

}  // namespace rangereplay
