// stream_kernels.cuh: the BabelStream-like kernels (copy, mul, add, triad, dot,
// and an in-place a += 1) shared by examples/stream.cu, which launches them
// directly, and examples/graph.cu, which captures them into a CUDA graph.
//
// One step over arrays a, b, c of n doubles, in this order:
//   copy  c = a;  mul  b = s * c;  add  c = a + b;  triad  a = b + s * c;
//   dot   partial[k] = sum over block k's grid-stride elements of a[i] * b[i];
//   increment  a += 1.
// With s = 0.4 the triad scales a by 0.96 per step, so values stay bounded
// over any number of steps. Every kernel is deterministic: the dot uses a fixed
// grid (kDotBlocks x kThreads) and a fixed shared-memory tree, never atomics,
// so the partial sums are bit-identical across runs on one GPU.
// Follows BabelStream (UoB-HPC/BabelStream, CUDAStream.cu) in spirit.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "example_common.h"

namespace rangereplay::example {

constexpr double kStreamScalar = 0.4;
constexpr unsigned int kStreamThreads = 256;  // a power of two: the dot tree relies on it
constexpr unsigned int kDotBlocks = 1024;     // number of dot partial sums

__global__ void stream_copy_kernel(const double* __restrict__ a, double* __restrict__ c, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    c[i] = a[i];
}

__global__ void stream_mul_kernel(double* __restrict__ b, const double* __restrict__ c, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    b[i] = kStreamScalar * c[i];
}

__global__ void stream_add_kernel(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c,
                                  size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    c[i] = a[i] + b[i];
}

__global__ void stream_triad_kernel(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                                    size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    a[i] = b[i] + kStreamScalar * c[i];
}

// Launch with exactly kStreamThreads threads per block; writes partial[blockIdx.x].
__global__ void stream_dot_kernel(const double* __restrict__ a, const double* __restrict__ b,
                                  double* __restrict__ partial, size_t n) {
  __shared__ double sums[kStreamThreads];
  double sum = 0.0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    sum += a[i] * b[i];
  sums[threadIdx.x] = sum;
  for (unsigned int offset = kStreamThreads / 2; offset > 0; offset /= 2) {
    __syncthreads();
    if (threadIdx.x < offset) sums[threadIdx.x] += sums[threadIdx.x + offset];
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

__global__ void stream_increment_kernel(double* __restrict__ a, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    a[i] += 1.0;
}

// Device arrays of one stream workload: a, b, c hold n doubles each,
// dot_partials holds kDotBlocks doubles.
struct StreamArrays {
  double* a = nullptr;
  double* b = nullptr;
  double* c = nullptr;
  double* dot_partials = nullptr;
  size_t n = 0;
};

// Enqueues one step (six kernels, see the file comment) on `stream`; exits on
// a launch error. Safe to call while `stream` is capturing.
inline void enqueue_stream_step(const StreamArrays& arrays, cudaStream_t stream) {
  const unsigned int grid = grid_for(arrays.n, kStreamThreads);
  stream_copy_kernel<<<grid, kStreamThreads, 0, stream>>>(arrays.a, arrays.c, arrays.n);
  CHECK_LAUNCH();
  stream_mul_kernel<<<grid, kStreamThreads, 0, stream>>>(arrays.b, arrays.c, arrays.n);
  CHECK_LAUNCH();
  stream_add_kernel<<<grid, kStreamThreads, 0, stream>>>(arrays.a, arrays.b, arrays.c, arrays.n);
  CHECK_LAUNCH();
  stream_triad_kernel<<<grid, kStreamThreads, 0, stream>>>(arrays.a, arrays.b, arrays.c, arrays.n);
  CHECK_LAUNCH();
  stream_dot_kernel<<<kDotBlocks, kStreamThreads, 0, stream>>>(arrays.a, arrays.b, arrays.dot_partials, arrays.n);
  CHECK_LAUNCH();
  stream_increment_kernel<<<grid, kStreamThreads, 0, stream>>>(arrays.a, arrays.n);
  CHECK_LAUNCH();
}

// Elements per array when `total_bytes` are shared by the three arrays
// (rounded down); 0 when total_bytes < 24.
inline size_t stream_elements_for_bytes(uint64_t total_bytes) {
  return static_cast<size_t>(total_bytes / (3 * sizeof(double)));
}

// Allocates the arrays (cudaMalloc) and fills a, b, c and dot_partials with
// uniform doubles in [0.5, 1.5) from SplitMix64(seed), so no buffer starts as
// zeros. Exits on any CUDA error.
inline StreamArrays create_stream_arrays(size_t n, uint64_t seed) {
  StreamArrays arrays;
  arrays.n = n;
  SplitMix64 rng(seed);
  std::vector<double> host(n);
  double** targets[] = {&arrays.a, &arrays.b, &arrays.c};
  for (double** target : targets) {
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(target), n * sizeof(double)));
    fill_uniform(host, rng, 0.5, 1.5);
    CHECK_CUDA(cudaMemcpy(*target, host.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  }
  std::vector<double> partials(kDotBlocks);
  fill_uniform(partials, rng, 0.5, 1.5);
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&arrays.dot_partials), kDotBlocks * sizeof(double)));
  CHECK_CUDA(cudaMemcpy(arrays.dot_partials, partials.data(), kDotBlocks * sizeof(double), cudaMemcpyHostToDevice));
  return arrays;
}

// Prints the checksums of a, b, c and dot_partials, and an informational
// `dot <value>` line (the host sum of the partials, in block order).
inline void print_stream_checksums(const StreamArrays& arrays) {
  print_device_checksum("a", arrays.a, arrays.n * sizeof(double));
  print_device_checksum("b", arrays.b, arrays.n * sizeof(double));
  print_device_checksum("c", arrays.c, arrays.n * sizeof(double));
  std::vector<double> partials(kDotBlocks);
  CHECK_CUDA(cudaMemcpy(partials.data(), arrays.dot_partials, kDotBlocks * sizeof(double), cudaMemcpyDeviceToHost));
  print_checksum("dot_partials", partials.data(), kDotBlocks * sizeof(double));
  double dot = 0.0;
  for (double p : partials) dot += p;
  std::printf("dot %.17g\n", dot);
}

inline void destroy_stream_arrays(StreamArrays& arrays) {
  CHECK_CUDA(cudaFree(arrays.a));
  CHECK_CUDA(cudaFree(arrays.b));
  CHECK_CUDA(cudaFree(arrays.c));
  CHECK_CUDA(cudaFree(arrays.dot_partials));
  arrays = StreamArrays{};
}

}  // namespace rangereplay::example
