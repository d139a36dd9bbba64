// A bounded wait for a child process, for tests that fork: a child that
// hangs fails the test instead of hanging it.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

namespace rangereplay::testing {

/// Waits up to `limit` for `child` to end, polling every 10 ms; kills
/// (SIGKILL) and reaps it when it has not. Returns whether it ended by itself
/// in time; its wait status goes to *status either way.
inline bool ended_within(pid_t child, std::chrono::milliseconds limit, int* status) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(child, status, WNOHANG) == child) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, status, 0);
  return false;
}

}  // namespace rangereplay::testing
