// free_pending: each range uses a buffer that is freed right after the range
// ends (outside it). With deferred replays (--batch-ranges), the free of a
// deferred range's memory must replay that range first, while the buffer
// still exists, and the program's own result must stay right:
//   (before) tmp = cudaMalloc, uploaded;  (range) x = 3 x + tmp;  affine(x, salt);  (after) cudaFree(tmp)
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
    "usage: app_free_pending [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 3), each followed by a cudaFree of its buffer\n";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900031);
  uint32_t* x = upload(expected_x);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x400u + static_cast<uint32_t>(iteration);
    const std::vector<uint32_t> tmp_words = random_words(kAppElements, 0xa9900032 + iteration);
    uint32_t* tmp = upload(tmp_words);
    nvtxRangePushA("step");
    launch_accumulate(x, tmp, kAppElements, /*stream=*/0);
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaFree(tmp));
    host_accumulate(expected_x, tmp_words);
    host_affine(expected_x, salt);
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
  return run(parse_iterations_only(argc, argv, 3, kUsage));
}
