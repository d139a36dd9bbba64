// module_globals_in_range: two modules define a kernel of the same name,
// rr_counted_affine. The program's own module (compiled by nvcc, loaded by the
// runtime) defines it next to a writable module-scope variable,
// g_counted_launches, which its kernel increments; a PTX module loaded with
// cuModuleLoadData before the ranges defines a kernel of that name with no
// variables. The tool learns which kernels have variables from each module's
// cubin by kernel name, so when the range launches the PTX module's kernel it
// looks for g_counted_launches in that module and does not find it
// (CUDA_ERROR_NOT_FOUND): that module has no such variable, so there is
// nothing of it to snapshot, and the range replays (it once declined
// module_globals_in_range). The results must stay right:
//   range: rr_counted_affine(x, salt) (runtime, g_counted_launches += 1);
//          rr_counted_affine(x, salt + 1) (PTX module, cuLaunchKernel)
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

// Launches of the runtime rr_counted_affine so far (thread 0 of block 0 adds one).
__device__ uint32_t g_counted_launches;

// x[i] = 3 x[i] + salt + i, like affine_kernel, and counts its launches.
extern "C" __global__ void rr_counted_affine(uint32_t* x, unsigned long long n, uint32_t salt) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = rangereplay::example::affine(x[i], salt, i);
  if (blockIdx.x == 0 && threadIdx.x == 0) g_counted_launches += 1;
}

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_module_globals_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each launching both kernels named\n"
    "                  rr_counted_affine (the program's, with a __device__ counter, and a PTX module's)\n";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900101);
  uint32_t* x = upload(expected_x);
  const uint32_t zero = 0;
  CHECK_CUDA(cudaMemcpyToSymbol(g_counted_launches, &zero, sizeof zero));
  const std::string ptx = ptx_affine_module("rr_counted_affine");
  CUmodule module = nullptr;
  CHECK_CU(cuModuleLoadData(&module, ptx.c_str()));
  CUfunction ptx_function = nullptr;
  CHECK_CU(cuModuleGetFunction(&ptx_function, module, "rr_counted_affine"));

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x1000u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    rr_counted_affine<<<grid_for(kAppElements, kAppThreads), kAppThreads>>>(x, kAppElements, salt);
    CHECK_LAUNCH();
    launch_ptx_affine(ptx_function, x, kAppElements, salt + 1, /*stream=*/nullptr);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_affine(expected_x, salt);
    host_affine(expected_x, salt + 1);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  uint32_t counted = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(&counted, g_counted_launches, sizeof counted));
  // The program's own execution ran the runtime kernel once per range (a
  // replay would restore the variable; a declined range is not replayed).
  const std::vector<uint32_t> expected_counted{static_cast<uint32_t>(iterations)};
  check_and_print({counted}, expected_counted, "g_counted_launches");
  CHECK_CU(cuModuleUnload(module));
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
