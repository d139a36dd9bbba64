// The L2 flush of --cache-control: a device buffer of a multiple (2 unless
// asked otherwise) of the GPU's L2 size, the flush kernel that reads it and
// the one that then discards its lines from L2 (kernels/cache_flush_kernel.h),
// so that a counted pass starts with no line of the range's data in L2, none
// dirty and (almost) none at all (the tool's snapshot and restore writes are written back before the
// pass's counters start, not counted as the range's DRAM writes).
//
//   RR_ASSIGN_OR_RETURN(CacheFlush flush,
//                       CacheFlush::create(device, stream, kDefaultFlushL2Multiple, kDefaultFlushDiscard));
//   RR_RETURN_IF_ERROR(flush.flush(stream));   // then synchronize, then start the counters
//
// Memory: l2_multiple x L2 bytes of device memory (120 MiB on an H200 at 2)
// plus 4 KiB, allocated once by create() in the current context, freed by
// the destructor.
// Thread-safety: one flush at a time (launches on one stream).
#pragma once

#include <cuda.h>

#include <cstddef>

#include "core/status.h"
#include "cuda/owned.h"

namespace rangereplay::cu {

/// How many times the L2's size the flush reads unless asked otherwise.
inline constexpr int kDefaultFlushL2Multiple = 2;
/// Whether the flush drops its buffer's lines unless asked otherwise.
inline constexpr bool kDefaultFlushDiscard = true;

class CacheFlush {
 public:
  /// Allocates the buffer for `device`'s L2 (CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
  /// `l2_multiple` (at least 2) times its size, in the current context; with
  /// `discard`, on a device of compute capability 8.0 or later, every flush
  /// ends by dropping the buffer's lines from L2 (kernels/cache_flush_kernel.h);
  /// and enqueues one write of it on `stream` (every
  /// page resident before the first flush; flushes on the same stream are
  /// ordered after it). Errors: the driver's (an attribute query, an
  /// allocation that failed, e.g. out of memory, naming the bytes asked for,
  /// or the write's enqueue).
  static StatusOr<CacheFlush> create(CUdevice device, CUstream stream, int l2_multiple, bool discard);

  /// Enqueues the flush on `stream`. Errors: the launch's.
  Status flush(CUstream stream) const;

  /// Kernels one flush launches: 2 with the discard, 1 without (the per-
  /// kernel counter ranges of a pass whose flush runs inside it count them).
  int kernel_launches() const { return discard_ ? 2 : 1; }

  /// Bytes the flush reads (l2_multiple times the L2's).
  std::size_t bytes() const { return bytes_; }

 private:
  CacheFlush(DeviceBuffer buffer, DeviceBuffer sink, std::size_t bytes, bool discard)
      : buffer_(std::move(buffer)), sink_(std::move(sink)), bytes_(bytes), discard_(discard) {}
  DeviceBuffer buffer_;
  DeviceBuffer sink_;
  std::size_t bytes_ = 0;
  bool discard_ = true;
};

}  // namespace rangereplay::cu
