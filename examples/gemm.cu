// gemm: cuBLAS DGEMM with beta = 1 (C += A * B, non-idempotent: a replay
// without restoring C first adds A * B once more) inside each NVTX range
// `step`. cuBLAS gets its own workspace and one warm-up call on a scratch
// matrix before the first range, so no allocation or module load happens
// inside a range. cuBLAS results are bit-reproducible run to run on one GPU
// (cuBLAS documentation, "Results reproducibility"). 16 entries of C are
// checked against a host reference (exit 1 on a mismatch).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: gemm [--size N] [--iterations N]\n"
    "  --size N        square matrix order (default 2048)\n"
    "  --iterations N  number of C += A * B steps, one NVTX range `step` each (default 3)\n"
    "Prints `checksum <buffer> <hex>` for c, then `checksums-done`.\n";

constexpr size_t kWorkspaceBytes = size_t{32} << 20;  // cuBLAS's recommendation for Hopper

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "error: %s failed: %s (%s) at %s:%d\n", call, cublasGetStatusName(status),
               cublasGetStatusString(status), file, line);
  std::exit(1);
}
#define CHECK_CUBLAS(call) check_cublas((call), #call, __FILE__, __LINE__)

struct Options {
  int size = 2048;
  int iterations = 3;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--size") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n == 0 || n > 32768) usage_error("--size must be in 1..32768", argv[i]);
      options.size = static_cast<int>(n);
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

double* upload_random(std::vector<double>& host, SplitMix64& rng) {
  const size_t count = host.size();
  fill_uniform(host, rng, -1.0, 1.0);
  double* device = nullptr;
  CHECK_CUDA(cudaMalloc(&device, count * sizeof(double)));
  CHECK_CUDA(cudaMemcpy(device, host.data(), count * sizeof(double), cudaMemcpyHostToDevice));
  return device;
}

// Spot-checks 16 entries of C (column-major) against C0 + iterations * A * B
// computed on the host; exits 1 when one is off by more than 1e-9 relative to
// the sum of magnitudes (summation order differs from cuBLAS's).
void check_entries(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c0,
                   const std::vector<double>& c, int n, int iterations) {
  const size_t order = static_cast<size_t>(n);
  SplitMix64 rng(0x5eed0006);
  for (int probe = 0; probe < 16; ++probe) {
    const size_t row = rng.next() % order;
    const size_t column = rng.next() % order;
    double product = 0.0, magnitude = 0.0;
    for (size_t k = 0; k < order; ++k) {
      product += a[row + k * order] * b[k + column * order];
      magnitude += std::fabs(a[row + k * order] * b[k + column * order]);
    }
    const double expected = c0[row + column * order] + iterations * product;
    const double tolerance = 1e-9 * (std::fabs(c0[row + column * order]) + iterations * magnitude);
    if (std::fabs(c[row + column * order] - expected) > tolerance) {
      std::fprintf(stderr, "error: C(%zu,%zu) = %.17g, host reference %.17g\n", row, column, c[row + column * order],
                   expected);
      std::exit(1);
    }
  }
}

int run(const Options& options) {
  init_device();
  const int n = options.size;
  const size_t count = static_cast<size_t>(n) * static_cast<size_t>(n);
  std::printf("gemm: DGEMM C += A * B, n = %d, %d iterations\n", n, options.iterations);

  SplitMix64 rng(0x5eed0005);
  std::vector<double> host_a(count), host_b(count), host_c(count), host_scratch(count);
  double* a = upload_random(host_a, rng);
  double* b = upload_random(host_b, rng);
  double* c = upload_random(host_c, rng);
  double* scratch = upload_random(host_scratch, rng);
  void* workspace = nullptr;
  CHECK_CUDA(cudaMalloc(&workspace, kWorkspaceBytes));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  cublasHandle_t handle = nullptr;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, stream));  // resets the workspace: set it after
  CHECK_CUBLAS(cublasSetWorkspace(handle, workspace, kWorkspaceBytes));
  CHECK_CUBLAS(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));

  const double alpha = 1.0;
  const double beta = 1.0;
  // Warm-up: loads cuBLAS's kernels outside any range; writes only `scratch`.
  CHECK_CUBLAS(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, scratch, n));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    nvtxRangePushA("step");
    CHECK_CUBLAS(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n));
    nvtxRangePop();
    CHECK_CUDA(cudaStreamSynchronize(stream));
  }

  std::vector<double> result_c(count);
  CHECK_CUDA(cudaMemcpy(result_c.data(), c, count * sizeof(double), cudaMemcpyDeviceToHost));
  check_entries(host_a, host_b, host_c, result_c, n, options.iterations);
  print_checksum("c", result_c.data(), count * sizeof(double));
  CHECK_CUBLAS(cublasDestroy(handle));
  CHECK_CUDA(cudaStreamDestroy(stream));
  for (void* p :
       {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(scratch), workspace})
    CHECK_CUDA(cudaFree(p));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_options(argc, argv));
}
