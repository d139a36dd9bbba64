// range_not_closed: a program whose last NVTX range `step` is never popped:
// it prints its results and returns from main (exit code 0) inside the range.
// Expected: every earlier range is replayed; the last one is declined with
// range_not_closed (it ran once, as the application's own execution). Its
// device buffers are deliberately not freed, since a cudaFree inside the open
// range would replay it there first; the process exit releases them. Per iteration:
//   range: affine(x, salt);  acc = 3 acc + x        (the last range stays open)
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
    "usage: app_range_not_closed [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2); the last one is never popped\n";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa99000e1);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa99000e2);
  uint32_t* x = upload(expected_x);
  uint32_t* acc = upload(expected_acc);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0xe00u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    launch_accumulate(acc, x, kAppElements, /*stream=*/0);
    const bool last = iteration + 1 == iterations;
    if (!last) nvtxRangePop();  // the last range stays open until the process exits
    CHECK_CUDA(cudaDeviceSynchronize());
    host_affine(expected_x, salt);
    host_accumulate(expected_acc, expected_x);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  check_and_print(download(acc, kAppElements), expected_acc, "acc");
  print_checksums_done();
  return 0;  // inside the last range: x and acc stay allocated (see above)
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
