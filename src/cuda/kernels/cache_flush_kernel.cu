// The L2 flush kernel (see cache_flush_kernel.h).
#include "cuda/kernels/cache_flush_kernel.h"

#include <cuda_runtime.h>

#include "cuda/kernels/launch_count.h"
#include "cuda/kernels/runtime_status.h"

namespace rangereplay::kernels {

namespace {

constexpr int kThreads = 256;

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

}  // namespace

Status launch_l2_flush(CUdeviceptr buffer, std::size_t bytes, CUdeviceptr sink, CUstream stream) {
  l2_flush_kernel<<<kCacheFlushBlocks, kThreads, 0, reinterpret_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<const uint4*>(buffer), bytes / sizeof(uint4), reinterpret_cast<unsigned int*>(sink),
      0x9e3779b9u);
  const cudaError_t error = cudaGetLastError();
  if (error == cudaSuccess) count_tool_kernel_launch();
  return runtime_status(error, "l2_flush_kernel launch");
}

}  // namespace rangereplay::kernels
