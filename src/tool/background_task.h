// BackgroundTask: one task run on a thread of the tool's own, started at
// most once and joined by whoever needs its result first.
//
//   BackgroundTask setup;
//   setup.start([&] { result = expensive(); });   // from any thread, once
//   ...
//   if (setup.join()) use(result);                // the task ran and ended: its writes are visible
//
// After join() no task starts any more (start() returns false), so a task
// cannot begin after the one that needed it has moved on. The destructor
// joins.
//
// Thread-safety: start() and join() may be called from any thread, also
// together. start() never blocks (a caller may hold driver locks the task
// needs): while a join is under way it starts nothing. join() blocks until
// the task ends, so the task must never wait for anything the joining
// thread holds.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

namespace rangereplay::tool {

class BackgroundTask {
 public:
  BackgroundTask() = default;
  ~BackgroundTask() { join(); }
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  /// Starts `task` on a new thread unless one was started or join() was
  /// called; returns whether it started. A thread that cannot be created
  /// (std::system_error) starts nothing and returns false.
  bool start(std::function<void()> task) {
    if (started_.load() || closed_.load()) return false;
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() || started_.load() || closed_.load()) return false;
    try {
      thread_ = std::thread(std::move(task));
    } catch (...) {
      return false;
    }
    started_.store(true);
    return true;
  }

  /// Waits for a started task to end and closes the task to later starts;
  /// true when a task ran (its writes are visible to the caller).
  bool join() {
    closed_.store(true);
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread_.joinable()) thread_.join();
    return started_.load();
  }

 private:
  std::mutex mutex_;
  std::thread thread_;
  std::atomic<bool> started_{false};
  std::atomic<bool> closed_{false};
};

}  // namespace rangereplay::tool
