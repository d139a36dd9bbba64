// atomics: a global-memory atomic histogram and counters, accumulated over the
// iterations and never reset, so a replay that does not restore memory first
// changes the result (the range is non-idempotent). Integer atomics commute, so
// the checksums are deterministic. --float adds a floating-point atomicAdd
// accumulation whose bytes depend on the order the atomics land in; it is
// printed as `checksum-nondeterministic` so comparisons skip it. The program
// checks the bins and counters against a host reference and exits 1 on a
// mismatch.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: atomics [--elements N] [--iterations N] [--float]\n"
    "  --elements N    32-bit input values (default 16777216)\n"
    "  --iterations N  number of steps, one NVTX range `step` each (default 3)\n"
    "  --float         also accumulate float atomicAdd sums per bin (order-dependent;\n"
    "                  printed as `checksum-nondeterministic float_bin_sums`)\n"
    "Prints `checksum <buffer> <hex>` for values, bins, counters, then `checksums-done`.\n";

constexpr unsigned int kBins = 1024;
constexpr unsigned int kThreads = 256;
constexpr unsigned int kCounters = 4;  // elements seen, sum of values, odd values, maximum value

struct Options {
  size_t elements = size_t{1} << 24;
  int iterations = 3;
  bool with_float = false;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--elements") == 0) {
      options.elements = parse_count(option_value(argc, argv, i));
      if (options.elements == 0) usage_error("--elements must be positive", nullptr);
    } else if (std::strcmp(argv[i], "--iterations") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n > 1000000) usage_error("--iterations at most 1000000", argv[i]);
      options.iterations = static_cast<int>(n);
    } else if (std::strcmp(argv[i], "--float") == 0) {
      options.with_float = true;
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  return options;
}

// One LCG step per value (Numerical Recipes constants), so every iteration
// histograms different data.
__global__ void scramble_kernel(uint32_t* values, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    values[i] = values[i] * 1664525u + 1013904223u;
}

// bins[v % kBins] += 1 for every value, with one global atomic per value;
// counters gather per-thread totals with one atomic each per thread.
__global__ void histogram_kernel(const uint32_t* values, size_t n, unsigned int* bins, unsigned long long* counters) {
  unsigned long long seen = 0, sum = 0, odd = 0;
  unsigned int maximum = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    const uint32_t v = values[i];
    atomicAdd(&bins[v % kBins], 1u);
    ++seen;
    sum += v;
    odd += v & 1u;
    maximum = max(maximum, v);
  }
  atomicAdd(&counters[0], seen);
  atomicAdd(&counters[1], sum);
  atomicAdd(&counters[2], odd);
  atomicMax(&counters[3], static_cast<unsigned long long>(maximum));
}

// float_sums[v % kBins] += (v >> 8) * 2^-24: the rounding of each add depends
// on the order the atomics are applied in.
__global__ void float_sums_kernel(const uint32_t* values, size_t n, float* float_sums) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    const uint32_t v = values[i];
    atomicAdd(&float_sums[v % kBins], static_cast<float>(v >> 8) * 0x1.0p-24f);
  }
}

// The host's own computation of what `iterations` steps make of the inputs,
// so the program can tell a wrong result from a merely different one.
void compute_reference(std::vector<uint32_t> values, std::vector<uint32_t>& bins,
                       std::vector<unsigned long long>& counters, int iterations) {
  for (int iteration = 0; iteration < iterations; ++iteration) {
    for (uint32_t& v : values) {
      v = v * 1664525u + 1013904223u;
      ++bins[v % kBins];
      counters[0] += 1;
      counters[1] += v;
      counters[2] += v & 1u;
      counters[3] = counters[3] > v ? counters[3] : v;
    }
  }
}

int run(const Options& options) {
  init_device();
  const size_t n = options.elements;
  std::printf("atomics: %zu values, %u bins, %d iterations%s\n", n, kBins, options.iterations,
              options.with_float ? ", float sums" : "");

  SplitMix64 rng(0x5eed0002);
  std::vector<uint32_t> host_values(n);
  fill_bits(host_values, rng);
  std::vector<uint32_t> host_bins(kBins);
  fill_bits(host_bins, rng);  // a non-zero starting histogram
  std::vector<unsigned long long> host_counters(kCounters);
  for (unsigned long long& c : host_counters) c = rng.next() >> 32;
  std::vector<float> host_float_sums(kBins);
  fill_uniform(host_float_sums, rng, 0.5f, 1.5f);

  uint32_t* values = nullptr;
  unsigned int* bins = nullptr;
  unsigned long long* counters = nullptr;
  float* float_sums = nullptr;
  CHECK_CUDA(cudaMalloc(&values, n * sizeof(uint32_t)));
  CHECK_CUDA(cudaMalloc(&bins, kBins * sizeof(unsigned int)));
  CHECK_CUDA(cudaMalloc(&counters, kCounters * sizeof(unsigned long long)));
  CHECK_CUDA(cudaMemcpy(values, host_values.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(bins, host_bins.data(), kBins * sizeof(unsigned int), cudaMemcpyHostToDevice));
  CHECK_CUDA(
      cudaMemcpy(counters, host_counters.data(), kCounters * sizeof(unsigned long long), cudaMemcpyHostToDevice));
  if (options.with_float) {
    CHECK_CUDA(cudaMalloc(&float_sums, kBins * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(float_sums, host_float_sums.data(), kBins * sizeof(float), cudaMemcpyHostToDevice));
  }
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const unsigned int grid = grid_for(n, kThreads);
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    nvtxRangePushA("step");
    scramble_kernel<<<grid, kThreads, 0, stream>>>(values, n);
    CHECK_LAUNCH();
    histogram_kernel<<<grid, kThreads, 0, stream>>>(values, n, bins, counters);
    CHECK_LAUNCH();
    if (options.with_float) {
      float_sums_kernel<<<grid, kThreads, 0, stream>>>(values, n, float_sums);
      CHECK_LAUNCH();
    }
    nvtxRangePop();
    CHECK_CUDA(cudaStreamSynchronize(stream));
  }

  std::vector<uint32_t> expected_bins = host_bins;
  std::vector<unsigned long long> expected_counters = host_counters;
  compute_reference(host_values, expected_bins, expected_counters, options.iterations);
  CHECK_CUDA(cudaMemcpy(host_bins.data(), bins, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(
      cudaMemcpy(host_counters.data(), counters, kCounters * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CHECK_THAT(host_bins == expected_bins);
  CHECK_THAT(host_counters == expected_counters);

  print_device_checksum("values", values, n * sizeof(uint32_t));
  print_checksum("bins", host_bins.data(), kBins * sizeof(unsigned int));
  print_checksum("counters", host_counters.data(), kCounters * sizeof(unsigned long long));
  if (options.with_float) {
    CHECK_CUDA(cudaMemcpy(host_float_sums.data(), float_sums, kBins * sizeof(float), cudaMemcpyDeviceToHost));
    print_nondeterministic_checksum("float_bin_sums", host_float_sums.data(), kBins * sizeof(float));
    CHECK_CUDA(cudaFree(float_sums));
  }
  std::printf("counters seen=%llu sum=%llu odd=%llu max=%llu\n", host_counters[0], host_counters[1], host_counters[2],
              host_counters[3]);
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(values));
  CHECK_CUDA(cudaFree(bins));
  CHECK_CUDA(cudaFree(counters));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_options(argc, argv));
}
