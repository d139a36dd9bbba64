// host_func_in_range: a range that enqueues a host function (cudaLaunchHostFunc)
// between two kernels. Expected decline: host function in range. The range
// runs once, so the host function must run exactly once per range: it counts
// its calls and records the range number it saw, and the program checks both.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_host_func_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each with a cudaLaunchHostFunc\n";

struct HostFuncLog {
  std::atomic<int> calls{0};
  std::atomic<int> last_seen{-1};
  std::atomic<int> current_range{-1};  // set by the main thread before it enqueues the host function
};

void CUDART_CB host_func(void* user_data) {
  auto* log = static_cast<HostFuncLog*>(user_data);
  log->calls.fetch_add(1);
  log->last_seen.store(log->current_range.load());
}

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900041);
  uint32_t* x = upload(expected_x);
  HostFuncLog log;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x500u + static_cast<uint32_t>(iteration);
    log.current_range.store(iteration);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CHECK_CUDA(cudaLaunchHostFunc(/*stream=*/0, host_func, &log));
    launch_affine(x, kAppElements, salt + 1, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_THAT(log.calls.load() == iteration + 1);
    CHECK_THAT(log.last_seen.load() == iteration);
    host_affine(expected_x, salt);
    host_affine(expected_x, salt + 1);
  }
  std::printf("host function calls %d\n", log.calls.load());
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
