// The L2 flush of --cache-control: a device buffer of twice the GPU's L2
// size and the flush kernel that reads it (kernels/cache_flush_kernel.h), so
// that a counted pass starts with no line of the range's data in L2 and none
// dirty (the tool's snapshot and restore writes are written back before the
// pass's counters start, not counted as the range's DRAM writes).
//
//   RR_ASSIGN_OR_RETURN(CacheFlush flush, CacheFlush::create(device, stream));
//   RR_RETURN_IF_ERROR(flush.flush(stream));   // then synchronize, then start the counters
//
// Memory: 2 x L2 bytes of device memory (120 MiB on an H200) plus 4 KiB,
// allocated once by create() in the current context, freed by the destructor.
// Thread-safety: one flush at a time (launches on one stream).
#pragma once

#include <cuda.h>

#include <cstddef>

#include "core/base/status.h"
#include "cuda/owned.h"

namespace rangereplay::cu {

class CacheFlush {
 public:
  /// Allocates the buffer for `device`'s L2 (CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
  /// in the current context and enqueues one write of it on `stream` (every
  /// page resident before the first flush; flushes on the same stream are
  /// ordered after it). Errors: the driver's (an attribute query, an
  /// allocation that failed, e.g. out of memory, naming the bytes asked for,
  /// or the write's enqueue).
  static StatusOr<CacheFlush> create(CUdevice device, CUstream stream);

  /// Enqueues the flush on `stream`. Errors: the launch's.
  Status flush(CUstream stream) const;

  /// Bytes the flush reads (twice the L2's).
  std::size_t bytes() const { return bytes_; }

 private:
  CacheFlush(DeviceBuffer buffer, DeviceBuffer sink, std::size_t bytes)
      : buffer_(std::move(buffer)), sink_(std::move(sink)), bytes_(bytes) {}
  DeviceBuffer buffer_;
  DeviceBuffer sink_;
  std::size_t bytes_ = 0;
};

}  // namespace rangereplay::cu
