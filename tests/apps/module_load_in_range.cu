// module_load_in_range: a range that loads a module with a writable
// module-scope variable (cuModuleLoadData of a tiny PTX string, driver API)
// and launches its kernel with cuLaunchKernel, which writes the variable.
// Expected decline: module_load_in_range, for the variable (ptx_affine_last_salt)
// whose value at load the snapshot never saw; a module without variables
// loaded inside a range does not decline. The module is unloaded after the
// range. The range still runs once, so the result must stay right:
//   affine(x, salt) (runtime kernel);  load;  ptx_affine(x, salt + 1), ptx_affine_last_salt = salt + 1
// ptx_affine (ptx_affine.h) computes the same `x[i] = 3 x[i] + salt + i` as affine_kernel.
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
    "usage: app_module_load_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each loading a PTX module with a variable\n";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900031);
  uint32_t* x = upload(expected_x);
  const std::string ptx = ptx_affine_module("ptx_affine", /*last_salt_variable=*/true);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x400u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CUmodule module = nullptr;
    CHECK_CU(cuModuleLoadData(&module, ptx.c_str()));
    CUfunction function = nullptr;
    CHECK_CU(cuModuleGetFunction(&function, module, "ptx_affine"));
    launch_ptx_affine(function, x, kAppElements, salt + 1, /*stream=*/nullptr);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    CUdeviceptr last_salt_address = 0;
    size_t last_salt_bytes = 0;
    CHECK_CU(cuModuleGetGlobal(&last_salt_address, &last_salt_bytes, module, "ptx_affine_last_salt"));
    CHECK_THAT(last_salt_bytes == sizeof(uint32_t));
    uint32_t last_salt = 0;
    CHECK_CU(cuMemcpyDtoH(&last_salt, last_salt_address, sizeof last_salt));
    CHECK_THAT(last_salt == salt + 1);
    CHECK_CU(cuModuleUnload(module));
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
