// unchanged_range: a range whose kernel leaves memory as it found it (it
// copies x into y, which already holds x). With differential restore every
// replay restores 0 bytes and the exit capture copies nothing
// (tests/e2e/differential_restore.py). After each range, acc = 3 acc + y, so
// the program checks that y held x at every range exit.
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
    "usage: app_unchanged_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each copying x onto the equal y\n";

int run(int iterations) {
  init_device();
  const std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900071);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa9900072);
  uint32_t* x = upload(expected_x);
  uint32_t* y = upload(expected_x);
  uint32_t* acc = upload(expected_acc);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    nvtxRangePushA("step");
    launch_copy(y, x, kAppElements, /*stream=*/0);
    nvtxRangePop();
    launch_accumulate(acc, y, kAppElements, /*stream=*/0);
    CHECK_CUDA(cudaDeviceSynchronize());
    host_accumulate(expected_acc, expected_x);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  check_and_print(download(y, kAppElements), expected_x, "y");
  check_and_print(download(acc, kAppElements), expected_acc, "acc");
  CHECK_CUDA(cudaFree(x));
  CHECK_CUDA(cudaFree(y));
  CHECK_CUDA(cudaFree(acc));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
