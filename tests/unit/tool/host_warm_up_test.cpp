// HostWarmUp (src/tool/logic/host_warm_up.h): one task on a thread of its
// own, once; finish waits for it in the process that started it, not in a
// forked child; a task that throws or a finish without a start ends cleanly.
#include "tool/logic/host_warm_up.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace rangereplay::tool {
namespace {

using namespace std::chrono_literals;

TEST(HostWarmUp, runs_its_task_once_on_another_thread_and_finish_waits_for_it) {
  std::atomic<int> runs{0};
  std::atomic<bool> done{false};
  std::thread::id task_thread;
  HostWarmUp warm_up([&] {
    task_thread = std::this_thread::get_id();
    std::this_thread::sleep_for(100ms);  // finish must wait this out
    runs.fetch_add(1);
    done.store(true);
  });
  EXPECT_FALSE(warm_up.started());
  EXPECT_TRUE(warm_up.start());
  EXPECT_FALSE(warm_up.start());  // once per object
  EXPECT_TRUE(warm_up.started());
  warm_up.finish();
  EXPECT_TRUE(done.load());
  EXPECT_EQ(runs.load(), 1);
  EXPECT_NE(task_thread, std::this_thread::get_id());
  warm_up.finish();  // again: at once
  EXPECT_FALSE(warm_up.start());
  EXPECT_EQ(runs.load(), 1);
}

TEST(HostWarmUp, finish_without_start_returns_and_the_task_never_runs) {
  bool ran = false;
  {
    HostWarmUp warm_up([&] { ran = true; });
    warm_up.finish();
  }
  EXPECT_FALSE(ran);
}

TEST(HostWarmUp, a_task_that_throws_ends_with_its_thread) {
  HostWarmUp warm_up([] { throw std::runtime_error("host library failed"); });
  EXPECT_TRUE(warm_up.start());
  warm_up.finish();  // the process goes on
  EXPECT_TRUE(warm_up.started());
}

TEST(HostWarmUp, the_destructor_waits_for_a_running_task) {
  std::atomic<bool> done{false};
  {
    HostWarmUp warm_up([&] {
      std::this_thread::sleep_for(50ms);
      done.store(true);
    });
    ASSERT_TRUE(warm_up.start());
  }
  EXPECT_TRUE(done.load());
}

TEST(HostWarmUp, a_forked_child_does_not_wait_for_its_parents_thread) {
  std::atomic<bool> release{false};
  HostWarmUp warm_up([&] {
    while (!release.load()) std::this_thread::sleep_for(1ms);
  });
  ASSERT_TRUE(warm_up.start());
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The task's thread does not exist here: waiting for it would never end.
    warm_up.finish();
    ::_exit(0);
  }
  int status = 0;
  pid_t waited = 0;
  for (int i = 0; i < 500 && waited == 0; ++i) {  // up to 5 s
    waited = ::waitpid(child, &status, WNOHANG);
    if (waited == 0) std::this_thread::sleep_for(10ms);
  }
  if (waited == 0) ::kill(child, SIGKILL), ::waitpid(child, &status, 0);
  release.store(true);
  warm_up.finish();
  ASSERT_EQ(waited, child) << "the forked child's finish waited for its parent's thread";
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace rangereplay::tool
