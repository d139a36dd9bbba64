#include "tool/logic/tool_mutex.h"

#include <gtest/gtest.h>

#include <string>

namespace rangereplay::tool {
namespace {

TEST(ToolMutex, knows_which_thread_holds_it) {
  ToolMutex mutex;
  EXPECT_FALSE(mutex.held_by(5));
  mutex.lock_for(5, "test", /*debug=*/false);
  EXPECT_TRUE(mutex.held_by(5));
  EXPECT_FALSE(mutex.held_by(6));
  mutex.unlock();
  EXPECT_FALSE(mutex.held_by(5));
}

struct Seen {
  ToolMutex* mutex = nullptr;
  std::string order;
};

TEST(ToolLock, runs_its_hook_before_and_after_it_unlocks) {
  ToolMutex mutex;
  Seen seen{&mutex, ""};
  ToolLockHook hook;
  hook.before_unlock = [](void* c) noexcept {
    auto* s = static_cast<Seen*>(c);
    s->order += s->mutex->held_by(3) ? "before(held) " : "before(free) ";
  };
  hook.after_unlock = [](void* c) noexcept {
    auto* s = static_cast<Seen*>(c);
    s->order += s->mutex->held_by(3) ? "after(held)" : "after(free)";
  };
  hook.context = &seen;
  { ToolLock lock(mutex, 3, "test", /*debug=*/false, hook); }
  EXPECT_EQ(seen.order, "before(held) after(free)");
  // Without a hook: only the lock.
  { ToolLock lock(mutex, 3, "test", /*debug=*/false); }
  EXPECT_FALSE(mutex.held_by(3));
}

}  // namespace
}  // namespace rangereplay::tool
