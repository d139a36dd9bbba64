// HostWarmUp (src/tool/logic/host_warm_up.h): one task on a thread of its
// own, once; finish waits for it in the process that started it, not in a
// forked child; a task that throws or a finish without a start ends cleanly.
#include "tool/logic/host_warm_up.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "support/child_wait.h"

namespace rangereplay::tool {
namespace {

using namespace std::chrono_literals;

using rangereplay::testing::ended_within;

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
  const bool ended = ended_within(child, 5s, &status);
  release.store(true);
  warm_up.finish();
  ASSERT_TRUE(ended) << "the forked child's finish waited for its parent's thread";
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(HostWarmUp, finish_stops_waiting_for_a_task_that_does_not_return) {
  std::atomic<bool> release{false};
  std::atomic<bool> returned{false};
  {
    HostWarmUp warm_up(
        [&] {
          while (!release.load()) std::this_thread::sleep_for(1ms);
          returned.store(true);
        },
        100ms);
    ASSERT_TRUE(warm_up.start());
    const auto start = std::chrono::steady_clock::now();
    warm_up.finish();  // gives up after 100 ms: the thread is left running
    const auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, 100ms);
    EXPECT_LT(waited, 5s);
    EXPECT_FALSE(returned.load());
  }  // the destructor does not wait either: the handle was given up
  release.store(true);
  for (int i = 0; i < 500 && !returned.load(); ++i) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(returned.load());
}

TEST(HostWarmUp, an_abandoned_task_is_waited_for_neither_by_finish_nor_by_the_destructor) {
  // Shared with the detached thread, which may outlive this test.
  struct Flags {
    std::atomic<bool> release{false};
    std::atomic<bool> returned{false};
  };
  const auto flags = std::make_shared<Flags>();
  const auto start = std::chrono::steady_clock::now();
  {
    HostWarmUp warm_up([flags] {
      while (!flags->release.load()) std::this_thread::sleep_for(1ms);
      flags->returned.store(true);
    });  // the default finish wait, 10 s
    ASSERT_TRUE(warm_up.start());
    warm_up.abandon();
    warm_up.finish();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "waited for the abandoned task";
  EXPECT_FALSE(flags->returned.load());
  flags->release.store(true);
  for (int i = 0; i < 10000 && !flags->returned.load(); ++i) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(flags->returned.load()) << "the detached thread ran on";
}

TEST(HostWarmUp, the_task_runs_with_every_signal_blocked_and_the_caller_keeps_its_mask) {
  sigset_t before;
  ASSERT_EQ(pthread_sigmask(SIG_SETMASK, nullptr, &before), 0);
  std::atomic<int> blocked{-1};
  HostWarmUp warm_up([&] {
    sigset_t mask;
    pthread_sigmask(SIG_SETMASK, nullptr, &mask);
    blocked.store(sigismember(&mask, SIGINT) == 1 && sigismember(&mask, SIGTERM) == 1 &&
                          sigismember(&mask, SIGUSR1) == 1 && sigismember(&mask, SIGALRM) == 1
                      ? 1
                      : 0);
  });
  ASSERT_TRUE(warm_up.start());
  warm_up.finish();
  EXPECT_EQ(blocked.load(), 1);
  sigset_t after;
  ASSERT_EQ(pthread_sigmask(SIG_SETMASK, nullptr, &after), 0);
  for (int signal : {SIGINT, SIGTERM, SIGUSR1, SIGALRM})
    EXPECT_EQ(sigismember(&after, signal), sigismember(&before, signal)) << "signal " << signal;
}

// A fork on one thread while another is inside start(): the child's finish
// must return without the lock (which may be held by a thread it does not
// have). Many forks, so that some land inside start().
TEST(HostWarmUp, a_child_forked_while_another_thread_starts_the_task_never_waits) {
  constexpr int kForks = 200;
  int hung = 0;
  for (int i = 0; i < kForks; ++i) {
    HostWarmUp warm_up([] { std::this_thread::sleep_for(1ms); });
    std::thread starter([&] { warm_up.start(); });
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      warm_up.finish();
      ::_exit(0);
    }
    starter.join();
    int status = 0;
    if (!ended_within(child, 2s, &status)) ++hung;
  }
  EXPECT_EQ(hung, 0) << "of " << kForks << " children forked around start()";
}

}  // namespace
}  // namespace rangereplay::tool
