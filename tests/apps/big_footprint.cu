// big_footprint: a program whose snapshot cannot stay on the device (for
// tests/e2e/snapshot_spill.sh). Three buffers of 2 GiB (6 GiB in all) are
// rewritten by an NVTX range `step` per iteration: every kernel reads and
// modifies all of them, so a replay that restored any byte wrongly changes the
// final checksums.
//
//   --fill-device-except BYTES  after allocating its buffers, occupies device
//                               memory until only BYTES are free, so a
//                               snapshot of the footprint must spill to pinned
//                               host memory.
//
// The filler is physical memory from cuMemCreate that is never mapped: it uses
// device memory (cuMemGetInfo counts it) but has no device address, so it is
// no region of the application and no part of any snapshot. (Filler from
// cudaMalloc would be application memory: the tool would have to snapshot it
// too, and the snapshot would never fit.)
//
// Checks itself against a host reference at 4099 sampled indices of every
// buffer, then prints `checksum <buffer> <FNV-1a 64>` lines and
// `checksums-done` (examples/common/example_common.h).
//   step: a = a * 2654435761 + b;  b = (b ^ (a >> 13)) + c;  c = rotl(c, 5) ^ (a + 0x9e3779b9)
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_big_footprint [--iterations N] [--buffer-bytes BYTES] [--fill-device-except BYTES]\n"
    "  --iterations N               NVTX ranges `step` (default 2)\n"
    "  --buffer-bytes BYTES         size of each of the three buffers, a multiple of 4 (default 2GiB)\n"
    "  --fill-device-except BYTES   after allocating, occupy device memory until only BYTES are free\n";

constexpr unsigned int kThreads = 256;
constexpr std::size_t kSamples = 4096;

struct Options {
  int iterations = 2;
  std::uint64_t buffer_bytes = std::uint64_t{2} << 30;
  std::uint64_t fill_except_bytes = 0;
  bool fill = false;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--iterations") == 0) {
      const std::uint64_t n = parse_count(option_value(argc, argv, i));
      if (n > 1000) usage_error("--iterations at most 1000", argv[i]);
      options.iterations = static_cast<int>(n);
    } else if (std::strcmp(argv[i], "--buffer-bytes") == 0) {
      options.buffer_bytes = parse_bytes(option_value(argc, argv, i));
      if (options.buffer_bytes == 0 || options.buffer_bytes % 4 != 0)
        usage_error("--buffer-bytes must be a positive multiple of 4", argv[i]);
    } else if (std::strcmp(argv[i], "--fill-device-except") == 0) {
      options.fill_except_bytes = parse_bytes(option_value(argc, argv, i));
      options.fill = true;
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  return options;
}

// The initial word of buffer `buffer` at index i (a SplitMix64 finalizer of
// the index and buffer), identical on host and device.
__host__ __device__ inline std::uint32_t initial_word(std::uint32_t buffer, std::size_t i) {
  std::uint64_t z = (static_cast<std::uint64_t>(i) + (std::uint64_t{buffer} << 40)) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<std::uint32_t>(z ^ (z >> 31));
}

__host__ __device__ inline std::uint32_t step_a(std::uint32_t a, std::uint32_t b) { return a * 2654435761u + b; }
__host__ __device__ inline std::uint32_t step_b(std::uint32_t b, std::uint32_t a, std::uint32_t c) {
  return (b ^ (a >> 13)) + c;
}
__host__ __device__ inline std::uint32_t step_c(std::uint32_t c, std::uint32_t a) {
  return ((c << 5) | (c >> 27)) ^ (a + 0x9e3779b9u);
}

__global__ void init_kernel(std::uint32_t* x, std::size_t n, std::uint32_t buffer) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    x[i] = initial_word(buffer, i);
}

__global__ void step_a_kernel(std::uint32_t* a, const std::uint32_t* b, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    a[i] = step_a(a[i], b[i]);
}

__global__ void step_b_kernel(std::uint32_t* b, const std::uint32_t* a, const std::uint32_t* c, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    b[i] = step_b(b[i], a[i], c[i]);
}

__global__ void step_c_kernel(std::uint32_t* c, const std::uint32_t* a, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    c[i] = step_c(c[i], a[i]);
}

// Physical device memory that is never mapped (see the file comment).
class DeviceFiller {
 public:
  ~DeviceFiller() {
    for (CUmemGenericAllocationHandle handle : handles_) CHECK_CU(cuMemRelease(handle));
  }

  // Allocates until at most `keep_free + granularity` bytes are free.
  void fill_except(std::uint64_t keep_free) {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    std::size_t granularity = 0;
    CHECK_CU(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    std::size_t chunk = std::size_t{1} << 30;
    for (;;) {
      std::size_t free_bytes = 0;
      std::size_t total_bytes = 0;
      CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      if (free_bytes <= keep_free + granularity) break;
      const std::size_t excess = (free_bytes - keep_free) / granularity * granularity;
      if (chunk > excess) chunk = excess;
      CUmemGenericAllocationHandle handle = 0;
      const CUresult result = cuMemCreate(&handle, chunk, &prop, 0);
      if (result == CUDA_ERROR_OUT_OF_MEMORY) {
        if (chunk <= granularity) break;  // what cuMemGetInfo calls free cannot all be had
        chunk = chunk / 2 / granularity * granularity;
        if (chunk < granularity) chunk = granularity;
        continue;
      }
      CHECK_CU(result);
      handles_.push_back(handle);
      filled_ += chunk;
    }
  }

  std::uint64_t filled() const { return filled_; }

 private:
  std::vector<CUmemGenericAllocationHandle> handles_;
  std::uint64_t filled_ = 0;
};

// FNV-1a 64 of `bytes` bytes of device memory, streamed through a pinned
// staging buffer (the same value as fnv1a64 over the whole buffer at once).
void print_streamed_checksum(const char* name, const std::uint32_t* device, std::uint64_t bytes) {
  constexpr std::size_t kStage = std::size_t{64} << 20;
  unsigned char* stage = nullptr;
  CHECK_CUDA(cudaMallocHost(&stage, kStage));
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  const auto* src = reinterpret_cast<const unsigned char*>(device);
  for (std::uint64_t done = 0; done < bytes;) {
    const std::size_t n = static_cast<std::size_t>(bytes - done < kStage ? bytes - done : kStage);
    CHECK_CUDA(cudaMemcpy(stage, src + done, n, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i) {
      hash ^= stage[i];
      hash *= 0x100000001b3ULL;
    }
    done += n;
  }
  CHECK_CUDA(cudaFreeHost(stage));
  std::printf("checksum %s %016" PRIx64 "\n", name, hash);
}

std::uint32_t read_word(const std::uint32_t* device, std::size_t i) {
  std::uint32_t word = 0;
  CHECK_CUDA(cudaMemcpy(&word, device + i, sizeof word, cudaMemcpyDeviceToHost));
  return word;
}

int run(const Options& options) {
  init_device();
  const std::size_t n = options.buffer_bytes / 4;
  std::uint32_t* buffers[3] = {};
  for (std::uint32_t b = 0; b < 3; ++b) {
    CHECK_CUDA(cudaMalloc(&buffers[b], options.buffer_bytes));
    init_kernel<<<grid_for(n, kThreads), kThreads>>>(buffers[b], n, b);
    CHECK_LAUNCH();
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  std::uint32_t* a = buffers[0];
  std::uint32_t* b = buffers[1];
  std::uint32_t* c = buffers[2];

  DeviceFiller filler;
  if (options.fill) {
    filler.fill_except(options.fill_except_bytes);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    std::fprintf(stderr,
                 "big_footprint: %" PRIu64 " bytes in 3 buffers; filler %" PRIu64
                 " bytes; %zu of %zu bytes of device memory free\n",
                 3 * options.buffer_bytes, filler.filled(), free_bytes, total_bytes);
  }

  const unsigned int grid = grid_for(n, kThreads);
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    nvtxRangePushA("step");
    step_a_kernel<<<grid, kThreads>>>(a, b, n);
    CHECK_LAUNCH();
    step_b_kernel<<<grid, kThreads>>>(b, a, c, n);
    CHECK_LAUNCH();
    step_c_kernel<<<grid, kThreads>>>(c, a, n);
    CHECK_LAUNCH();
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
  }

  // Host reference at sampled indices (both ends included).
  for (std::size_t s = 0; s <= kSamples + 2; ++s) {
    const std::size_t i = s == kSamples + 1 ? n - 1 : s == kSamples + 2 ? (n / 2 + 1) % n : s * (n / kSamples) % n;
    std::uint32_t ha = initial_word(0, i);
    std::uint32_t hb = initial_word(1, i);
    std::uint32_t hc = initial_word(2, i);
    for (int iteration = 0; iteration < options.iterations; ++iteration) {
      ha = step_a(ha, hb);
      hb = step_b(hb, ha, hc);
      hc = step_c(hc, ha);
    }
    if (read_word(a, i) != ha || read_word(b, i) != hb || read_word(c, i) != hc) {
      std::fprintf(stderr, "error: check failed: buffers differ from the host reference at index %zu\n", i);
      return 1;
    }
  }

  print_streamed_checksum("a", a, options.buffer_bytes);
  print_streamed_checksum("b", b, options.buffer_bytes);
  print_streamed_checksum("c", c, options.buffer_bytes);
  for (std::uint32_t* buffer : buffers) CHECK_CUDA(cudaFree(buffer));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse(argc, argv));
}
