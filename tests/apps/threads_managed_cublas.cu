// threads_managed_cublas: several host threads, each driving its own stream
// and cuBLAS handle, working through small tasks on managed memory, the way
// multi-threaded programs with unified memory do. Every task has its own
// managed allocation (cudaMallocManaged: matrix A, vectors x and y) and runs
// kRounds rounds of
//   y = kAlpha A x + kBeta y      (gemv)
//   x = mix(x, y)                 (element-wise, see mix)
// either on the GPU (the allocation attached to the thread's stream with
// cudaStreamAttachMemAsync(cudaMemAttachSingle), cublasDgemv on that stream,
// then mix_kernel) or, for small matrices, on the host (the allocation
// attached to the host, cudaStreamSynchronize, the same arithmetic in C++),
// with a little host work between the launches. While one thread computes on
// the host or waits for its stream, the others keep launching.
//
// Task i is done by thread i % threads, and its placement (host or GPU) and
// size depend on i alone, so every task's result is the same whatever the
// threads' interleaving. The program checks every task against a host
// reference (a tolerance for the GPU's rounding), prints the checksums of all
// tasks' x and y in task order, and exits 1 with a message when a CUDA or
// cuBLAS call fails.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_threads_managed_cublas [--threads N] [--tasks N]\n"
    "  --threads N  host threads, each with its own stream and cuBLAS handle (default 4)\n"
    "  --tasks N    tasks, handed to the threads round-robin (default 48)\n";

constexpr int kRounds = 2;
constexpr double kAlpha = 1.0;
constexpr double kBeta = 0.5;
// Matrices smaller than this are computed on the host.
constexpr int kHostBelow = 100;
constexpr int kMinSize = 32;
constexpr int kSizeSpread = 256;
constexpr auto kHostWork = std::chrono::microseconds(100);
constexpr unsigned int kMixThreads = 128;

const char* cublas_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_(other)";
  }
}

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "error: %s failed: %s (%d) at %s:%d\n", call, cublas_status_name(status),
               static_cast<int>(status), file, line);
  std::exit(1);
}

#define CHECK_CUBLAS(call) check_cublas((call), #call, __FILE__, __LINE__)

__host__ __device__ inline double mix(double x, double y) { return 0.5 * x + 0.25 * y / (1.0 + fabs(y)); }

__global__ void mix_kernel(double* x, const double* y, int n) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<int>(gridDim.x * blockDim.x))
    x[i] = mix(x[i], y[i]);
}

// y = kAlpha A x + kBeta y, A column-major n x n; then x = mix(x, y).
void host_round(const double* a, double* x, double* y, int n) {
  std::vector<double> ax(n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) ax[i] += a[i + static_cast<size_t>(j) * n] * x[j];
  for (int i = 0; i < n; ++i) y[i] = kAlpha * ax[i] + kBeta * y[i];
  for (int i = 0; i < n; ++i) x[i] = mix(x[i], y[i]);
}

// Busy host work between submissions (the threads' own computation).
void host_work() {
  const auto until = std::chrono::steady_clock::now() + kHostWork;
  while (std::chrono::steady_clock::now() < until) std::this_thread::yield();
}

struct Task {
  int n = 0;
  bool on_host = false;
  double* data = nullptr;       // managed: A (n * n), x (n), y (n)
  std::vector<double> initial;  // the same words as first written, for the reference
  size_t words() const { return static_cast<size_t>(n) * n + 2 * static_cast<size_t>(n); }
  double* a() const { return data; }
  double* x() const { return data + static_cast<size_t>(n) * n; }
  double* y() const { return data + static_cast<size_t>(n) * n + n; }
};

struct Worker {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
};

void do_task(const Task& task, const Worker& w) {
  const int n = task.n;
  if (task.on_host) {
    CHECK_CUDA(cudaStreamAttachMemAsync(w.stream, task.data, 0, cudaMemAttachHost));
    CHECK_CUDA(cudaStreamSynchronize(w.stream));
    for (int r = 0; r < kRounds; ++r) {
      host_round(task.a(), task.x(), task.y(), n);
      host_work();
    }
    return;
  }
  CHECK_CUDA(cudaStreamAttachMemAsync(w.stream, task.data, 0, cudaMemAttachSingle));
  for (int r = 0; r < kRounds; ++r) {
    CHECK_CUBLAS(cublasDgemv(w.cublas, CUBLAS_OP_N, n, n, &kAlpha, task.a(), n, task.x(), 1, &kBeta, task.y(), 1));
    host_work();
    mix_kernel<<<(n + kMixThreads - 1) / kMixThreads, kMixThreads, 0, w.stream>>>(task.x(), task.y(), n);
    CHECK_LAUNCH();
    host_work();
  }
}

struct Options {
  int threads = 4;
  int tasks = 48;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--threads") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n < 1 || n > 64) usage_error("--threads takes 1 to 64", argv[i]);
      o.threads = static_cast<int>(n);
    } else if (std::strcmp(argv[i], "--tasks") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n < 1 || n > 10000) usage_error("--tasks takes 1 to 10000", argv[i]);
      o.tasks = static_cast<int>(n);
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  return o;
}

int run(const Options& o) {
  init_device();
  std::vector<Worker> workers(o.threads);
  for (Worker& w : workers) {
    CHECK_CUDA(cudaStreamCreate(&w.stream));
    CHECK_CUBLAS(cublasCreate(&w.cublas));
    CHECK_CUBLAS(cublasSetStream(w.cublas, w.stream));
  }
  SplitMix64 rng(0xa9900e01);
  std::vector<Task> tasks(o.tasks);
  for (Task& t : tasks) {
    t.n = kMinSize + static_cast<int>(rng.next() % kSizeSpread);
    t.on_host = t.n < kHostBelow;
    t.initial.resize(t.words());
    // A in [0, 2/n): A x stays of the order of x.
    const double scale = 2.0 / t.n;
    for (size_t k = 0; k < static_cast<size_t>(t.n) * t.n; ++k) t.initial[k] = scale * rng.next_unit();
    for (size_t k = static_cast<size_t>(t.n) * t.n; k < t.words(); ++k) t.initial[k] = rng.next_unit() - 0.5;
    CHECK_CUDA(cudaMallocManaged(&t.data, t.words() * sizeof(double)));
    std::memcpy(t.data, t.initial.data(), t.words() * sizeof(double));
  }
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<std::thread> threads;
  for (int id = 0; id < o.threads; ++id) {
    threads.emplace_back([&, id] {
      CHECK_CUDA(cudaSetDevice(0));
      for (size_t i = static_cast<size_t>(id); i < tasks.size(); i += static_cast<size_t>(o.threads))
        do_task(tasks[i], workers[id]);
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK_CUDA(cudaDeviceSynchronize());

  // Check every task, then print x and y of all tasks in task order.
  std::vector<double> all_x, all_y;
  int host_tasks = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    std::vector<double> ref = t.initial;
    double* ra = ref.data();
    double* rx = ra + static_cast<size_t>(t.n) * t.n;
    double* ry = rx + t.n;
    for (int r = 0; r < kRounds; ++r) host_round(ra, rx, ry, t.n);
    for (int k = 0; k < 2 * t.n; ++k) {
      const double got = k < t.n ? t.x()[k] : t.y()[k - t.n];
      const double want = k < t.n ? rx[k] : ry[k - t.n];
      // GPU tasks differ from the reference by rounding only (cuBLAS sums in
      // another order, the kernel may fuse multiply-adds).
      const double tolerance = 1e-10 * (1.0 + std::fabs(want));
      if (!(std::fabs(got - want) <= tolerance)) {
        std::fprintf(stderr, "error: task %zu (%s, n=%d): %s[%d] = %.17g, host reference %.17g\n", i,
                     t.on_host ? "host" : "GPU", t.n, k < t.n ? "x" : "y", k < t.n ? k : k - t.n, got, want);
        return 1;
      }
    }
    all_x.insert(all_x.end(), t.x(), t.x() + t.n);
    all_y.insert(all_y.end(), t.y(), t.y() + t.n);
    host_tasks += t.on_host ? 1 : 0;
  }
  std::printf("%d tasks on %d threads: %d on the host, %d on the GPU\n", o.tasks, o.threads, host_tasks,
              o.tasks - host_tasks);
  print_checksum("x", all_x.data(), all_x.size() * sizeof(double));
  print_checksum("y", all_y.data(), all_y.size() * sizeof(double));
  for (Task& t : tasks) CHECK_CUDA(cudaFree(t.data));
  for (Worker& w : workers) {
    CHECK_CUBLAS(cublasDestroy(w.cublas));
    CHECK_CUDA(cudaStreamDestroy(w.stream));
  }
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_options(argc, argv));
}
