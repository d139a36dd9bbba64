// overlapping_range: the same NVTX range `step` pushed on two threads at
// once. The main thread opens `step` and, inside it, asks a second,
// long-lived host thread to open its own `step` around one kernel launch
// (handed over with a mutex and condition variable, so the worker's push
// lands while the main thread's range is open). Expected: the main thread's
// range is replayed (the worker's launch is part of it), the worker's range
// is declined with overlapping_range; per iteration one of each. All launches
// go to the legacy default stream, so submission order is execution order:
//   main: push step;  affine(x, salt)
//   worker: push step;  affine(x, salt + 1);  pop
//   main: affine(x, salt + 2);  pop
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_overlapping_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` on the main thread (default 2); inside each,\n"
    "                  a second host thread pushes its own `step` around one kernel launch\n";

// The worker opens `step`, launches one affine kernel and closes `step` each
// time it is asked to, and says when it has closed its range.
class Worker {
 public:
  explicit Worker(uint32_t* x) : x_(x), thread_([this] { loop(); }) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Blocks until the worker has pushed `step`, submitted its launch with
  // `salt` and popped `step` again.
  void range_and_wait(uint32_t salt) {
    std::unique_lock<std::mutex> lock(mutex_);
    salt_ = salt;
    requested_ = true;
    wake_.notify_all();
    wake_.wait(lock, [this] { return !requested_; });
  }

 private:
  void loop() {
    CHECK_CUDA(cudaSetDevice(0));
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return requested_ || stop_; });
      if (stop_) return;
      nvtxRangePushA("step");
      launch_affine(x_, kAppElements, salt_, /*stream=*/0);
      nvtxRangePop();
      requested_ = false;
      wake_.notify_all();
    }
  }

  uint32_t* x_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stop_ = false;
  uint32_t salt_ = 0;
  std::thread thread_;  // last: starts after the members it reads are built
};

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected = random_words(kAppElements, 0xa99000d1);
  uint32_t* x = upload(expected);
  {
    Worker worker(x);
    for (int iteration = 0; iteration < iterations; ++iteration) {
      const uint32_t salt = 0xd00u + 3u * static_cast<uint32_t>(iteration);
      nvtxRangePushA("step");
      launch_affine(x, kAppElements, salt, /*stream=*/0);
      worker.range_and_wait(salt + 1);
      launch_affine(x, kAppElements, salt + 2, /*stream=*/0);
      nvtxRangePop();
      CHECK_CUDA(cudaDeviceSynchronize());
      host_affine(expected, salt);
      host_affine(expected, salt + 1);
      host_affine(expected, salt + 2);
    }
  }
  check_and_print(download(x, kAppElements), expected, "x");
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
