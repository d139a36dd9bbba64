// d2h_in_range: a range with a device-to-host copy between two kernels. The
// copy is the application's own result and must not be re-executed by a
// replay: right after cudaMemcpy returns (still inside the range) the program
// marks its host copy (+1 per word), and checks after the range that the mark
// survived. Expected: the range replays (kernels only); no decline.
//   range: affine(x, salt);  host = x (cudaMemcpy D2H, pageable);  host += 1;  affine(x, salt + 1)
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
    "usage: app_d2h_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each copying device to host\n";

int run(int iterations) {
  init_device();
  constexpr size_t kBytes = kAppElements * sizeof(uint32_t);
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900071);
  uint32_t* x = upload(expected_x);
  std::vector<uint32_t> host(kAppElements);
  std::vector<uint32_t> expected_host;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x700u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CHECK_CUDA(cudaMemcpy(host.data(), x, kBytes, cudaMemcpyDeviceToHost));
    for (uint32_t& word : host) word += 1;
    launch_affine(x, kAppElements, salt + 1, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());

    host_affine(expected_x, salt);
    expected_host = expected_x;
    for (uint32_t& word : expected_host) word += 1;
    host_affine(expected_x, salt + 1);
    expect_words(host, expected_host, "host");
  }
  check_and_print(host, expected_host, "host");
  check_and_print(download(x, kAppElements), expected_x, "x");
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
