// multistream: work on two streams ordered by events inside one range. Each
// step records an event on stream 1 that stream 2 waits for, and an event on
// stream 2 that stream 1 waits for, so the results are only right when a
// replay keeps the cross-stream order:
//   s1: x = 0.5 x + 1            record e1
//   s2: wait e1;  y = 0.75 y + x;  record e2;  z = z + 1 (independent of s1)
//   s1: wait e2;  x = x + 0.25 y
// The program checks x, y and z against a host reference (exit 1 on mismatch).
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: multistream [--elements N] [--iterations N]\n"
    "  --elements N    doubles per array (default 4194304)\n"
    "  --iterations N  number of steps, one NVTX range `step` each (default 3)\n"
    "Prints `checksum <buffer> <hex>` for x, y, z, then `checksums-done`.\n";

constexpr unsigned int kThreads = 256;

struct Options {
  size_t elements = size_t{1} << 22;
  int iterations = 3;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--elements") == 0) {
      options.elements = parse_count(option_value(argc, argv, i));
      if (options.elements == 0) usage_error("--elements must be positive", nullptr);
    } else if (std::strcmp(argv[i], "--iterations") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n > 1000000) usage_error("--iterations at most 1000000", argv[i]);
      options.iterations = static_cast<int>(n);
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  return options;
}

// The per-element updates, shared by the kernels and the host reference.
// Each is one explicit fma (correctly rounded on host and device alike) or one
// add, so the host computes the same bits as the GPU.
__host__ __device__ inline double update_x(double x) { return fma(0.5, x, 1.0); }
__host__ __device__ inline double update_y(double y, double x) { return fma(0.75, y, x); }
__host__ __device__ inline double update_z(double z) { return z + 1.0; }
__host__ __device__ inline double combine_x(double x, double y) { return fma(0.25, y, x); }

__global__ void update_x_kernel(double* x, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = update_x(x[i]);
}

__global__ void update_y_kernel(double* y, const double* x, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    y[i] = update_y(y[i], x[i]);
}

__global__ void update_z_kernel(double* z, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    z[i] = update_z(z[i]);
}

__global__ void combine_x_kernel(double* x, const double* y, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = combine_x(x[i], y[i]);
}

double* upload(const std::vector<double>& host) {
  double* device = nullptr;
  CHECK_CUDA(cudaMalloc(&device, host.size() * sizeof(double)));
  CHECK_CUDA(cudaMemcpy(device, host.data(), host.size() * sizeof(double), cudaMemcpyHostToDevice));
  return device;
}

// Downloads `device` and exits 1 unless it equals `expected` bit for bit.
std::vector<double> download_and_check(const double* device, const std::vector<double>& expected, const char* name) {
  std::vector<double> host(expected.size());
  CHECK_CUDA(cudaMemcpy(host.data(), device, host.size() * sizeof(double), cudaMemcpyDeviceToHost));
  if (std::memcmp(host.data(), expected.data(), host.size() * sizeof(double)) != 0) {
    std::fprintf(stderr, "error: %s differs from the host reference\n", name);
    std::exit(1);
  }
  return host;
}

int run(const Options& options) {
  init_device();
  const size_t n = options.elements;
  std::printf("multistream: %zu doubles per array, %d iterations\n", n, options.iterations);

  SplitMix64 rng(0x5eed0003);
  std::vector<double> host_x(n), host_y(n), host_z(n);
  fill_uniform(host_x, rng, 0.5, 1.5);
  fill_uniform(host_y, rng, 0.5, 1.5);
  fill_uniform(host_z, rng, 0.5, 1.5);
  double* x = upload(host_x);
  double* y = upload(host_y);
  double* z = upload(host_z);

  cudaStream_t s1 = nullptr, s2 = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t x_ready = nullptr, y_ready = nullptr;
  CHECK_CUDA(cudaEventCreateWithFlags(&x_ready, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&y_ready, cudaEventDisableTiming));

  const unsigned int grid = grid_for(n, kThreads);
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    nvtxRangePushA("step");
    update_x_kernel<<<grid, kThreads, 0, s1>>>(x, n);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaEventRecord(x_ready, s1));
    CHECK_CUDA(cudaStreamWaitEvent(s2, x_ready, 0));
    update_y_kernel<<<grid, kThreads, 0, s2>>>(y, x, n);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaEventRecord(y_ready, s2));
    update_z_kernel<<<grid, kThreads, 0, s2>>>(z, n);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaStreamWaitEvent(s1, y_ready, 0));
    combine_x_kernel<<<grid, kThreads, 0, s1>>>(x, y, n);
    CHECK_LAUNCH();
    nvtxRangePop();
    CHECK_CUDA(cudaStreamSynchronize(s1));
    CHECK_CUDA(cudaStreamSynchronize(s2));
  }

  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    for (size_t i = 0; i < n; ++i) {
      host_x[i] = update_x(host_x[i]);
      host_y[i] = update_y(host_y[i], host_x[i]);
      host_z[i] = update_z(host_z[i]);
      host_x[i] = combine_x(host_x[i], host_y[i]);
    }
  }
  const std::vector<double> result_x = download_and_check(x, host_x, "x");
  const std::vector<double> result_y = download_and_check(y, host_y, "y");
  const std::vector<double> result_z = download_and_check(z, host_z, "z");
  print_checksum("x", result_x.data(), n * sizeof(double));
  print_checksum("y", result_y.data(), n * sizeof(double));
  print_checksum("z", result_z.data(), n * sizeof(double));

  CHECK_CUDA(cudaEventDestroy(x_ready));
  CHECK_CUDA(cudaEventDestroy(y_ready));
  CHECK_CUDA(cudaStreamDestroy(s1));
  CHECK_CUDA(cudaStreamDestroy(s2));
  CHECK_CUDA(cudaFree(x));
  CHECK_CUDA(cudaFree(y));
  CHECK_CUDA(cudaFree(z));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_options(argc, argv));
}
