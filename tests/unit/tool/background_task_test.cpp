// BackgroundTask: runs once, join() sees its writes, nothing starts after a
// join, and a join without a start reports that no task ran.
#include "tool/background_task.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace rangereplay::tool {
namespace {

TEST(BackgroundTask, the_task_runs_once_and_join_sees_its_result) {
  BackgroundTask task;
  int result = 0;
  std::atomic<int> runs{0};
  EXPECT_TRUE(task.start([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    result = 42;
    ++runs;
  }));
  EXPECT_FALSE(task.start([&] { ++runs; }));
  EXPECT_TRUE(task.join());
  EXPECT_EQ(result, 42);
  EXPECT_EQ(runs.load(), 1);
  EXPECT_TRUE(task.join());  // joined already: still says it ran
}

TEST(BackgroundTask, nothing_starts_after_a_join) {
  BackgroundTask task;
  EXPECT_FALSE(task.join());
  bool ran = false;
  EXPECT_FALSE(task.start([&] { ran = true; }));
  EXPECT_FALSE(task.join());
  EXPECT_FALSE(ran);
}

TEST(BackgroundTask, the_destructor_waits_for_the_task) {
  std::atomic<bool> done{false};
  {
    BackgroundTask task;
    task.start([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      done = true;
    });
  }
  EXPECT_TRUE(done.load());
}

}  // namespace
}  // namespace rangereplay::tool
