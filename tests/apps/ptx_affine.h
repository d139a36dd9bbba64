// ptx_affine.h: a tiny PTX module for the apps that need a module of their
// own, loaded with the driver API (module_load_in_range,
// module_unload_in_range, multiple_contexts, module_globals_in_range). Its one
// kernel computes the same `x[i] = 3 x[i] + salt + i` as affine_kernel in
// app_kernels.cuh, so the apps check it against host_affine.
//
//   const std::string ptx = ptx_affine_module("ptx_affine");  // or ("ptx_affine", /*last_salt_variable=*/true)
//   CUmodule module; CHECK_CU(cuModuleLoadData(&module, ptx.c_str()));
//   CUfunction f; CHECK_CU(cuModuleGetFunction(&f, module, "ptx_affine"));
//   launch_ptx_affine(f, x, n, salt, /*stream=*/nullptr);
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {

// PTX text of one kernel named `entry` (an extern "C" name: the PTX entry is
// exactly that symbol), taking (unsigned* x, unsigned long long n, unsigned
// salt) and computing, for i < n, x[i] = x[i] * 3 + salt + (unsigned)i. From
// nvcc -ptx -arch=compute_75 of
//   extern "C" __global__ void ptx_affine(unsigned* x, unsigned long long n, unsigned salt)
//   { i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * 3 + salt + (unsigned)i; }
// with the PTX ISA lowered to 7.0 so any CUDA 11+ driver JIT-compiles it.
// Without `last_salt_variable` the module has no module-scope variables. With
// it, the module also defines a writable module-scope variable
// `<entry>_last_salt` (.u32, zero at load) and every thread of the kernel
// stores `salt` into it, as nvcc emits for a `__device__ unsigned
// <entry>_last_salt;` written by `<entry>_last_salt = salt;`.
inline std::string ptx_affine_module(const char* entry, bool last_salt_variable = false) {
  const std::string variable = std::string(entry) + "_last_salt";
  return std::string(R"ptx(
.version 7.0
.target sm_75
.address_size 64

)ptx") + (last_salt_variable ? ".visible .global .align 4 .u32 " + variable + ";\n\n" : std::string()) +
         ".visible .entry " + entry + R"ptx((
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
)ptx" + (last_salt_variable ? "\tst.global.u32 \t[" + variable + "], %r1;\n" : std::string()) +
         R"ptx(	mov.u32 	%r2, %ctaid.x;
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
}

// Launches a ptx_affine_module kernel `f` over x[0, n) with cuLaunchKernel
// (one thread per element, kAppThreads per block) on `stream` of the current
// context. `n` must fit the grid: at most 2^20 blocks (grid_for caps there,
// and the kernel has no grid-stride loop).
inline void launch_ptx_affine(CUfunction f, uint32_t* x, size_t n, uint32_t salt, CUstream stream) {
  CHECK_THAT(n <= (size_t{1} << 20) * kAppThreads);
  CUdeviceptr x_address = reinterpret_cast<CUdeviceptr>(x);
  unsigned long long count = n;
  uint32_t ptx_salt = salt;
  void* params[] = {&x_address, &count, &ptx_salt};
  CHECK_CU(cuLaunchKernel(f, grid_for(n, kAppThreads), 1, 1, kAppThreads, 1, 1, /*sharedMemBytes=*/0, stream, params,
                          /*extra=*/nullptr));
}

}  // namespace rangereplay::example
