// alloc_in_range: a range that allocates device memory between its kernels:
//   affine(x, salt);  tmp = cudaMalloc;  tmp = x;  affine(tmp, salt + 1)
// `tmp` is freed after the range (outside it). The tool keeps tmp's bytes
// when allocated as its entry state, so the range replays. With --managed
// tmp comes from cudaMallocManaged, which declines allocation_in_range (the
// range still runs once, so the program's own result must stay right). With
// --free-in-range the range has the common shape of a whole computation
// instead: allocate, compute, copy the result back, free, all inside it
// (replayed at the free's entry; allocation_in_range with --managed, which
// application range replay, --fallback app-range, measures).
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
    "usage: app_alloc_in_range [--iterations N] [--free-in-range] [--managed]\n"
    "  --iterations N   number of NVTX ranges `step` (default 2), each calling cudaMalloc\n"
    "  --free-in-range  copy the scratch buffer back and free it inside the range, not after it\n"
    "  --managed        allocate the scratch buffer with cudaMallocManaged\n";

int run(int iterations, bool free_in_range, bool managed) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900011);
  std::vector<uint32_t> expected_tmp;
  std::vector<uint32_t> result_tmp;
  uint32_t* x = upload(expected_x);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x200u + static_cast<uint32_t>(iteration);
    uint32_t* tmp = nullptr;
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    if (managed) {
      CHECK_CUDA(cudaMallocManaged(&tmp, kAppElements * sizeof(uint32_t)));
    } else {
      CHECK_CUDA(cudaMalloc(&tmp, kAppElements * sizeof(uint32_t)));
    }
    launch_copy(tmp, x, kAppElements, /*stream=*/0);
    launch_affine(tmp, kAppElements, salt + 1, /*stream=*/0);
    if (free_in_range) {
      result_tmp = download(tmp, kAppElements);
      CHECK_CUDA(cudaFree(tmp));
    }
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    if (!free_in_range) {
      result_tmp = download(tmp, kAppElements);
      CHECK_CUDA(cudaFree(tmp));
    }
    host_affine(expected_x, salt);
    expected_tmp = expected_x;
    host_affine(expected_tmp, salt + 1);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  check_and_print(result_tmp, expected_tmp, "tmp");
  CHECK_CUDA(cudaFree(x));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  // --free-in-range and --managed are taken out before the shared parser sees the rest.
  bool free_in_range = false;
  bool managed = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--free-in-range") == 0) {
      free_in_range = true;
    } else if (std::strcmp(argv[i], "--managed") == 0) {
      managed = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  return run(parse_iterations_only(kept, argv, 2, kUsage), free_in_range, managed);
}
