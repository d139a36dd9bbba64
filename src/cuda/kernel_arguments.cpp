// Kernel parameter layouts from the driver, and argument copies (see kernel_arguments.h).
#include "cuda/kernel_arguments.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "cuda/cu_status.h"

namespace rangereplay {

static_assert(CU_LAUNCH_PARAM_END_AS_INT == kLaunchParamEnd);
static_assert(CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT == kLaunchParamBufferPointer);
static_assert(CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT == kLaunchParamBufferSize);

namespace {

StatusOr<KernelParamLayout> read_param_layout(CUfunction f) {
  KernelParamLayout layout;
  bool as_kernel = false;
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0, size = 0;
    CUresult r = as_kernel ? cuKernelGetParamInfo(reinterpret_cast<CUkernel>(f), i, &offset, &size)
                           : cuFuncGetParamInfo(f, i, &offset, &size);
    if (r != CUDA_SUCCESS && i == 0 && !as_kernel) {
      // Try the handle as a CUkernel before concluding anything.
      as_kernel = true;
      r = cuKernelGetParamInfo(reinterpret_cast<CUkernel>(f), i, &offset, &size);
      if (r == CUDA_ERROR_INVALID_VALUE) break;  // a kernel without parameters
      if (r != CUDA_SUCCESS) {
        // Neither handle kind: a kernel without parameters also reports
        // INVALID_VALUE from cuFuncGetParamInfo at index 0.
        CUresult first = cuFuncGetParamInfo(f, 0, &offset, &size);
        if (first == CUDA_ERROR_INVALID_VALUE) break;
        return cu_status(first, "cuFuncGetParamInfo", __FILE__, __LINE__);
      }
    } else if (r == CUDA_ERROR_INVALID_VALUE) {
      break;  // past the last parameter
    } else if (r != CUDA_SUCCESS) {
      return cu_status(r, as_kernel ? "cuKernelGetParamInfo" : "cuFuncGetParamInfo", __FILE__, __LINE__);
    }
    layout.offsets.push_back(static_cast<std::uint32_t>(offset));
    layout.sizes.push_back(static_cast<std::uint32_t>(size));
    layout.total = std::max(layout.total, static_cast<std::uint32_t>(offset + size));
  }
  return layout;
}

// The layouts read so far, by handle, under their own lock.
struct LayoutCache {
  std::mutex mutex;
  std::unordered_map<CUfunction, KernelParamLayout> layouts;
  // Counts forget_kernel_param_layouts calls: a layout read while a module
  // was being unloaded is not cached (its handle may name another function).
  std::uint64_t generation = 0;
};

// Never destroyed: the driver unloads modules during the process's exit,
// after static destructors may have run, and each unload empties the cache
// (forget_kernel_param_layouts from the tool's resource callback). A
// destroyed cache there corrupted the heap (seen on the H200).
LayoutCache& layout_cache() {
  static LayoutCache* cache = new LayoutCache;
  return *cache;
}

}  // namespace

StatusOr<KernelParamLayout> kernel_param_layout(CUfunction f) {
  LayoutCache& cache = layout_cache();
  std::uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (auto it = cache.layouts.find(f); it != cache.layouts.end()) return it->second;
    generation = cache.generation;
  }
  // Read without the lock: forget_kernel_param_layouts runs in the driver's
  // module-unload callback, with driver locks held that this read may need.
  RR_ASSIGN_OR_RETURN(KernelParamLayout layout, read_param_layout(f));
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.generation == generation) cache.layouts.emplace(f, layout);
  return layout;
}

void forget_kernel_param_layouts() {
  LayoutCache& cache = layout_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.layouts.clear();
  ++cache.generation;
}

Status copy_kernel_arguments(CUfunction f, void* const* kernel_params, void* const* extra, KernelLaunchOp* op) {
  RR_ASSIGN_OR_RETURN(KernelParamLayout layout, kernel_param_layout(f));
  return pack_kernel_arguments(layout, kernel_params, extra, op);
}

}  // namespace rangereplay
