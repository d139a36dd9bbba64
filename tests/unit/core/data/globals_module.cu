// Test input for cubin_symbols_test: compiled to a cubin at build time.
__device__ unsigned long long g_counter;  // .nv.global (zero-initialised)
__device__ int g_table[64] = {1, 2, 3};   // .nv.global.init
__constant__ float c_scale = 2.0f;        // .nv.constant*: read-only, not reported

extern "C" __global__ void bump_kernel(int n) { atomicAdd(&g_counter, static_cast<unsigned long long>(n)); }
extern "C" __global__ void scale_kernel(float* x) {
  x[threadIdx.x] *= c_scale * static_cast<float>(g_table[threadIdx.x % 64]);
}
