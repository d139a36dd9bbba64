// printf_in_range: a range whose kernel prints with device printf between
// two kernels. Expected decline: device_printf_in_range (a replay would print
// the line again into the program's output). Each range prints one line,
// "device step N", so a run prints exactly N such lines with or without the
// tool.
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
    "usage: app_printf_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each with a printing kernel\n";

__global__ void print_step_kernel(const uint32_t* x, int step) {
  if (blockIdx.x == 0 && threadIdx.x == 0) printf("device step %d (x[0] %u)\n", step, x[0]);
}

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900057);
  uint32_t* x = upload(expected_x);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x700u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    print_step_kernel<<<1, 32>>>(x, iteration);
    CHECK_CUDA(cudaGetLastError());
    launch_affine(x, kAppElements, salt + 1, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_affine(expected_x, salt);
    host_affine(expected_x, salt + 1);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  CHECK_CUDA(cudaFree(x));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
