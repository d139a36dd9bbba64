// Device and pinned-host backings of the snapshot planner (see storage_backings.h).
#include "cuda/storage_backings.h"

#include <limits>
#include <string>
#include <utility>

#include "core/snapshot/storage/tier_budget.h"
#include "cuda/cu_status.h"
#include "cuda/owned.h"

namespace rangereplay {
namespace {

// Makes `context` current for the scope when another context is current
// (push/pop); does nothing for nullptr or when it is current already.
class ScopedContext {
 public:
  explicit ScopedContext(CUcontext context) {
    if (context == nullptr) return;
    CUcontext current = nullptr;
    if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context) return;
    status_ = cu_status(cuCtxPushCurrent(context), "cuCtxPushCurrent", __FILE__, __LINE__);
    pushed_ = status_.ok();
  }
  ~ScopedContext() {
    if (!pushed_) return;
    CUcontext popped = nullptr;
    (void)cuCtxPopCurrent(&popped);
  }
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

  const Status& status() const { return status_; }

 private:
  Status status_;
  bool pushed_ = false;
};

Status check_alignment(std::uint64_t address, const char* what) {
  if (address % kBackingAlignment == 0) return ok_status();
  return internal_error(std::string(what) + " returned address " + std::to_string(address) + ", not aligned to " +
                        std::to_string(kBackingAlignment) + " bytes");
}

}  // namespace

StatusOr<storage::BackingBlock> CuDeviceBacking::allocate(std::uint64_t bytes) {
  ScopedContext scope(context_);
  RR_RETURN_IF_ERROR(scope.status());
  RR_ASSIGN_OR_RETURN(cu::DeviceBuffer buffer, cu::allocate_device(bytes));
  RR_RETURN_IF_ERROR(check_alignment(buffer.get(), "cuMemAlloc"));  // freed, in the scope, if not
  return storage::BackingBlock{buffer.release(), bytes, 0};
}

void CuDeviceBacking::release(const storage::BackingBlock& block) noexcept {
  if (block.address == 0) return;
  ScopedContext scope(context_);
  (void)cuMemFree(block.address);
}

StatusOr<std::uint64_t> CuDeviceBacking::budget(std::uint64_t retained_bytes) const {
  ScopedContext scope(context_);
  RR_RETURN_IF_ERROR(scope.status());
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  RR_CU(cuMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t budget = storage::device_tier_budget({.largest_allocation_bytes = total_bytes,
                                                            .total_bytes = total_bytes,
                                                            .free_bytes = free_bytes,
                                                            .reserve_bytes = storage::kDeviceReserveBytes},
                                                           retained_bytes);
  return retained_growth_budget(budget, retained_bytes, growth_divisor_);
}

StatusOr<storage::BackingBlock> CuPinnedBacking::allocate(std::uint64_t bytes) {
  ScopedContext scope(context_);
  RR_RETURN_IF_ERROR(scope.status());
  RR_ASSIGN_OR_RETURN(cu::PinnedBuffer host,
                      cu::allocate_pinned(bytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
  // From here on an error frees `host` again, in the scope.
  CUdeviceptr device = 0;
  RR_RETURN_IF_ERROR(
      cu_status(cuMemHostGetDevicePointer(&device, host.get(), 0), "cuMemHostGetDevicePointer", __FILE__, __LINE__));
  RR_RETURN_IF_ERROR(check_alignment(device, "cuMemHostGetDevicePointer"));
  return storage::BackingBlock{device, bytes, reinterpret_cast<std::uint64_t>(host.release())};
}

void CuPinnedBacking::release(const storage::BackingBlock& block) noexcept {
  if (block.handle == 0) return;
  ScopedContext scope(context_);
  (void)cuMemFreeHost(reinterpret_cast<void*>(block.handle));
}

StatusOr<std::uint64_t> CuPinnedBacking::budget(std::uint64_t retained_bytes) const {
  StatusOr<std::uint64_t> read = storage::read_meminfo_available(meminfo_path_);
  if (!read.ok() && read.status().code() == StatusCode::kUnavailable)
    return unavailable(read.status().message() + " for the pinned tier's budget");
  RR_ASSIGN_OR_RETURN(std::uint64_t available, std::move(read));
  const std::uint64_t budget = storage::pinned_tier_budget(
      {.largest_allocation_bytes = std::numeric_limits<std::uint64_t>::max(), .available_bytes = available},
      retained_bytes);
  return retained_growth_budget(budget, retained_bytes, growth_divisor_);
}

}  // namespace rangereplay
