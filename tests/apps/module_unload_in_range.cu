// module_unload_in_range: a range that launches a kernel of a module loaded
// before the range (cuModuleLoadData of a tiny PTX string, driver API) and
// then unloads that module (cuModuleUnload) before the range ends. Expected
// decline: module unloaded inside the range (a replay could not launch its
// kernel). The module is loaded again before the next range. The range still
// runs once, so the result must stay right:
//   before: load;  range: affine(x, salt) (runtime kernel);  ptx_affine(x, salt + 1);  sync;  unload
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"
#include "ptx_affine.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_module_unload_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each unloading the PTX module\n"
    "                  whose kernel it launched\n";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900071);
  uint32_t* x = upload(expected_x);
  const std::string ptx = ptx_affine_module("ptx_affine");
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x800u + static_cast<uint32_t>(iteration);
    CUmodule module = nullptr;
    CHECK_CU(cuModuleLoadData(&module, ptx.c_str()));
    CUfunction function = nullptr;
    CHECK_CU(cuModuleGetFunction(&function, module, "ptx_affine"));
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    launch_ptx_affine(function, x, kAppElements, salt + 1, /*stream=*/nullptr);
    // The kernel must have finished before its module goes away.
    CHECK_CU(cuCtxSynchronize());
    CHECK_CU(cuModuleUnload(module));
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_affine(expected_x, salt);
    host_affine(expected_x, salt + 1);
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
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
