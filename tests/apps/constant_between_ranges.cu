// constant_between_ranges: before each NVTX range `step` the program writes a
// __constant__ variable (cudaMemcpyToSymbol) that the range's kernel reads as
// its number of rounds, so each range executes a different number of
// instructions. No snapshot holds constant memory: with deferred replays a
// range deferred past the next write would replay with the next range's
// rounds. The tool replays the waiting ranges before such a write, so every
// range's instruction count must equal its count replayed alone (e2e.batch).
//   (before range i) c_rounds = i + 1;  (range) x = affine^(c_rounds)(x, salt)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_constant_between_ranges [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 3); before range i a __constant__ round count is set\n"
    "                  to i + 1\n";

__constant__ uint32_t c_rounds;

__global__ void affine_rounds_kernel(uint32_t* x, size_t n, uint32_t salt) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    uint32_t v = x[i];
    for (uint32_t r = 0; r < c_rounds; ++r) v = affine(v, salt, i);
    x[i] = v;
  }
}

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected = random_words(kAppElements, 0xa9900071);
  uint32_t* x = upload(expected);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t rounds = static_cast<uint32_t>(iteration) + 1;
    const uint32_t salt = 0x700u + static_cast<uint32_t>(iteration);
    CHECK_CUDA(cudaMemcpyToSymbol(c_rounds, &rounds, sizeof rounds));
    nvtxRangePushA("step");
    affine_rounds_kernel<<<grid_for(kAppElements, kAppThreads), kAppThreads>>>(x, kAppElements, salt);
    CHECK_LAUNCH();
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    for (uint32_t r = 0; r < rounds; ++r) host_affine(expected, salt);
    host_affine(expected, salt);
  }
  check_and_print(download(x, kAppElements), expected, "x");
  CHECK_CUDA(cudaFree(x));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 3, kUsage));
}
