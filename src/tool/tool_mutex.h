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
  /// What the holder does now; `stage` must be a string literal (or live as
  /// long as the process). Called by the holder only.
  void set_stage(const char* stage) { stage_.store(stage, std::memory_order_relaxed); }

 private:
  std::timed_mutex mutex_;
  std::atomic<std::uint64_t> holder_{0};
  std::atomic<const char*> holder_call_{"?"};
  std::atomic<const char*> stage_{"released"};
};

/// What a ToolLock runs before it unlocks: `run(context)`, when set.
struct ToolLockHook {
  void (*run)(void* context) noexcept = nullptr;
  void* context = nullptr;
};

/// Holds a ToolMutex for a scope (std::lock_guard with the wait lines).
/// `before_unlock`, when set, runs at the end of the scope while the lock is
/// still held (the journal's sync: what the scope changed reaches the disk
/// before another thread sees it); it must not throw.
class ToolLock {
 public:
  using Hook = ToolLockHook;
  ToolLock(ToolMutex& mutex, std::uint64_t thread, const char* call, bool debug, Hook before_unlock = {})
      : mutex_(mutex), before_unlock_(before_unlock) {
    mutex_.lock_for(thread, call, debug);
  }
  ~ToolLock() {
    if (before_unlock_.run != nullptr) before_unlock_.run(before_unlock_.context);
    mutex_.unlock();
  }
  ToolLock(const ToolLock&) = delete;
  ToolLock& operator=(const ToolLock&) = delete;

 private:
  ToolMutex& mutex_;
  Hook before_unlock_;
};

}  // namespace rangereplay::tool
