// multiple_devices: a range that begins on device 0 and, after
// cudaSetDevice(1), launches a kernel on device 1 before switching back.
// Expected decline: multiple_devices. Each device works only on its own
// buffer (no peer access). Needs two GPUs: with fewer it prints why and exits
// 77 (skipped) before any range. The range still runs once, so the results
// must stay right:
//   range: affine(x, salt) (device 0);  cudaSetDevice(1);  affine(y, salt + 1) (device 1);  sync;  cudaSetDevice(0)
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
    "usage: app_multiple_devices [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each also launching a kernel\n"
    "                  on device 1 (needs two GPUs; exits 77 with fewer)\n";

constexpr int kExitSkipped = 77;

int run(int iterations) {
  int devices = 0;
  CHECK_CUDA(cudaGetDeviceCount(&devices));
  if (devices < 2) {
    std::fprintf(stderr, "skipped: app_multiple_devices needs 2 GPUs, found %d\n", devices);
    return kExitSkipped;
  }
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa99000c1);
  uint32_t* x = upload(expected_x);  // on device 0
  CHECK_CUDA(cudaSetDevice(1));
  std::vector<uint32_t> expected_y = random_words(kAppElements, 0xa99000c2);
  uint32_t* y = upload(expected_y);  // on device 1
  CHECK_CUDA(cudaSetDevice(0));

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0xc00u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CHECK_CUDA(cudaSetDevice(1));
    launch_affine(y, kAppElements, salt + 1, /*stream=*/0);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaSetDevice(0));
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_affine(expected_x, salt);
    host_affine(expected_y, salt + 1);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  CHECK_CUDA(cudaSetDevice(1));
  check_and_print(download(y, kAppElements), expected_y, "y");
  CHECK_CUDA(cudaFree(y));
  CHECK_CUDA(cudaSetDevice(0));
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
