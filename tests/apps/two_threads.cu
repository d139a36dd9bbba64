// two_threads: a range opened by the main thread whose middle kernel is
// launched by a second, long-lived host thread (as PyTorch's autograd thread
// does), handed over with a mutex and condition variable so the launch lands
// inside the range. All three launches go to the legacy default stream, so
// submission order is execution order: main (salt 1), worker (salt 2),
// main (salt 3); swapping any two changes the result.
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
    "usage: app_two_threads [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2); in each, a second\n"
    "                  host thread launches the middle of three kernels\n";

// The worker launches one affine kernel each time it is asked to, and says
// when the launch has been submitted.
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

  // Blocks until the worker has submitted its launch with `salt`.
  void launch_and_wait(uint32_t salt) {
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
      launch_affine(x_, kAppElements, salt_, /*stream=*/0);
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
  std::vector<uint32_t> expected = random_words(kAppElements, 0xa9900001);
  uint32_t* x = upload(expected);
  {
    Worker worker(x);
    for (int iteration = 0; iteration < iterations; ++iteration) {
      nvtxRangePushA("step");
      launch_affine(x, kAppElements, 1, /*stream=*/0);
      worker.launch_and_wait(2);
      launch_affine(x, kAppElements, 3, /*stream=*/0);
      nvtxRangePop();
      CHECK_CUDA(cudaDeviceSynchronize());
      host_affine(expected, 1);
      host_affine(expected, 2);
      host_affine(expected, 3);
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
