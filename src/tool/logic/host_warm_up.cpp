// HostWarmUp (host_warm_up.h).
#include "tool/logic/host_warm_up.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <utility>

namespace rangereplay::tool {

HostWarmUp::~HostWarmUp() { finish(); }

bool HostWarmUp::start() noexcept {
  // Claimed before any lock: a child forked from here on sees its parent's
  // pid and never takes mutex_ (finish).
  pid_t unclaimed = 0;
  if (!owner_.compare_exchange_strong(unclaimed, ::getpid())) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  // The new thread inherits the creating thread's signal mask: block every
  // signal while it is created, so none of the application's handlers runs
  // on it, then give the caller its own mask back.
  sigset_t all, previous;
  sigfillset(&all);
  const bool masked = pthread_sigmask(SIG_SETMASK, &all, &previous) == 0;
  try {
    thread_ = std::make_unique<std::thread>([task = task_, done = done_]() noexcept {
      try {
        if (task) task();
      } catch (...) {
        // The set-up it would have warmed pays the cost instead.
      }
      std::lock_guard<std::mutex> returned(done->mutex);
      done->value = true;
      done->returned.notify_all();
    });
  } catch (...) {
    thread_.reset();  // no thread (out of threads or memory): the task never runs
  }
  if (masked) pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return thread_ != nullptr;
}

std::unique_ptr<std::thread> HostWarmUp::take_thread() noexcept {
  // Not started, or a forked child (the thread is its parent's, and mutex_
  // may be as another parent thread held it at the fork): no lock taken.
  if (owner_.load() != ::getpid()) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  return std::move(thread_);
}

void HostWarmUp::abandon() noexcept {
  std::unique_ptr<std::thread> thread = take_thread();
  if (!thread) return;
  try {
    thread->detach();
  } catch (...) {
    static_cast<void>(thread.release());  // left running, its handle never destroyed
  }
}

void HostWarmUp::finish() noexcept {
  std::unique_ptr<std::thread> thread = take_thread();
  if (!thread) return;
  try {
    if (thread->get_id() == std::this_thread::get_id()) {
      thread->detach();  // called from the task itself: it cannot wait for itself
      return;
    }
    bool returned = false;
    {
      std::unique_lock<std::mutex> lock(done_->mutex);
      returned = done_->returned.wait_for(lock, finish_wait_, [&] { return done_->value; });
    }
    if (returned) {
      thread->join();  // the task has returned: the thread is ending
    } else {
      thread->detach();  // still running after the finish wait: left to the process's end
    }
  } catch (...) {
    static_cast<void>(thread.release());  // left running, its handle never destroyed
  }
}

}  // namespace rangereplay::tool
