// Test input for cubin_symbols_test: a module without writable globals.
extern "C" __global__ void add_kernel(float* x, float v) { x[threadIdx.x] += v; }
