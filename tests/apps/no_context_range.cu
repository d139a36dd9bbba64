// no_context_range: per iteration, a range pushed by a new host thread before
// that thread's first CUDA call (no context is current on it yet; its launch
// then binds the runtime's context), then a range of the main thread. The
// first declines no_context, alone: the second replays (the first range's
// decline must not stop later ranges from being profiled). Both run once as
// the application's own work, so the result must stay right:
//   (worker range) affine(x, 1)   (main range) affine(x, 2)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_no_context_range [--iterations N]\n"
    "  --iterations N  iterations (default 2), each a range `step` begun on a new thread before its first CUDA\n"
    "                  call, then a range `step` on the main thread\n";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected = random_words(kAppElements, 0xa9900061);
  uint32_t* x = upload(expected);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    std::thread worker([x] {
      nvtxRangePushA("step");
      launch_affine(x, kAppElements, 1, /*stream=*/0);
      CHECK_CUDA(cudaStreamSynchronize(0));
      nvtxRangePop();
    });
    worker.join();
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, 2, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_affine(expected, 1);
    host_affine(expected, 2);
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
