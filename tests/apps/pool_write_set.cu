// pool_write_set: a program that reserves most of device memory in one
// cudaMalloc and sub-allocates its buffers from it, as XLA's and other
// pooling allocators do (for tests/e2e/pool_write_set.py). The pool is one
// region far larger than the snapshot tiers hold, so the tool snapshots only
// the chunks each range writes (write-set snapshots).
//
// Buffers, sub-allocated from the pool at offsets not aligned to 1 MiB (so
// they straddle digest chunks): a, b and c of --buffer-bytes each (spread
// over the pool), acc of the same size, and the pool's first and last MiB
// (guards, never written). Each NVTX range `step` runs
//   affine(w, salt = iteration); acc = 3 acc + w
// where w is `a` in every range, or with --rotate a, b, c in turn (so a range
// writes a buffer no earlier range wrote). After the last range every buffer
// and guard is copied back and printed as `checksum <name> <FNV-1a 64>`, then
// `checksums-done` (examples/common/example_common.h); the program also
// checks 4099 sampled elements of each buffer against a host reference.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_pool_write_set [--iterations N] [--buffer-bytes BYTES] [--pool-percent P] [--rotate]\n"
    "  --iterations N       NVTX ranges `step` (default 6)\n"
    "  --buffer-bytes BYTES size of each sub-allocated buffer, a multiple of 4 (default 128MiB)\n"
    "  --pool-percent P     the pool takes P% of the device memory free at start (default 80)\n"
    "  --rotate             range k updates buffer a, b, c in turn (default: always a)\n";

constexpr std::size_t kSamples = 4099;
constexpr std::uint64_t kGuardBytes = std::uint64_t{1} << 20;

// The command line's values (kUsage), defaults as listed there.
struct Options {
  bool rotate = false;
  std::uint64_t pool_percent = 80;
  std::uint64_t buffer_bytes = std::uint64_t{128} << 20;
  int iterations = 6;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help") {
      std::printf("%s", kUsage);
      std::exit(0);
    }
    if (arg == "--rotate") {
      options.rotate = true;
      continue;
    }
    if (arg != "--iterations" && arg != "--buffer-bytes" && arg != "--pool-percent")
      usage_error("unknown argument", argv[i]);
    const char* value = option_value(argc, argv, i);  // each of these takes one
    if (arg == "--iterations") options.iterations = static_cast<int>(parse_count(value));
    if (arg == "--buffer-bytes") options.buffer_bytes = parse_bytes(value);
    if (arg == "--pool-percent") options.pool_percent = parse_count(value);
  }
  if (options.iterations > 1000) usage_error("--iterations at most 1000", nullptr);
  if (options.buffer_bytes == 0 || options.buffer_bytes % 4 != 0)
    usage_error("--buffer-bytes must be a multiple of 4", nullptr);
  if (options.pool_percent == 0 || options.pool_percent > 95) usage_error("--pool-percent must be in 1..95", nullptr);
  return options;
}

// The initial value of element i of a buffer seeded with `seed` (a hash).
__host__ __device__ inline uint32_t seed_value(size_t i, uint32_t seed) {
  uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
  h ^= h >> 15;
  h *= 2246822519u;
  return h ^ (h >> 13);
}

// Fills x[i] = seed_value(i, seed) on the device (the pool's buffers start
// from known data without a host upload of their size).
__global__ void seed_kernel(uint32_t* x, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = seed_value(i, seed);
}

// One sub-allocated buffer and its host reference at sampled indices.
struct Buffer {
  const char* name;
  uint32_t* device;
  uint32_t seed;
  std::vector<size_t> indices;
  std::vector<uint32_t> expected;  // at `indices`
};

int run(const Options& options) {
  init_device();
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t pool_bytes =
      free_bytes / 100 * options.pool_percent / (std::uint64_t{2} << 20) * (std::uint64_t{2} << 20);
  const std::uint64_t n = options.buffer_bytes / 4;
  if (pool_bytes < 8 * options.buffer_bytes + 4 * kGuardBytes)
    usage_error("the pool is too small for the buffers", nullptr);
  unsigned char* pool = nullptr;
  CHECK_CUDA(cudaMalloc(&pool, pool_bytes));
  std::printf("pool %llu bytes (%llu%% of %llu free), buffers %llu bytes\n",
              static_cast<unsigned long long>(pool_bytes), static_cast<unsigned long long>(options.pool_percent),
              static_cast<unsigned long long>(free_bytes), static_cast<unsigned long long>(options.buffer_bytes));

  // Offsets 768 bytes past a 4 KiB boundary: not aligned to the 1 MiB digest chunks.
  const auto at = [&](std::uint64_t eighths) {
    return reinterpret_cast<uint32_t*>(pool + (pool_bytes / 8 * eighths) / 4096 * 4096 + 768);
  };
  Buffer buffers[] = {{"a", at(1), 0xa1, {}, {}},
                      {"b", at(3), 0xb2, {}, {}},
                      {"c", at(5), 0xc3, {}, {}},
                      {"acc", at(7) - n - 1024, 0xd4, {}, {}}};
  CHECK_CUDA(cudaMemset(pool, 0x5a, kGuardBytes));
  CHECK_CUDA(cudaMemset(pool + pool_bytes - kGuardBytes, 0xa5, kGuardBytes));
  for (Buffer& buffer : buffers) {
    seed_kernel<<<grid_for(n, kAppThreads), kAppThreads>>>(buffer.device, n, buffer.seed);
    CHECK_LAUNCH();
    for (std::size_t s = 0; s < kSamples; ++s) {
      const std::size_t i = s == kSamples - 1 ? n - 1 : static_cast<std::size_t>(n / kSamples * s);
      buffer.indices.push_back(i);
      buffer.expected.push_back(seed_value(i, buffer.seed));
    }
  }
  CHECK_CUDA(cudaDeviceSynchronize());

  Buffer& acc = buffers[3];
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    Buffer& w = buffers[options.rotate ? iteration % 3 : 0];
    const auto salt = static_cast<uint32_t>(iteration + 1);
    nvtxRangePushA("step");
    launch_affine(w.device, n, salt, /*stream=*/0);
    launch_accumulate(acc.device, w.device, n, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    for (std::size_t s = 0; s < kSamples; ++s) {
      w.expected[s] = affine(w.expected[s], salt, w.indices[s]);
      acc.expected[s] = accumulate(acc.expected[s], w.expected[s]);
    }
  }

  for (const Buffer& buffer : buffers) {
    std::vector<uint32_t> host(n);
    CHECK_CUDA(cudaMemcpy(host.data(), buffer.device, n * 4, cudaMemcpyDeviceToHost));
    for (std::size_t s = 0; s < kSamples; ++s) {
      if (host[buffer.indices[s]] != buffer.expected[s]) {
        std::fprintf(stderr, "error: %s[%zu] = %u, expected %u\n", buffer.name, buffer.indices[s],
                     host[buffer.indices[s]], buffer.expected[s]);
        return 1;
      }
    }
    print_checksum(buffer.name, host.data(), n * 4);
  }
  print_device_checksum("guard-first", pool, kGuardBytes);
  print_device_checksum("guard-last", pool + pool_bytes - kGuardBytes, kGuardBytes);
  CHECK_CUDA(cudaFree(pool));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) { return rangereplay::example::run(rangereplay::example::parse(argc, argv)); }
