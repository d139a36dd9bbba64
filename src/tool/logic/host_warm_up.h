// HostWarmUp: one host-only task the tool starts early on a thread of its
// own, so that its one-time cost overlaps the application's start-up instead
// of the first range's set-up (the tool uses it for CUPTI's metric host
// library: ProfilerTool starts it when the application creates its first
// CUDA context).
//
//   HostWarmUp warm_up([] { warm_up_metric_host(); });
//   warm_up.start();     // a thread runs the task; later calls do nothing
//   ...
//   warm_up.finish();    // at exit: waits for the task if this process started it
//
// The task must be host-only and bounded (no CUDA or device call, no lock
// an application thread can hold): whoever needs its result takes the
// task's own locks, and finish() waits for it. An exception the task
// throws ends with the thread (the first range then pays the cost as
// without the warm-up).
//
// A child forked without exec while the thread ran has no such thread:
// there finish() does not wait (the child never profiles: CUDA serves no
// forked child of an initialized parent).
//
// Thread-safety: start() and finish() may be called from any thread; a
// leaf mutex guards them, never held while the task runs.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace rangereplay::tool {

class HostWarmUp {
 public:
  explicit HostWarmUp(std::function<void()> task) : task_(std::move(task)) {}
  /// Waits for the task, as finish() does (a forked child leaves it).
  ~HostWarmUp();
  HostWarmUp(const HostWarmUp&) = delete;
  HostWarmUp& operator=(const HostWarmUp&) = delete;

  /// Runs the task on a new thread, the first time only. Returns whether this
  /// call started it: false when it was started before or the thread could
  /// not be created (the task then never runs). Never throws.
  bool start() noexcept;

  /// Waits until the task has returned, when this process started it; at
  /// once otherwise (not started, already waited for or being waited for by
  /// another call, or a forked child).
  /// Never throws.
  void finish() noexcept;

  /// Whether start() has started the task (in this process or its parent).
  bool started() const;

 private:
  std::function<void()> task_;
  mutable std::mutex mutex_;  // leaf: guards the fields below
  bool started_ = false;
  pid_t owner_ = 0;                      // the process that started the thread
  std::unique_ptr<std::thread> thread_;  // released (never joined) in a forked child
};

}  // namespace rangereplay::tool
