// overlapping_range: the same NVTX range `step` pushed on two threads at
// once. The main thread opens `step` and, inside it, asks a second,
// long-lived host thread to open its own `step` around one kernel launch
// (handed over with a mutex and condition variable, so the worker's push
// lands while the main thread's range is open). Expected: the main thread's
// range is replayed (the worker's launch is part of it), the worker's range
// is declined with overlapping_range; per iteration one of each. All launches
// go to the legacy default stream, so submission order is execution order:
//   main: push step;  affine(x, salt)
//   worker: push step;  affine(x, salt + 1);  pop
//   main: affine(x, salt + 2);  pop
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
    "usage: app_overlapping_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` on the main thread (default 2); inside each,\n"
    "                  a second host thread pushes its own `step` around one kernel launch\n";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected = random_words(kAppElements, 0xa99000d1);
  uint32_t* x = upload(expected);
  {
    HostWorker worker;
    for (int iteration = 0; iteration < iterations; ++iteration) {
      const uint32_t salt = 0xd00u + 3u * static_cast<uint32_t>(iteration);
      nvtxRangePushA("step");
      launch_affine(x, kAppElements, salt, /*stream=*/0);
      // The worker opens its own `step` around one launch, inside this range.
      worker.run_and_wait([x, salt] {
        nvtxRangePushA("step");
        launch_affine(x, kAppElements, salt + 1, /*stream=*/0);
        nvtxRangePop();
      });
      launch_affine(x, kAppElements, salt + 2, /*stream=*/0);
      nvtxRangePop();
      CHECK_CUDA(cudaDeviceSynchronize());
      host_affine(expected, salt);
      host_affine(expected, salt + 1);
      host_affine(expected, salt + 2);
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
