// The module registry: kernels of modules with writable variables are found
// by name, loads and unloads while a range is open become that range's
// events (in order, handed over once), and callbacks on many threads can
// fill it while another thread reads it.
#include "core/record/module_registry.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace rangereplay {
namespace {

CubinSymbols module(std::vector<std::string> kernels, std::vector<CubinGlobal> globals) {
  CubinSymbols s;
  s.kernels = std::move(kernels);
  s.writable_globals = std::move(globals);
  return s;
}

TEST(ModuleRegistry, KernelsOfModulesWithVariablesAreFound) {
  ModuleRegistry r;
  r.loaded(module({"_Z1av", "_Z1bv"}, {{"g_count", 4}}));  // no range window open
  r.loaded(module({"_Z1cv"}, {}));
  auto a = r.globals_of("_Z1av");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->names, "g_count");
  ASSERT_EQ(a->globals.size(), 1u);
  EXPECT_EQ(a->globals[0].size_bytes, 4u);
  EXPECT_EQ(r.globals_of("_Z1bv"), a);  // one record per module
  EXPECT_EQ(r.globals_of("_Z1cv"), nullptr);
  EXPECT_EQ(r.globals_of("_Z7unknownv"), nullptr);
  EXPECT_TRUE(r.close_range_window().empty());  // nothing happened inside a range
}

TEST(ModuleRegistry, LoadsAndUnloadsInARangeBecomeItsEventsOnce) {
  ModuleRegistry r;
  r.open_range_window();
  r.loaded(module({"_Z1av"}, {}));
  r.loaded(module({"_Z1bv"}, {{"g_x", 8}}));
  r.loaded(invalid_argument("no cubin"));
  r.unloading();
  const auto events = r.close_range_window();
  r.unloading();               // outside the window: counted, no event
  EXPECT_EQ(r.unloads(), 2u);  // every unload counts, in a range or not
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].kind, ModuleEvent::Kind::kLoaded);
  EXPECT_EQ(events[1].kind, ModuleEvent::Kind::kLoadDeclines);
  EXPECT_EQ(events[1].detail, "module with writable variable g_x loaded inside the range");
  EXPECT_EQ(events[2].kind, ModuleEvent::Kind::kLoadDeclines);
  EXPECT_EQ(events[3].kind, ModuleEvent::Kind::kUnloaded);
  EXPECT_TRUE(r.close_range_window().empty());
  // A module noted inside a range is known afterwards too.
  EXPECT_NE(r.globals_of("_Z1bv"), nullptr);
}

TEST(ModuleRegistry, EventsOfAnEarlierWindowAreDroppedWhenTheNextOpens) {
  ModuleRegistry r;
  r.open_range_window();
  r.unloading();
  r.open_range_window();  // the previous range's events were never taken
  r.loaded(module({"_Z1av"}, {}));
  const auto events = r.close_range_window();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, ModuleEvent::Kind::kLoaded);
}

TEST(ModuleRegistry, CallbacksOnManyThreadsWhileAnotherReads) {
  ModuleRegistry r;
  r.open_range_window();
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&r, t] {
      for (int i = 0; i < 200; ++i) r.loaded(module({"k" + std::to_string(t) + "_" + std::to_string(i)}, {{"g", 4}}));
    });
  }
  std::size_t found = 0;
  for (int i = 0; i < 200; ++i) found += r.globals_of("k0_" + std::to_string(i)) != nullptr;
  for (auto& t : threads) t.join();
  EXPECT_LE(found, 200u);
  EXPECT_EQ(r.close_range_window().size(), 6u * 200u);
  EXPECT_NE(r.globals_of("k5_199"), nullptr);
}

}  // namespace
}  // namespace rangereplay
