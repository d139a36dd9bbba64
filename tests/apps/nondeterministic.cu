// nondeterministic: a range whose number of kernels depends on a random value
// seeded from the clock, so two runs of the program launch different kernel
// sequences in the same range. Range replay replays it soundly (one run);
// application range replay, which merges one pass from each of several runs,
// must report it nondeterministic_application and merge nothing.
//   per range: affine(x, salt) launched 1 + (seed % 4) times
// The program checks its own result with the count it drew, and prints the
// count on stderr so a test can see that runs differed.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_nondeterministic [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 1), each launching 1 to 4 kernels, the count drawn\n"
    "                  from the clock\n";

constexpr uint32_t kSalt = 0x400u;

// 1..4 from the clock's nanoseconds, mixed so that runs started in the same
// microsecond still differ in their low bits.
int launch_count() {
  auto seed = static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  seed ^= seed >> 33;
  seed *= 0xff51afd7ed558ccdull;
  seed ^= seed >> 33;
  return 1 + static_cast<int>(seed % 4);
}

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900041);
  uint32_t* x = upload(expected_x);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const int count = launch_count();
    std::fprintf(stderr, "app_nondeterministic: range %d launches %d kernels\n", iteration, count);
    nvtxRangePushA("step");
    for (int k = 0; k < count; ++k) launch_affine(x, kAppElements, kSalt, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int k = 0; k < count; ++k) host_affine(expected_x, kSalt);
  }
  // The checksum line would differ from run to run: the check is the
  // comparison with the host's result, and the line printed is its verdict.
  expect_words(download(x, kAppElements), expected_x, "x");
  std::printf("x matches the host reference\n");
  CHECK_CUDA(cudaFree(x));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 1, kUsage));
}
