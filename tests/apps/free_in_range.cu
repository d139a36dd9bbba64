// free_in_range: a range that frees device memory (cudaFree) after its kernels
// have used it. Expected: replayed at the free's entry, while the memory
// exists; with --work-after-free the range launches one more kernel after
// the free and declines free_in_range (the replay before the free would miss
// it). Either way the program's own result must stay right:
//   (before) tmp = cudaMalloc, uploaded;  (range) x = 3 x + tmp;  affine(x, salt);  cudaFree(tmp)
//   [--work-after-free: affine(x, salt + 1)]
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
    "usage: app_free_in_range [--iterations N] [--work-after-free]\n"
    "  --iterations N     number of NVTX ranges `step` (default 2), each calling cudaFree\n"
    "  --work-after-free  launch one more kernel after the cudaFree, inside the range\n";

int run(int iterations, bool work_after_free) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900021);
  uint32_t* x = upload(expected_x);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x300u + static_cast<uint32_t>(iteration);
    const std::vector<uint32_t> tmp_words = random_words(kAppElements, 0xa9900022 + iteration);
    uint32_t* tmp = upload(tmp_words);
    nvtxRangePushA("step");
    launch_accumulate(x, tmp, kAppElements, /*stream=*/0);
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CHECK_CUDA(cudaFree(tmp));
    if (work_after_free) launch_affine(x, kAppElements, salt + 1, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_accumulate(expected_x, tmp_words);
    host_affine(expected_x, salt);
    if (work_after_free) host_affine(expected_x, salt + 1);
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
  // --work-after-free is taken out before the shared parser sees the rest.
  bool work_after_free = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--work-after-free") == 0) {
      work_after_free = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  return run(parse_iterations_only(kept, argv, 2, kUsage), work_after_free);
}
