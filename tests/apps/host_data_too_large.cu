// host_data_too_large: a range that streams more host data to the device than
// the recorder captures (kMaxCapturedHostBytes = 1 GiB of host-to-device
// source bytes per range, src/core/base/decline_reason.h): 17 synchronous
// cudaMemcpy uploads of 64 MiB (1088 MiB in all) from a pageable buffer into
// one device buffer, each folded into an accumulator. Expected decline:
// host_data_too_large. The device footprint stays small (two 64 MiB buffers),
// so the snapshot is not what declines. The range still runs once, so the
// result must stay right:
//   range: for c in [0, 17): host[0] = c;  buffer = host (cudaMemcpy H2D);  acc = 3 acc + buffer
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
    "usage: app_host_data_too_large [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each copying 1088 MiB host to device\n";

constexpr size_t kChunkWords = (size_t{64} << 20) / sizeof(uint32_t);  // 64 MiB per copy
constexpr int kCopies = 17;                                            // 17 x 64 MiB = 1088 MiB > 1 GiB

int run(int iterations) {
  init_device();
  std::vector<uint32_t> host = random_words(kChunkWords, 0xa99000a1);
  std::vector<uint32_t> expected_acc = random_words(kChunkWords, 0xa99000a2);
  uint32_t* acc = upload(expected_acc);
  uint32_t* buffer = nullptr;
  CHECK_CUDA(cudaMalloc(&buffer, kChunkWords * sizeof(uint32_t)));
  for (int iteration = 0; iteration < iterations; ++iteration) {
    nvtxRangePushA("step");
    for (int c = 0; c < kCopies; ++c) {
      // Each copy's source differs: the first word names the copy.
      host[0] = static_cast<uint32_t>(iteration * kCopies + c);
      CHECK_CUDA(cudaMemcpy(buffer, host.data(), kChunkWords * sizeof(uint32_t), cudaMemcpyHostToDevice));
      launch_accumulate(acc, buffer, kChunkWords, /*stream=*/0);
      host_accumulate(expected_acc, host);
    }
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  check_and_print(download(acc, kChunkWords), expected_acc, "acc");
  CHECK_CUDA(cudaFree(buffer));
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
