// app_kernels.cuh: the two order-sensitive kernels the tiny test apps are made
// of, each with its host reference, so every app can check its own result
// (exit 1 on a mismatch) as well as print checksums.
//   affine:     x[i] = 3 x[i] + salt + i       (applying salts a then b differs from b then a)
//   accumulate: acc[i] = 3 acc[i] + x[i]       (non-idempotent)
//   copy:       y[i] = x[i]
// All arithmetic is on uint32_t, modulo 2^32, identical on host and device.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "example_common.h"

namespace rangereplay::example {

// An odd element count: not a multiple of the block size or of 16 bytes.
constexpr size_t kAppElements = (size_t{1} << 16) + 3;
constexpr unsigned int kAppThreads = 256;

__host__ __device__ inline uint32_t affine(uint32_t x, uint32_t salt, size_t i) {
  return x * 3u + salt + static_cast<uint32_t>(i);
}

__host__ __device__ inline uint32_t accumulate(uint32_t acc, uint32_t x) { return acc * 3u + x; }

__global__ void affine_kernel(uint32_t* x, size_t n, uint32_t salt) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = affine(x[i], salt, i);
}

__global__ void accumulate_kernel(uint32_t* acc, const uint32_t* x, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    acc[i] = accumulate(acc[i], x[i]);
}

__global__ void copy_words_kernel(uint32_t* y, const uint32_t* x, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    y[i] = x[i];
}

inline void launch_copy(uint32_t* y, const uint32_t* x, size_t n, cudaStream_t stream) {
  copy_words_kernel<<<grid_for(n, kAppThreads), kAppThreads, 0, stream>>>(y, x, n);
  CHECK_LAUNCH();
}

inline void launch_affine(uint32_t* x, size_t n, uint32_t salt, cudaStream_t stream) {
  affine_kernel<<<grid_for(n, kAppThreads), kAppThreads, 0, stream>>>(x, n, salt);
  CHECK_LAUNCH();
}

inline void launch_accumulate(uint32_t* acc, const uint32_t* x, size_t n, cudaStream_t stream) {
  accumulate_kernel<<<grid_for(n, kAppThreads), kAppThreads, 0, stream>>>(acc, x, n);
  CHECK_LAUNCH();
}

inline void host_affine(std::vector<uint32_t>& x, uint32_t salt) {
  for (size_t i = 0; i < x.size(); ++i) x[i] = affine(x[i], salt, i);
}

inline void host_accumulate(std::vector<uint32_t>& acc, const std::vector<uint32_t>& x) {
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = accumulate(acc[i], x[i]);
}

// Returns `count` seeded random words.
inline std::vector<uint32_t> random_words(size_t count, uint64_t seed) {
  std::vector<uint32_t> words(count);
  SplitMix64 rng(seed);
  fill_bits(words, rng);
  return words;
}

// cudaMalloc + synchronous upload of `host`.
inline uint32_t* upload(const std::vector<uint32_t>& host) {
  uint32_t* device = nullptr;
  CHECK_CUDA(cudaMalloc(&device, host.size() * sizeof(uint32_t)));
  CHECK_CUDA(cudaMemcpy(device, host.data(), host.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
  return device;
}

// Synchronous download of `count` words.
inline std::vector<uint32_t> download(const uint32_t* device, size_t count) {
  std::vector<uint32_t> host(count);
  CHECK_CUDA(cudaMemcpy(host.data(), device, count * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  return host;
}

// Exits 1 unless `actual` equals `expected`, naming the first differing word.
inline void expect_words(const std::vector<uint32_t>& actual, const std::vector<uint32_t>& expected, const char* name) {
  for (size_t i = 0; i < expected.size(); ++i) {
    if (i >= actual.size() || actual[i] != expected[i]) {
      std::fprintf(stderr, "error: %s[%zu] = %u, host reference %u\n", name, i, i < actual.size() ? actual[i] : 0u,
                   expected[i]);
      std::exit(1);
    }
  }
  if (actual.size() != expected.size()) {
    std::fprintf(stderr, "error: %s has %zu words, host reference %zu\n", name, actual.size(), expected.size());
    std::exit(1);
  }
}

// Checks `actual` against `expected`, then prints its checksum.
inline void check_and_print(const std::vector<uint32_t>& actual, const std::vector<uint32_t>& expected,
                            const char* name) {
  expect_words(actual, expected, name);
  print_checksum(name, actual.data(), actual.size() * sizeof(uint32_t));
}

}  // namespace rangereplay::example
