// RangeContextScope: makes a range's context current on the calling thread
// for the object's lifetime, for the GPU work at a range's end (a range may
// end on another thread than the one that began it).
//
// Thread-safety: per thread (the driver's context stack is the thread's).
#pragma once

#include <cuda.h>

namespace rangereplay::tool {

// Makes `ctx` current on this thread for the object's lifetime when another
// context (or none) is: a range may end on another thread than the one that
// began it (an NVTX start/end range, a kernel window's last launch). Nothing
// when `ctx` is already current, null, or cannot be pushed (a destroyed
// context: the calls after fail and decline as they would).
class RangeContextScope {
 public:
  explicit RangeContextScope(CUcontext ctx) {
    CUcontext current = nullptr;
    if (ctx == nullptr || (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx)) return;
    pushed_ = cuCtxPushCurrent(ctx) == CUDA_SUCCESS;
  }
  ~RangeContextScope() {
    CUcontext popped = nullptr;
    if (pushed_) cuCtxPopCurrent(&popped);
  }
  RangeContextScope(const RangeContextScope&) = delete;
  RangeContextScope& operator=(const RangeContextScope&) = delete;

 private:
  bool pushed_ = false;
};

}  // namespace rangereplay::tool
