// The L2 flush buffer and its launch (see cache_flush.h).
#include "cuda/cache_flush.h"

#include "cuda/cu_status.h"
#include "cuda/kernels/cache_flush_kernel.h"

namespace rangereplay::cu {

StatusOr<CacheFlush> CacheFlush::create(CUdevice device, CUstream stream) {
  int l2 = 0;
  RR_CU(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device));
  // Twice the L2, in whole 1 MiB units, so every set is walked over.
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  const std::size_t bytes = (2 * static_cast<std::size_t>(l2 > 0 ? l2 : 0) + kMiB - 1) / kMiB * kMiB;
  if (bytes == 0) return failed_precondition("the device reports no L2 cache size");
  StatusOr<DeviceBuffer> buffer = allocate_device(bytes);
  if (!buffer.ok())
    return Status(buffer.status().code(),
                  "the L2 flush buffer (" + std::to_string(bytes / kMiB) + " MiB): " + buffer.status().message());
  StatusOr<DeviceBuffer> sink = allocate_device(kernels::kCacheFlushBlocks * sizeof(unsigned int));
  if (!sink.ok()) return Status(sink.status().code(), "the L2 flush's result words: " + sink.status().message());
  // Written once, so that every page is resident before the first flush;
  // what the flush reads does not matter, only that it reads.
  RR_CU(cuMemsetD8Async(buffer->get(), 0, bytes, stream));
  return CacheFlush(std::move(*buffer), std::move(*sink), bytes);
}

Status CacheFlush::flush(CUstream stream) const {
  return kernels::launch_l2_flush(buffer_.get(), bytes_, sink_.get(), stream);
}

}  // namespace rangereplay::cu
