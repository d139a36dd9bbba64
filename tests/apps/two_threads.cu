// two_threads: a range opened by the main thread whose middle kernel is
// launched by a second, long-lived host thread (as PyTorch's autograd thread
// does), handed over with a mutex and condition variable so the launch lands
// inside the range. All three launches go to the legacy default stream, so
// submission order is execution order: main (salt 1), worker (salt 2),
// main (salt 3); swapping any two changes the result.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"
#include "host_worker.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_two_threads [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2); in each, a second\n"
    "                  host thread launches the middle of three kernels\n";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected = random_words(kAppElements, 0xa9900001);
  uint32_t* x = upload(expected);
  {
    HostWorker worker;
    for (int iteration = 0; iteration < iterations; ++iteration) {
      nvtxRangePushA("step");
      launch_affine(x, kAppElements, 1, /*stream=*/0);
      worker.run_and_wait([x] { launch_affine(x, kAppElements, 2, /*stream=*/0); });
      launch_affine(x, kAppElements, 3, /*stream=*/0);
      nvtxRangePop();
      CHECK_CUDA(cudaDeviceSynchronize());
      host_affine(expected, 1);
      host_affine(expected, 2);
      host_affine(expected, 3);
    }
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
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
