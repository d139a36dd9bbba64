// The L2 flush kernels (see cache_flush_kernel.h).
#include "cuda/kernels/cache_flush_kernel.h"

#include <cuda_runtime.h>

#include "cuda/kernels/runtime_status.h"

namespace rangereplay::kernels {

namespace {

constexpr int kThreads = 256;
constexpr std::size_t kCacheLine = 128;

__global__ void __launch_bounds__(kThreads)
    l2_flush_kernel(const uint4* buffer, std::size_t vectors, unsigned int* sink, unsigned int magic) {
  unsigned int sum = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    const uint4 v = buffer[i];
    sum += v.x ^ v.y ^ v.z ^ v.w;
  }
  __shared__ unsigned int block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  atomicXor(&block_sum, sum);
  __syncthreads();
  // Written only when the fold equals a value the host chose, which the
  // compiler cannot know: the loads stay, and (almost always) no line is
  // left dirty by the flush itself.
  if (threadIdx.x == 0 && block_sum == magic) sink[blockIdx.x] = block_sum;
}

// Drops the buffer's lines from L2 without writing them back (PTX discard,
// sm_80 and later, a no-op when built for older devices, where CacheFlush
// does not launch it: the lines' contents become indeterminate, which the
// flush does not mind), so that the L2 is left holding (almost) nothing rather
// than the buffer's clean lines. Runs after l2_flush_kernel has finished
// (stream order): no line is discarded before its last read.
__global__ void __launch_bounds__(kThreads) l2_discard_kernel(char* buffer, std::size_t lines) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < lines; i += stride) {
#if __CUDA_ARCH__ >= 800
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(buffer + i * kCacheLine) : "memory");
#endif
  }
}

}  // namespace

Status launch_l2_flush(CUdeviceptr buffer, std::size_t bytes, CUdeviceptr sink, bool discard, CUstream stream) {
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  l2_flush_kernel<<<kCacheFlushBlocks, kThreads, 0, s>>>(reinterpret_cast<const uint4*>(buffer), bytes / sizeof(uint4),
                                                         reinterpret_cast<unsigned int*>(sink), 0x9e3779b9u);
  RR_RETURN_IF_ERROR(runtime_status(cudaGetLastError(), "l2_flush_kernel launch"));
  if (!discard) return ok_status();
  l2_discard_kernel<<<kCacheFlushBlocks, kThreads, 0, s>>>(reinterpret_cast<char*>(buffer), bytes / kCacheLine);
  return runtime_status(cudaGetLastError(), "l2_discard_kernel launch");
}

}  // namespace rangereplay::kernels
