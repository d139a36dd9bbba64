// unsupported_api_in_range: a range that, between two kernels, copies one
// pageable host buffer into another with cuMemcpy (driver API; under unified
// addressing the driver infers a host-to-host copy from the pointers).
// Neither address is memory the tool tracks, so the recorder cannot say what
// a replay of that copy would touch. Expected decline: unsupported_api
// ("cuMemcpy between untracked addresses"). The range still runs once, so
// the results must stay right:
//   range: affine(x, salt);  staging_out = staging_in (cuMemcpy);  affine(x, salt + 1)
// `staging_in` is refilled on the host before every range.
#include <cuda.h>
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
    "usage: app_unsupported_api_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each copying host memory to\n"
    "                  host memory with cuMemcpy\n";

// Host-to-host copy size: an odd word count, not a multiple of 16 bytes.
constexpr size_t kStagingWords = 4099;

int run(int iterations) {
  init_device();
  int unified = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, 0));
  CHECK_THAT(unified == 1);  // cuMemcpy needs unified addressing
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900081);
  uint32_t* x = upload(expected_x);
  std::vector<uint32_t> staging_in(kStagingWords);
  std::vector<uint32_t> staging_out(kStagingWords, 0);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x900u + static_cast<uint32_t>(iteration);
    staging_in = random_words(kStagingWords, 0xa9900082 + static_cast<uint64_t>(iteration));
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CHECK_CU(cuMemcpy(reinterpret_cast<CUdeviceptr>(staging_out.data()),
                      reinterpret_cast<CUdeviceptr>(staging_in.data()), kStagingWords * sizeof(uint32_t)));
    launch_affine(x, kAppElements, salt + 1, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    // cuMemcpy is synchronous: the copy is complete here.
    expect_words(staging_out, staging_in, "staging_out");
    host_affine(expected_x, salt);
    host_affine(expected_x, salt + 1);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  print_checksum("staging_out", staging_out.data(), staging_out.size() * sizeof(uint32_t));
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
