// HostWorker: a long-lived second host thread that runs one job at a time on
// request, for the test apps whose range holds work submitted by another
// thread (two_threads: a kernel launch, as PyTorch's autograd thread does;
// overlapping_range: a launch inside the worker's own NVTX range). The caller
// blocks until the job has run, so the job's submissions land at a known
// point in the caller's range.
//
//   HostWorker worker;
//   worker.run_and_wait([&] { launch_affine(x, n, 2, /*stream=*/0); });
//
// Thread-safety: run_and_wait from one thread at a time.
#pragma once

#include <cuda_runtime.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "example_common.h"

namespace rangereplay::example {

class HostWorker {
 public:
  HostWorker() : thread_([this] { loop(); }) {}
  ~HostWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  HostWorker(const HostWorker&) = delete;
  HostWorker& operator=(const HostWorker&) = delete;

  // Runs `job` on the worker thread (device 0 current) and returns once it has.
  void run_and_wait(std::function<void()> job) {
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = std::move(job);
    wake_.notify_all();
    wake_.wait(lock, [this] { return !job_; });
  }

 private:
  void loop() {
    CHECK_CUDA(cudaSetDevice(0));
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return static_cast<bool>(job_) || stop_; });
      if (stop_) return;
      job_();
      job_ = nullptr;
      wake_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::function<void()> job_;  // empty: nothing requested
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it reads are built
};

}  // namespace rangereplay::example
