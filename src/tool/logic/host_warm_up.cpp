// HostWarmUp (host_warm_up.h).
#include "tool/logic/host_warm_up.h"

#include <unistd.h>

#include <utility>

namespace rangereplay::tool {

HostWarmUp::~HostWarmUp() { finish(); }

bool HostWarmUp::start() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (started_) return false;
  started_ = true;
  try {
    thread_ = std::make_unique<std::thread>([task = task_]() noexcept {
      try {
        if (task) task();
      } catch (...) {
        // The set-up it would have warmed pays the cost instead.
      }
    });
  } catch (...) {
    thread_.reset();  // no thread (out of threads or memory): the task never runs
    return false;
  }
  owner_ = ::getpid();
  return true;
}

void HostWarmUp::finish() noexcept {
  std::unique_ptr<std::thread> thread;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!thread_) return;
    if (owner_ != ::getpid()) {
      // A forked child: the thread is its parent's; joining or detaching
      // its handle here would act on a thread that does not exist.
      static_cast<void>(thread_.release());
      return;
    }
    thread = std::move(thread_);
  }
  try {
    if (thread->get_id() == std::this_thread::get_id()) {
      thread->detach();  // called from the task itself: it cannot wait for itself
    } else {
      thread->join();
    }
  } catch (...) {
    static_cast<void>(thread.release());  // left running, its handle never destroyed
  }
}

bool HostWarmUp::started() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return started_;
}

}  // namespace rangereplay::tool
