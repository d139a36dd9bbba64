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
// The task must be host-only and short (no CUDA or device call, no lock an
// application thread can hold): whoever needs its result waits for it by
// the task's own means (for the metric host library: metric_host_ready).
// finish() waits for it at most kFinishWait (10 s); a task still running
// then is left to the process's end. An exception the task throws ends with
// the thread (the first range then pays the cost as without the warm-up).
// The thread runs with every signal blocked, so no handler of the
// application's ever runs on it.
//
// A child forked without exec has no such thread, and maybe the lock as
// another of its parent's threads held it at the fork: there finish()
// returns at once and takes no lock (the child never profiles: CUDA serves
// no forked child of an initialized parent).
//
// Thread-safety: start() and finish() may be called from any thread; a leaf
// mutex guards the thread's handle while it is created or taken, never while
// the task runs.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace rangereplay::tool {

class HostWarmUp {
 public:
  /// How long finish() waits for a running task, unless the constructor says.
  static constexpr std::chrono::milliseconds kFinishWait{10000};

  explicit HostWarmUp(std::function<void()> task, std::chrono::milliseconds finish_wait = kFinishWait)
      : task_(std::move(task)), finish_wait_(finish_wait) {}
  /// Waits for the task, as finish() does (a forked child leaves it).
  ~HostWarmUp();
  HostWarmUp(const HostWarmUp&) = delete;
  HostWarmUp& operator=(const HostWarmUp&) = delete;

  /// Runs the task on a new thread, the first time only. Returns whether this
  /// call started it: false when it was started before (here or in a parent
  /// process) or the thread could not be created (the task then never runs).
  /// Never throws.
  bool start() noexcept;

  /// Waits until the task has returned, at most the finish wait, when this
  /// process started it; at once otherwise (not started, already waited for
  /// or being waited for by another call, or a forked child, where it takes
  /// no lock). Never throws.
  void finish() noexcept;

  /// Leaves the task to run on, or to stay parked, until the process ends:
  /// the thread is detached and finish() (the destructor's included) no
  /// longer waits for it. For a task that will never return. At once in a
  /// process that did not start it. Never throws.
  void abandon() noexcept;

  /// Whether start() has started the task (in this process or its parent).
  bool started() const { return owner_.load() != 0; }

 private:
  // The thread's handle, moved out (null when not started here, already
  // taken, or in a forked child, where no lock is taken).
  std::unique_ptr<std::thread> take_thread() noexcept;

  // What the thread and finish() share: whether the task has returned.
  struct Done {
    std::mutex mutex;
    std::condition_variable returned;
    bool value = false;
  };
  std::function<void()> task_;
  std::chrono::milliseconds finish_wait_;
  std::atomic<pid_t> owner_{0};  // the process that started the task, claimed before the lock
  std::mutex mutex_;             // leaf: guards thread_ while it is created or taken
  std::unique_ptr<std::thread> thread_;
  std::shared_ptr<Done> done_ = std::make_shared<Done>();
};

}  // namespace rangereplay::tool
