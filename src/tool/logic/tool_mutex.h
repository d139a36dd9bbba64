// ToolMutex: the tool's one lock over range state, recording, graphs, counters
// and the report, which knows who holds it and what the holder is doing, so
// that RANGEREPLAY_DEBUG=1 can say which thread waits for what.
//
// Taken through ToolLock (lock_for, unlock). lock_for first tries without
// waiting; with debugging on, a thread that has to wait prints one
// line naming itself, the call it is in, the holder and the holder's stage,
// and repeats it every 5 s while it still waits (a hang shows its cycle).
// The stage is a string literal the holder sets (set_stage) before each step
// that can take long: a CUPTI set-up call, a drain, a snapshot, a pass.
//
// Thread-safety: any thread. Not recursive: a thread that holds it must not
// lock it again (callbacks re-entered by the tool's own calls return at once,
// in_tool()).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>

namespace rangereplay::tool {

class ToolMutex {
 public:
  /// `debug`: print wait lines (RANGEREPLAY_DEBUG). `thread`: the calling
  /// thread's number (tool_thread_number), `call`: the API it is in (or a
  /// short name: "exit"), both for the wait lines.
  void lock_for(std::uint64_t thread, const char* call, bool debug) {
    if (!mutex_.try_lock()) {
      if (!debug) {
        mutex_.lock();
      } else {
        const auto start = std::chrono::steady_clock::now();
        do {
          const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          std::fprintf(stderr,
                       "rangereplay[debug] thread %llu (%s) waits for the tool lock, held by thread %llu (%s) at "
                       "stage: %s (waited %.1f s)\n",
                       static_cast<unsigned long long>(thread), call ? call : "?",
                       static_cast<unsigned long long>(holder_.load(std::memory_order_relaxed)),
                       holder_call_.load(std::memory_order_relaxed), stage_.load(std::memory_order_relaxed), waited);
        } while (!mutex_.try_lock_for(std::chrono::seconds(5)));
      }
    }
    holder_.store(thread, std::memory_order_relaxed);
    holder_call_.store(call ? call : "?", std::memory_order_relaxed);
    stage_.store("in a callback", std::memory_order_relaxed);
  }
  void unlock() {
    holder_.store(0, std::memory_order_relaxed);
    stage_.store("released", std::memory_order_relaxed);
    mutex_.unlock();
  }
  /// Whether thread `thread` (tool_thread_number) holds the lock now: true
  /// only on the holder itself, e.g. an exit() the application's signal
  /// handler made while the tool was in a callback on that thread.
  bool held_by(std::uint64_t thread) const { return holder_.load(std::memory_order_relaxed) == thread; }
  /// What the holder does now; `stage` must be a string literal (or live as
  /// long as the process). Called by the holder only.
  void set_stage(const char* stage) { stage_.store(stage, std::memory_order_relaxed); }

 private:
  std::timed_mutex mutex_;
  std::atomic<std::uint64_t> holder_{0};
  std::atomic<const char*> holder_call_{"?"};
  std::atomic<const char*> stage_{"released"};
};

/// What a ToolLock runs at the end of its scope: `before_unlock(context)`
/// while the lock is still held, then `after_unlock(context)` once it is
/// released; either may be null. Neither may throw.
struct ToolLockHook {
  void (*before_unlock)(void* context) noexcept = nullptr;
  void (*after_unlock)(void* context) noexcept = nullptr;
  void* context = nullptr;
};

/// Holds a ToolMutex for a scope (std::lock_guard with the wait lines), and
/// runs `hook` at its end (the journal: what the scope changed is written
/// before another thread sees it, and flushed to disk after the lock is
/// released, so no other thread waits for the disk).
class ToolLock {
 public:
  using Hook = ToolLockHook;
  ToolLock(ToolMutex& mutex, std::uint64_t thread, const char* call, bool debug, Hook hook = {})
      : mutex_(mutex), hook_(hook) {
    mutex_.lock_for(thread, call, debug);
  }
  ~ToolLock() {
    if (hook_.before_unlock != nullptr) hook_.before_unlock(hook_.context);
    mutex_.unlock();
    if (hook_.after_unlock != nullptr) hook_.after_unlock(hook_.context);
  }
  ToolLock(const ToolLock&) = delete;
  ToolLock& operator=(const ToolLock&) = delete;

 private:
  ToolMutex& mutex_;
  Hook hook_;
};

}  // namespace rangereplay::tool
