// multiple_contexts: a range that begins in device 0's primary context (the
// runtime's) and also launches a kernel in a second context on the same
// device, created with cuCtxCreate before the ranges. Expected decline:
// multiple_contexts. The second context's kernel works on pinned host memory
// allocated portable and device-mapped (usable from every context), so no
// memory of one context is handed to the other. The range still runs once,
// so the results must stay right:
//   range: affine(x, salt) (primary context);  push ctx2;  ptx_affine(y, salt + 1);  sync;  pop
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"
#include "ptx_affine.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_multiple_contexts [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each also launching a kernel\n"
    "                  in a second context of device 0\n";

// An odd word count for the second context's buffer.
constexpr size_t kYWords = 4099;

int run(int iterations) {
  init_device();
  CUcontext primary = nullptr;
  CHECK_CU(cuCtxGetCurrent(&primary));
  CHECK_THAT(primary != nullptr);
  CUdevice device = 0;
  CHECK_CU(cuCtxGetDevice(&device));

  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa99000b1);
  uint32_t* x = upload(expected_x);

  // The second context: created current, given its own module and pinned
  // buffer, then popped so the primary context is current again.
  CUcontext second = nullptr;
  // CU_CTX_MAP_HOST: the context may use device-mapped pinned host memory.
  CHECK_CU(cuCtxCreate(&second, /*ctxCreateParams=*/nullptr, CU_CTX_MAP_HOST, device));
  const std::string ptx = ptx_affine_module("ptx_affine");
  CUmodule module = nullptr;
  CHECK_CU(cuModuleLoadData(&module, ptx.c_str()));
  CUfunction function = nullptr;
  CHECK_CU(cuModuleGetFunction(&function, module, "ptx_affine"));
  void* y_host = nullptr;
  CHECK_CU(cuMemHostAlloc(&y_host, kYWords * sizeof(uint32_t), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr y_device = 0;
  CHECK_CU(cuMemHostGetDevicePointer(&y_device, y_host, 0));
  CUcontext popped = nullptr;
  CHECK_CU(cuCtxPopCurrent(&popped));
  CHECK_THAT(popped == second);
  CUcontext current = nullptr;
  CHECK_CU(cuCtxGetCurrent(&current));
  CHECK_THAT(current == primary);

  std::vector<uint32_t> expected_y = random_words(kYWords, 0xa99000b2);
  std::memcpy(y_host, expected_y.data(), kYWords * sizeof(uint32_t));
  uint32_t* y = reinterpret_cast<uint32_t*>(y_device);

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0xb00u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CHECK_CU(cuCtxPushCurrent(second));
    launch_ptx_affine(function, y, kYWords, salt + 1, /*stream=*/nullptr);
    CHECK_CU(cuCtxSynchronize());
    CHECK_CU(cuCtxPopCurrent(&popped));
    CHECK_THAT(popped == second);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_affine(expected_x, salt);
    host_affine(expected_y, salt + 1);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  // The second context's kernels are complete (cuCtxSynchronize above).
  std::vector<uint32_t> result_y(kYWords);
  std::memcpy(result_y.data(), y_host, kYWords * sizeof(uint32_t));
  check_and_print(result_y, expected_y, "y");

  CHECK_CU(cuCtxPushCurrent(second));
  CHECK_CU(cuModuleUnload(module));
  CHECK_CU(cuCtxPopCurrent(&popped));
  CHECK_CU(cuMemFreeHost(y_host));
  CHECK_CU(cuCtxDestroy(second));
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
