// no_kernel_in_range: a range whose only GPU work is a memset. Expected
// decline: no kernel in range. A kernel after the range folds the memset's
// bytes into an accumulator, so the program can check the memset ran once:
//   range: memset(x, 0x11 * (k + 1));  after: acc = 3 acc + x
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_no_kernel_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each holding only a memset\n";

int run(int iterations) {
  init_device();
  constexpr size_t kBytes = kAppElements * sizeof(uint32_t);
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900061);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa9900062);
  uint32_t* x = upload(expected_x);
  uint32_t* acc = upload(expected_acc);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const int value = 0x11 * (iteration % 15 + 1);
    nvtxRangePushA("step");
    CHECK_CUDA(cudaMemsetAsync(x, value, kBytes, /*stream=*/0));
    nvtxRangePop();
    launch_accumulate(acc, x, kAppElements, /*stream=*/0);
    CHECK_CUDA(cudaDeviceSynchronize());
    std::memset(expected_x.data(), value, kBytes);
    host_accumulate(expected_acc, expected_x);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  check_and_print(download(acc, kAppElements), expected_acc, "acc");
  CHECK_CUDA(cudaFree(x));
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
