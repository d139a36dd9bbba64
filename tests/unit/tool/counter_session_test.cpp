// CounterSession with a fake backend: image sizing per range name, the
// warm-up pass, when the standing pass is used (the pass itself:
// standing_pass_test.cpp), a kernel's user ranges and application range
// replay's collector.
#include "tool/logic/counter_session.h"

#include <filesystem>

#include "tool/logic/app_range_collector.h"

#include "tool/restore_strategy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "unit/tool/fake_counter_backend.h"

namespace rangereplay::tool {
namespace {

using testing::FakeBackend;
using testing::Fixture;
using testing::Log;
using testing::one_pass_whole_range;

TEST(CounterSession, an_unseen_range_name_gets_the_image_budget) {
  Fixture f(CounterSessionOptions{});
  // 64 MiB / 92160 bytes per range.
  EXPECT_EQ(f.session->counter_ranges_for("step"), std::size_t{64 << 20} / (9 * 1024 * 10));
  f.backend->bytes = 1;  // at most 2048
  EXPECT_EQ(f.session->counter_ranges_for("step"), 2048u);
  f.backend->bytes = std::size_t{1} << 30;  // at least 1
  EXPECT_EQ(f.session->counter_ranges_for("step"), 1u);
}

TEST(CounterSession, the_kernel_override_replaces_the_budget) {
  CounterSessionOptions o;
  o.max_kernels_per_range = 5000;
  Fixture f(o);
  EXPECT_EQ(f.session->counter_ranges_for("step"), 5000u);
}

TEST(CounterSession, a_known_range_name_gets_a_quarter_more_than_last_time) {
  Fixture f(CounterSessionOptions{});
  f.backend->bytes = 1;  // budget 2048
  f.session->remember_kernels("step", 100);
  EXPECT_EQ(f.session->counter_ranges_for("step"), 133u);  // 100 + 25 + 8
  f.session->remember_kernels("step", 2000);
  EXPECT_EQ(f.session->counter_ranges_for("step"), 2048u);  // within the budget
  f.session->remember_kernels("step", 3000);
  EXPECT_EQ(f.session->counter_ranges_for("step"), 3000u);  // never below last time
  f.backend->most = 2500;
  EXPECT_EQ(f.session->counter_ranges_for("step"), 2500u);  // never above the largest image
  EXPECT_EQ(f.session->counter_ranges_for("other"), 2048u);
}

TEST(CounterSession, the_warm_up_runs_one_empty_pass_in_the_standing_pass_mode) {
  Fixture f(one_pass_whole_range());
  ASSERT_TRUE(f.session->warm_up().ok());
  // One pass had everything a one-pass list needs: its data is decoded.
  const Log expected = {"set_mode 2", "resize 256", "begin_range", "start_pass rangereplay_warm_up",
                        "end_pass",   "decode",     "set_mode 1"};
  EXPECT_EQ(f.log, expected);
  EXPECT_FALSE(f.session->standing().is_open());
  EXPECT_GE(f.session->warm_up_ms(), f.session->first_pass_start_ms());
  // The warm-up's start was the session's first: a range's later start is not timed as one.
  const double first = f.session->first_pass_start_ms();
  ASSERT_TRUE(f.session->start_pass("step").ok());
  EXPECT_EQ(f.session->first_pass_start_ms(), first);
}

TEST(CounterSession, the_warm_up_sizes_a_per_kernel_image_as_for_a_new_range_name) {
  CounterSessionOptions o;
  o.pass_count = 1;
  Fixture f(o);
  ASSERT_TRUE(f.session->warm_up().ok());
  const Log expected = {"set_mode 0",  "resize " + std::to_string(f.session->counter_ranges_for("step")),
                        "begin_range", "start_pass rangereplay_warm_up",
                        "end_pass",    "decode",
                        "set_mode 0"};
  EXPECT_EQ(f.log, expected);
}

TEST(CounterSession, a_multi_pass_list_gets_no_warm_up) {
  CounterSessionOptions o = one_pass_whole_range();
  o.pass_count = 31;
  Fixture f(o);
  ASSERT_TRUE(f.session->warm_up().ok());
  EXPECT_TRUE(f.log.empty());
  EXPECT_EQ(f.session->warm_up_ms(), 0.0);
}

TEST(CounterSession, a_failed_warm_up_still_sets_the_configured_mode_back) {
  Fixture f(one_pass_whole_range());
  f.backend->fail_at = "end_pass";
  const Status s = f.session->warm_up();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cuptiRangeProfilerStop failed"), std::string::npos) << s.message();
  EXPECT_EQ(f.log.back(), "set_mode 1");
  EXPECT_FALSE(f.session->in_pass());
}

TEST(CounterSession, the_standing_pass_is_for_one_pass_whole_range_lists) {
  EXPECT_TRUE(Fixture(one_pass_whole_range()).session->standing_pass_eligible());
  CounterSessionOptions two_passes = one_pass_whole_range();
  two_passes.pass_count = 2;
  EXPECT_FALSE(Fixture(two_passes).session->standing_pass_eligible());
  CounterSessionOptions per_kernel = one_pass_whole_range();
  per_kernel.whole_range_metrics = false;
  EXPECT_FALSE(Fixture(per_kernel).session->standing_pass_eligible());
  CounterSessionOptions off = one_pass_whole_range();
  off.standing_pass = false;
  EXPECT_FALSE(Fixture(off).session->standing_pass_eligible());
}

TEST(KernelCounterRanges, each_kernel_gets_a_user_range_named_by_its_position) {
  Log log;
  FakeBackend backend(log);
  KernelCounterRanges ranges(backend);
  for (std::size_t kernel = 0; kernel < 3; ++kernel) {
    ASSERT_TRUE(ranges.open(kernel).ok());
    ASSERT_TRUE(ranges.close().ok());
  }
  EXPECT_EQ(log, (Log{"push_range k#0", "pop_range", "push_range k#1", "pop_range", "push_range k#2", "pop_range"}));
}

// Application range replay: three runs of a 3-pass list, each collecting its
// pass of range 4 through the counter data carried in the state folder.
TEST(AppRangeCollector, each_run_collects_its_pass_and_the_last_one_decodes_the_values) {
  const std::string dir = ::testing::TempDir() + "rr_app_collector";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  CounterSessionOptions o = one_pass_whole_range();
  o.pass_count = 3;
  for (std::uint32_t pass = 0; pass < 3; ++pass) {
    Fixture f(o);
    f.backend->all_submitted = pass == 2;
    f.backend->values = {{42.0}};
    const AppRangeRun run{pass, dir, false, {4}};
    AppRangeCollector collector(*f.session, run);
    ASSERT_TRUE(collector.begin(4, "step").ok());
    EXPECT_TRUE(collector.open());
    StatusOr<AppRangeOutcome> out = collector.end();
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ(out->pass, pass);
    EXPECT_EQ(out->runs, pass + 1);
    EXPECT_EQ(out->complete, pass == 2);
    // The image an earlier run left is the one this run configures.
    const std::size_t carried = pass == 0 ? 0 : 4 + pass;
    EXPECT_EQ(f.log[0], "begin_application_pass " + std::to_string(carried) + " " + std::to_string(pass) + " 1");
    EXPECT_EQ(f.log[1], "start_pass step");
    // Every pass is decoded into the image before it is carried.
    EXPECT_EQ(f.log[3], "decode");
    if (pass == 2) {
      EXPECT_EQ(out->values, std::vector<double>{42.0});
      EXPECT_EQ(f.log.back(), "evaluate");
    } else {
      EXPECT_EQ(f.log.size(), 4u);
    }
  }
  StatusOr<std::optional<AppRangeCounterState>> state = read_app_range_state(app_range_state_path(dir, 4));
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_TRUE((*state)->all_passes_submitted);
  EXPECT_EQ((*state)->runs, 3u);
  EXPECT_EQ((*state)->counter_data, (std::vector<std::uint8_t>{0, 0, 0, 0, 0, 1, 2}));
  // A fourth run finds the counter data complete.
  Fixture f(o);
  const AppRangeRun extra{3, dir, false, {4}};
  AppRangeCollector collector(*f.session, extra);
  const Status s = collector.begin(4, "step");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("already holds every pass"), std::string::npos) << s.message();
  EXPECT_FALSE(collector.open());
  EXPECT_TRUE(f.log.empty());
  std::filesystem::remove_all(dir);
}

TEST(AppRangeCollector, a_run_out_of_step_with_the_counter_data_is_refused) {
  const std::string dir = ::testing::TempDir() + "rr_app_collector_step";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  CounterSessionOptions o = one_pass_whole_range();
  o.pass_count = 3;
  Fixture f(o);
  const AppRangeRun run{2, dir, true, {}};  // pass 3, but no earlier run left counter data
  AppRangeCollector collector(*f.session, run);
  const Status s = collector.begin(0, "step");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("collects pass 3 of range 0 'step', but its counter data asks for pass 1"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE(collector.end().ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rangereplay::tool
