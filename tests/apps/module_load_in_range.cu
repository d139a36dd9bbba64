// module_load_in_range: a range that loads a module (cuModuleLoadData of a tiny
// PTX string, driver API) and launches its kernel with cuLaunchKernel.
// Expected decline: module loaded inside the range. The module is unloaded
// after the range. The range still runs once, so the result must stay right:
//   affine(x, salt) (runtime kernel);  load;  ptx_affine(x, salt + 1)
// ptx_affine computes the same `x[i] = 3 x[i] + salt + i` as affine_kernel.
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
    "usage: app_module_load_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each loading a PTX module\n";

// nvcc -ptx -arch=compute_75 of
//   extern "C" __global__ void ptx_affine(unsigned* x, unsigned long long n, unsigned salt)
//   { i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 3 + salt + (unsigned)i; }
// with the PTX ISA lowered to 7.0 so any CUDA 11+ driver JIT-compiles it.
constexpr char kPtx[] = R"ptx(
.version 7.0
.target sm_75
.address_size 64

.visible .entry ptx_affine(
	.param .u64 ptx_affine_param_0,
	.param .u64 ptx_affine_param_1,
	.param .u32 ptx_affine_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<9>;

	ld.param.u64 	%rd2, [ptx_affine_param_0];
	ld.param.u64 	%rd3, [ptx_affine_param_1];
	ld.param.u32 	%r1, [ptx_affine_param_2];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mul.wide.u32 	%rd4, %r2, %r3;
	mov.u32 	%r4, %tid.x;
	cvt.u64.u32 	%rd5, %r4;
	add.s64 	%rd1, %rd4, %rd5;
	setp.ge.u64 	%p1, %rd1, %rd3;
	@%p1 bra 	$L__BB0_2;

	cvta.to.global.u64 	%rd6, %rd2;
	shl.b64 	%rd7, %rd1, 2;
	add.s64 	%rd8, %rd6, %rd7;
	ld.global.u32 	%r5, [%rd8];
	cvt.u32.u64 	%r6, %rd1;
	add.s32 	%r7, %r6, %r1;
	mad.lo.s32 	%r8, %r5, 3, %r7;
	st.global.u32 	[%rd8], %r8;

$L__BB0_2:
	ret;
}
)ptx";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900031);
  uint32_t* x = upload(expected_x);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x400u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CUmodule module = nullptr;
    CHECK_CU(cuModuleLoadData(&module, kPtx));
    CUfunction function = nullptr;
    CHECK_CU(cuModuleGetFunction(&function, module, "ptx_affine"));
    CUdeviceptr x_address = reinterpret_cast<CUdeviceptr>(x);
    unsigned long long n = kAppElements;
    uint32_t ptx_salt = salt + 1;
    void* params[] = {&x_address, &n, &ptx_salt};
    CHECK_CU(cuLaunchKernel(function, grid_for(kAppElements, kAppThreads), 1, 1, kAppThreads, 1, 1,
                            /*sharedMemBytes=*/0, /*hStream=*/nullptr, params, /*extra=*/nullptr));
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
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
