// guidance_kernels: four kernels, each built so that one guidance rule
// (src/report/guidance.h) names what limits it on Hopper (H100/H200), in one
// NVTX range `step` per iteration (tests/e2e/guidance.py checks the findings):
//   triad_kernel           a = b + s c over three 256 MiB float arrays: memory bound (DRAM streaming).
//   fma_chains_kernel      8 independent FMA chains per thread, 2048 rounds, in registers: compute bound.
//   register_heavy_kernel  168 floats live in registers across dependent (pointer-chasing, coalesced) loads:
//                          over 128 registers per thread leave room for one block of 256 threads per SM
//                          (12.5% occupancy), waiting blocks wait for registers; latency bound.
//   strided_load_kernel    out[i] = 2 src[32 i]: each thread of a warp reads its own 32-byte sector and
//                          uses 4 of its bytes (uncoalesced loads).
// b and c are filled on the device from a hash of the index (outside the
// range), so the host can recompute any element: every output is checked on
// sampled elements against a host reference (exit 1 on a mismatch), then its
// checksum is printed. All float arithmetic is explicit fmaf or a single add,
// so host and device round alike.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_guidance_kernels [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 1), each launching the four kernels:\n"
    "                  triad_kernel, fma_chains_kernel, register_heavy_kernel, strided_load_kernel\n"
    "Prints `checksum <buffer> <hex>` for a, fma_out, register_out, strided_out, then `checksums-done`.\n";

constexpr size_t kElements = size_t{1} << 26;  // floats per array: 256 MiB each, well above any L2
constexpr unsigned int kThreads = 256;
constexpr uint32_t kSeedB = 0x9e1d0001;
constexpr uint32_t kSeedC = 0x9e1d0002;
constexpr uint32_t kSeedFma = 0x9e1d0003;
constexpr uint32_t kSeedRegister = 0x9e1d0004;
constexpr float kTriadScalar = 0.4375f;

// Compute bound: enough threads for full occupancy, each with independent chains.
constexpr unsigned int kFmaBlocks = 4096;
constexpr int kFmaChains = 8;
constexpr int kFmaRounds = 2048;

// Register bound: kLive floats stay live across every step; each step makes
// kHops dependent loads of a whole 128-byte line per warp.
constexpr int kLive = 168;
constexpr int kHops = 4;
constexpr int kRegisterSteps = 64;
constexpr unsigned int kRegisterBlocksPerSm = 8;  // blocks per SM launched; one fits at a time
constexpr uint32_t kLines = static_cast<uint32_t>(kElements / 32);

// Uncoalesced: one float of every 32 (one per 128-byte line).
constexpr int kStride = 32;
constexpr size_t kStridedElements = kElements / kStride;

// A 32-bit integer hash (the "lowbias32" finalizer of Chris Wellons' hash
// prospector): well mixed, identical on host and device.
__host__ __device__ inline uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// A value in [1, 2) with 23 random fraction bits: exact in float.
__host__ __device__ inline float seeded(uint32_t index, uint32_t seed) {
  return 1.0f + static_cast<float>(mix(index ^ seed) >> 9) * 0x1p-23f;
}

__host__ __device__ inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

__global__ void fill_kernel(float* x, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = seeded(static_cast<uint32_t>(i), seed);
}

__global__ void triad_kernel(float* a, const float* b, const float* c, size_t n, float s) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    a[i] = fmaf(s, c[i], b[i]);
}

// The chain of thread `t`, shared by the kernel and the host reference.
__host__ __device__ inline float fma_chains(uint32_t t) {
  float x[kFmaChains];
  for (int k = 0; k < kFmaChains; ++k) x[k] = seeded(t * kFmaChains + k, kSeedFma);
  for (int r = 0; r < kFmaRounds; ++r) {
    for (int k = 0; k < kFmaChains; ++k) x[k] = fmaf(x[k], 0.9990234375f, 0.0009765625f * (k + 1));
  }
  float sum = 0;
  for (int k = 0; k < kFmaChains; ++k) sum += x[k];
  return sum;
}

__global__ void fma_chains_kernel(float* out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  float x[kFmaChains];
#pragma unroll
  for (int k = 0; k < kFmaChains; ++k) x[k] = seeded(t * kFmaChains + k, kSeedFma);
#pragma unroll 4
  for (int r = 0; r < kFmaRounds; ++r) {
#pragma unroll
    for (int k = 0; k < kFmaChains; ++k) x[k] = fmaf(x[k], 0.9990234375f, 0.0009765625f * (k + 1));
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < kFmaChains; ++k) sum += x[k];
  out[t] = sum;
}

// __launch_bounds__(256, 1) lets the compiler use up to 255 registers; the
// kLive accumulators need more than 128, so only one block fits an SM's
// 65536 registers. The next line is lane 0's loaded value hashed, so a warp
// reads one whole line per hop (coalesced) and each hop waits for the last.
__global__ void __launch_bounds__(kThreads, 1) register_heavy_kernel(float* out, const float* src) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x & 31;
  uint32_t line = mix((t >> 5) ^ kSeedRegister) & (kLines - 1);
  float acc[kLive];
#pragma unroll
  for (int j = 0; j < kLive; ++j) acc[j] = seeded(t * kLive + j, kSeedRegister);
  for (int s = 0; s < kRegisterSteps; ++s) {
    float v = 0;
#pragma unroll 1
    for (int h = 0; h < kHops; ++h) {
      const float x = src[size_t{line} * 32 + lane];
      v += x;
      line = mix(__shfl_sync(0xffffffffu, float_bits(x), 0) ^ line) & (kLines - 1);
    }
#pragma unroll
    for (int j = 0; j < kLive; ++j) acc[j] = fmaf(acc[j], 0.9990234375f, v);
  }
  float sum = 0;
#pragma unroll
  for (int j = 0; j < kLive; ++j) sum += acc[j];
  out[t] = sum;
}

__global__ void strided_load_kernel(float* out, const float* src, size_t m) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < m; i += size_t{gridDim.x} * blockDim.x)
    out[i] = 2.0f * src[i * kStride];
}

// Host reference of register_heavy_kernel's thread `t`; src[i] = seeded(i, kSeedB).
float register_heavy_reference(uint32_t t) {
  const uint32_t lane = t & 31;
  uint32_t line = mix((t >> 5) ^ kSeedRegister) & (kLines - 1);
  std::vector<float> acc(kLive);
  for (int j = 0; j < kLive; ++j) acc[j] = seeded(t * kLive + j, kSeedRegister);
  for (int s = 0; s < kRegisterSteps; ++s) {
    float v = 0;
    for (int h = 0; h < kHops; ++h) {
      v += seeded(line * 32 + lane, kSeedB);
      line = mix(float_bits(seeded(line * 32, kSeedB)) ^ line) & (kLines - 1);
    }
    for (int j = 0; j < kLive; ++j) acc[j] = std::fma(acc[j], 0.9990234375f, v);
  }
  float sum = 0;
  for (int j = 0; j < kLive; ++j) sum += acc[j];
  return sum;
}

std::vector<float> download_floats(const float* device, size_t count) {
  std::vector<float> host(count);
  CHECK_CUDA(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// Exits 1 unless host[i] equals reference(i) for `samples` indices spread over the buffer.
template <typename Reference>
void check_samples(const std::vector<float>& host, const char* name, size_t samples, Reference reference) {
  for (size_t k = 0; k < samples; ++k) {
    const size_t i = k == samples - 1 ? host.size() - 1 : mix(static_cast<uint32_t>(k) ^ 0x5a5a5a5au) % host.size();
    const float expected = reference(i);
    if (float_bits(host[i]) != float_bits(expected)) {
      std::fprintf(stderr, "error: %s[%zu] = %.9g, host reference %.9g\n", name, i, host[i], expected);
      std::exit(1);
    }
  }
  print_checksum(name, host.data(), host.size() * sizeof(float));
}

int run(int iterations) {
  init_device();
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned int register_blocks = kRegisterBlocksPerSm * static_cast<unsigned int>(sms);
  const size_t register_threads = size_t{register_blocks} * kThreads;
  const size_t fma_threads = size_t{kFmaBlocks} * kThreads;

  float *a = nullptr, *b = nullptr, *c = nullptr, *fma_out = nullptr, *register_out = nullptr, *strided_out = nullptr;
  CHECK_CUDA(cudaMalloc(&a, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&b, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&c, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&fma_out, fma_threads * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&register_out, register_threads * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&strided_out, kStridedElements * sizeof(float)));
  fill_kernel<<<grid_for(kElements, kThreads), kThreads>>>(b, kElements, kSeedB);
  CHECK_LAUNCH();
  fill_kernel<<<grid_for(kElements, kThreads), kThreads>>>(c, kElements, kSeedC);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaDeviceSynchronize());

  for (int iteration = 0; iteration < iterations; ++iteration) {
    nvtxRangePushA("step");
    triad_kernel<<<grid_for(kElements, kThreads), kThreads>>>(a, b, c, kElements, kTriadScalar);
    CHECK_LAUNCH();
    fma_chains_kernel<<<kFmaBlocks, kThreads>>>(fma_out);
    CHECK_LAUNCH();
    register_heavy_kernel<<<register_blocks, kThreads>>>(register_out, b);
    CHECK_LAUNCH();
    strided_load_kernel<<<grid_for(kStridedElements, kThreads), kThreads>>>(strided_out, c, kStridedElements);
    CHECK_LAUNCH();
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
  }

  if (iterations > 0) {
    check_samples(download_floats(a, kElements), "a", 4096, [](size_t i) {
      const auto u = static_cast<uint32_t>(i);
      return std::fma(kTriadScalar, seeded(u, kSeedC), seeded(u, kSeedB));
    });
    check_samples(download_floats(fma_out, fma_threads), "fma_out", 64,
                  [](size_t t) { return fma_chains(static_cast<uint32_t>(t)); });
    check_samples(download_floats(register_out, register_threads), "register_out", 64,
                  [](size_t t) { return register_heavy_reference(static_cast<uint32_t>(t)); });
    check_samples(download_floats(strided_out, kStridedElements), "strided_out", 4096,
                  [](size_t i) { return 2.0f * seeded(static_cast<uint32_t>(i * kStride), kSeedC); });
  }
  for (float* p : {a, b, c, fma_out, register_out, strided_out}) CHECK_CUDA(cudaFree(p));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 1, kUsage));
}
