// cub_algorithms.cu: a workload built from CUB device algorithms shipped with
// the CUDA toolkit (code nobody on this project wrote), for the workload suite
// (tests/workloads/run_workloads.py). Each step, inside the NVTX
// push/pop range `step`, restores the input keys and values, radix-sorts them
// as pairs with a cub::DoubleBuffer (the sort leaves its result in either
// buffer, chosen by CUB), sums the input keys with DeviceReduce::Sum and
// prefix-sums them with DeviceScan::InclusiveSum. Temporary storage is
// allocated once, before any range, as real applications do.
//
// Output (examples/common/example_common.h convention):
//   checksum keys|values|sum|scan <16 hex>, then checksums-done.
// The results are checked against host references after the last step
// (sortedness, key/value pairing, the sum and every scan element); any
// mismatch exits with status 1.
//
// usage: workload_cub [--iterations N] [--items N]
#include <nvtx3/nvToolsExt.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "example_common.h"

namespace {

using namespace rangereplay::example;

constexpr uint64_t kSeed = 0x5eed0c0bULL;
constexpr uint64_t kDefaultItems = 64ULL << 20;  // 64 Mi keys: 256 MiB per key buffer

const char* const kUsage =
    "usage: workload_cub [--iterations N] [--items N]\n"
    "  --iterations N  number of steps, one NVTX range `step` each (default 2)\n"
    "  --items N       number of 32-bit keys (default 67108864)\n";

struct Options {
  int iterations = 2;
  uint64_t items = kDefaultItems;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--iterations") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n > 1000000) usage_error("--iterations at most 1000000", argv[i]);
      options.iterations = static_cast<int>(n);
    } else if (std::strcmp(argv[i], "--items") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n == 0 || n > (1ULL << 30)) usage_error("--items must be in 1..1073741824", argv[i]);
      options.items = n;
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  return options;
}

template <typename T>
std::vector<T> to_host(const T* device, size_t count) {
  std::vector<T> host(count);
  CHECK_CUDA(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

int run(const Options& options) {
  init_device();
  const size_t n = options.items;
  const size_t key_bytes = n * sizeof(uint32_t);

  // Seeded inputs: random keys, values = original positions.
  std::vector<uint32_t> host_keys(n);
  SplitMix64 rng(kSeed);
  fill_bits(host_keys, rng);
  std::vector<uint32_t> host_values(n);
  for (size_t i = 0; i < n; ++i) host_values[i] = static_cast<uint32_t>(i);

  uint32_t *input_keys = nullptr, *input_values = nullptr;
  uint32_t *keys_a = nullptr, *keys_b = nullptr, *values_a = nullptr, *values_b = nullptr;
  uint32_t* scan_out = nullptr;
  uint64_t* sum_out = nullptr;
  CHECK_CUDA(cudaMalloc(&input_keys, key_bytes));
  CHECK_CUDA(cudaMalloc(&input_values, key_bytes));
  CHECK_CUDA(cudaMalloc(&keys_a, key_bytes));
  CHECK_CUDA(cudaMalloc(&keys_b, key_bytes));
  CHECK_CUDA(cudaMalloc(&values_a, key_bytes));
  CHECK_CUDA(cudaMalloc(&values_b, key_bytes));
  CHECK_CUDA(cudaMalloc(&scan_out, key_bytes));
  CHECK_CUDA(cudaMalloc(&sum_out, sizeof(uint64_t)));
  CHECK_CUDA(cudaMemcpy(input_keys, host_keys.data(), key_bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(input_values, host_values.data(), key_bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(sum_out, 0, sizeof(uint64_t)));
  CHECK_CUDA(cudaMemset(scan_out, 0, key_bytes));

  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  cub::DoubleBuffer<uint32_t> keys(keys_a, keys_b);
  cub::DoubleBuffer<uint32_t> values(values_a, values_b);
  const int items = static_cast<int>(n);

  // Temporary storage: sized for the largest of the three, allocated once,
  // outside any range.
  size_t sort_bytes = 0, reduce_bytes = 0, scan_bytes = 0;
  CHECK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, values, items, 0, 32, stream));
  CHECK_CUDA(cub::DeviceReduce::Sum(nullptr, reduce_bytes, input_keys, sum_out, items, stream));
  CHECK_CUDA(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, input_keys, scan_out, items, stream));
  const size_t temp_bytes = std::max({sort_bytes, reduce_bytes, scan_bytes, size_t{1}});
  void* temp = nullptr;
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  CHECK_CUDA(cudaDeviceSynchronize());

  for (int step = 0; step < options.iterations; ++step) {
    nvtxRangePushA("step");
    // The sort consumes keys.Current(); restore the unsorted input first.
    CHECK_CUDA(cudaMemcpyAsync(keys.Current(), input_keys, key_bytes, cudaMemcpyDeviceToDevice, stream));
    CHECK_CUDA(cudaMemcpyAsync(values.Current(), input_values, key_bytes, cudaMemcpyDeviceToDevice, stream));
    size_t bytes = temp_bytes;
    CHECK_CUDA(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, items, 0, 32, stream));
    bytes = temp_bytes;
    CHECK_CUDA(cub::DeviceReduce::Sum(temp, bytes, input_keys, sum_out, items, stream));
    bytes = temp_bytes;
    CHECK_CUDA(cub::DeviceScan::InclusiveSum(temp, bytes, input_keys, scan_out, items, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    nvtxRangePop();
  }

  // Results and host references.
  const std::vector<uint32_t> sorted_keys = to_host(keys.Current(), n);
  const std::vector<uint32_t> sorted_values = to_host(values.Current(), n);
  const std::vector<uint32_t> scan = to_host(scan_out, n);
  const std::vector<uint64_t> sum = to_host(sum_out, 1);
  if (options.iterations > 0) {
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && sorted_keys[i - 1] > sorted_keys[i]) {
        std::fprintf(stderr, "error: keys not sorted at %zu: %u > %u\n", i, sorted_keys[i - 1], sorted_keys[i]);
        return 1;
      }
      const uint32_t origin = sorted_values[i];
      if (origin >= n || host_keys[origin] != sorted_keys[i]) {
        std::fprintf(stderr, "error: value %u at %zu does not name the position of key %u\n", origin, i,
                     sorted_keys[i]);
        return 1;
      }
    }
    // Every original position appears once (the values are a permutation).
    std::vector<unsigned char> seen(n, 0);
    for (uint32_t origin : sorted_values) {
      if (seen[origin]) {
        std::fprintf(stderr, "error: value %u appears twice\n", origin);
        return 1;
      }
      seen[origin] = 1;
    }
    uint64_t reference_sum = 0;
    uint32_t running = 0;
    for (size_t i = 0; i < n; ++i) {
      reference_sum += host_keys[i];
      running += host_keys[i];  // wraps modulo 2^32 as the device scan does
      if (scan[i] != running) {
        std::fprintf(stderr, "error: scan[%zu] = %u, host reference %u\n", i, scan[i], running);
        return 1;
      }
    }
    if (sum[0] != reference_sum) {
      std::fprintf(stderr, "error: sum %llu, host reference %llu\n", static_cast<unsigned long long>(sum[0]),
                   static_cast<unsigned long long>(reference_sum));
      return 1;
    }
  }

  print_checksum("keys", sorted_keys.data(), key_bytes);
  print_checksum("values", sorted_values.data(), key_bytes);
  print_checksum("sum", sum.data(), sizeof(uint64_t));
  print_checksum("scan", scan.data(), key_bytes);
  print_checksums_done();

  CHECK_CUDA(cudaStreamDestroy(stream));
  for (void* p : {static_cast<void*>(input_keys), static_cast<void*>(input_values), static_cast<void*>(keys_a),
                  static_cast<void*>(keys_b), static_cast<void*>(values_a), static_cast<void*>(values_b),
                  static_cast<void*>(scan_out), static_cast<void*>(sum_out), temp}) {
    CHECK_CUDA(cudaFree(p));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(parse_options(argc, argv)); }
