// memset_d2d_in_range: a range with a memset and device-to-device copies
// around kernels, at an unaligned byte offset. Expected: the range replays
// (memset and copies are recorded work); no decline. Per range k:
//   memset(scratch, 0x21 + k);  scratch[3 .. 3 + len) = src bytes (cudaMemcpyAsync D2D);
//   acc = 3 acc + scratch;  affine(src, salt);  mirror = src (cudaMemcpy D2D)
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
    "usage: app_memset_d2d_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each with a memset and\n"
    "                  device-to-device copies\n";

constexpr size_t kOffset = 3;  // bytes: an unaligned destination

int run(int iterations) {
  init_device();
  constexpr size_t kBytes = kAppElements * sizeof(uint32_t);
  constexpr size_t kCopyBytes = kBytes - 8;
  std::vector<uint32_t> expected_src = random_words(kAppElements, 0xa9900091);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa9900092);
  std::vector<uint32_t> expected_scratch = random_words(kAppElements, 0xa9900093);
  std::vector<uint32_t> expected_mirror = random_words(kAppElements, 0xa9900094);
  uint32_t* src = upload(expected_src);
  uint32_t* acc = upload(expected_acc);
  uint32_t* scratch = upload(expected_scratch);
  uint32_t* mirror = upload(expected_mirror);

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const int value = 0x21 + iteration % 64;
    const uint32_t salt = 0x900u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    CHECK_CUDA(cudaMemsetAsync(scratch, value, kBytes, /*stream=*/0));
    CHECK_CUDA(cudaMemcpyAsync(reinterpret_cast<unsigned char*>(scratch) + kOffset, src, kCopyBytes,
                               cudaMemcpyDeviceToDevice, /*stream=*/0));
    launch_accumulate(acc, scratch, kAppElements, /*stream=*/0);
    launch_affine(src, kAppElements, salt, /*stream=*/0);
    CHECK_CUDA(cudaMemcpy(mirror, src, kBytes, cudaMemcpyDeviceToDevice));
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());

    std::memset(expected_scratch.data(), value, kBytes);
    std::memcpy(reinterpret_cast<unsigned char*>(expected_scratch.data()) + kOffset, expected_src.data(), kCopyBytes);
    host_accumulate(expected_acc, expected_scratch);
    host_affine(expected_src, salt);
    expected_mirror = expected_src;
  }
  check_and_print(download(src, kAppElements), expected_src, "src");
  check_and_print(download(acc, kAppElements), expected_acc, "acc");
  check_and_print(download(scratch, kAppElements), expected_scratch, "scratch");
  check_and_print(download(mirror, kAppElements), expected_mirror, "mirror");
  for (uint32_t* p : {src, acc, scratch, mirror}) CHECK_CUDA(cudaFree(p));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
