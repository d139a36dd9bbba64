// h2d_in_range: a range with host-to-device copies whose host source the
// program overwrites as soon as each cudaMemcpy returns (still inside the
// range). A replay must use the bytes captured at record time, not the host
// buffer's later contents. Expected: the range replays; no decline.
//   range: x = pageable (then scribbled);  y = pinned (then scribbled);  acc = 3 acc + x;  acc = 3 acc + y
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
    "usage: app_h2d_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each copying host to device\n"
    "                  from host buffers overwritten right after the copy returns\n";

void scribble(uint32_t* words, size_t count) {
  for (size_t i = 0; i < count; ++i) words[i] = ~words[i] ^ 0x5a5a5a5au;
}

int run(int iterations) {
  init_device();
  constexpr size_t kBytes = kAppElements * sizeof(uint32_t);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa9900081);
  uint32_t* acc = upload(expected_acc);
  uint32_t* x = nullptr;
  uint32_t* y = nullptr;
  CHECK_CUDA(cudaMalloc(&x, kBytes));
  CHECK_CUDA(cudaMalloc(&y, kBytes));
  std::vector<uint32_t> pageable(kAppElements);
  uint32_t* pinned = nullptr;
  CHECK_CUDA(cudaMallocHost(&pinned, kBytes));

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const std::vector<uint32_t> x_words = random_words(kAppElements, 0xa9900082 + 2 * iteration);
    const std::vector<uint32_t> y_words = random_words(kAppElements, 0xa9900083 + 2 * iteration);
    std::memcpy(pageable.data(), x_words.data(), kBytes);
    std::memcpy(pinned, y_words.data(), kBytes);
    nvtxRangePushA("step");
    CHECK_CUDA(cudaMemcpy(x, pageable.data(), kBytes, cudaMemcpyHostToDevice));
    scribble(pageable.data(), kAppElements);
    CHECK_CUDA(cudaMemcpy(y, pinned, kBytes, cudaMemcpyHostToDevice));
    scribble(pinned, kAppElements);
    launch_accumulate(acc, x, kAppElements, /*stream=*/0);
    launch_accumulate(acc, y, kAppElements, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_accumulate(expected_acc, x_words);
    host_accumulate(expected_acc, y_words);
    if (iteration + 1 == iterations) {
      check_and_print(download(x, kAppElements), x_words, "x");
      check_and_print(download(y, kAppElements), y_words, "y");
    }
  }
  check_and_print(download(acc, kAppElements), expected_acc, "acc");
  CHECK_CUDA(cudaFreeHost(pinned));
  CHECK_CUDA(cudaFree(x));
  CHECK_CUDA(cudaFree(y));
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
