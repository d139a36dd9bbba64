// RangeTrigger: the injection's range decisions for each range source built
// from a ProfileConfig (NVTX, profiler API, kernel windows), instance
// selection, and the one-recorded-range rule across sources.
#include "core/config/range_trigger.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace rangereplay::range {
namespace {

constexpr std::uint64_t kT1 = 11, kT2 = 22;

// "-" for no event, else "<kind>#<match> <name>[@domain]".
std::string ev(const std::optional<RangeEvent>& e) {
  if (!e) return "-";
  std::string out = std::string(range_event_kind_name(e->kind)) + "#" + std::to_string(e->match_index) + " " + e->name;
  if (!e->domain.empty()) out += "@" + e->domain;
  return out;
}

// Configures `t` from `c`, failing the test on error.
void configure(RangeTrigger& t, const ProfileConfig& c) {
  Status s = t.configure(c);
  ASSERT_TRUE(s.ok()) << s.message();
}

// A configuration as the launcher writes it: expressions, windows and lists parsed.
ProfileConfig nvtx(const std::vector<std::string>& includes, const std::vector<std::string>& excludes = {}) {
  ProfileConfig c;
  for (const std::string& e : includes) c.nvtx_include.push_back(parse_nvtx_expression(e, "nvtx-include").value());
  for (const std::string& e : excludes) c.nvtx_exclude.push_back(parse_nvtx_expression(e, "nvtx-exclude").value());
  return c;
}

ProfileConfig windows(std::string_view text) {
  ProfileConfig c;
  c.kernel_windows = KernelWindows::parse(text).value();
  return c;
}

// Launches one kernel: "<before event>|<end event or ->" as the tool would act.
std::string launch(RangeTrigger& t, std::uint64_t thread = kT1) {
  RangeTrigger::Launch l = t.on_launch(thread);
  std::string out = ev(l.before) + "|";
  out += l.ends_after ? ev(t.after_launch(thread, l.index)) : "-";
  return out;
}

TEST(RangeTrigger, skip_and_range_count_pick_matches_one_and_two) {
  RangeTrigger t;
  ProfileConfig c = nvtx({"step/"});
  c.ranges = RangeSelector::from_skip_count(1, 2).value();
  configure(t, c);
  EXPECT_TRUE(t.listens_to_nvtx());
  std::vector<std::string> got;
  for (int i = 0; i < 4; ++i) {
    got.push_back(ev(t.on_push(kT1, "", "step")));
    got.push_back(ev(t.on_pop(kT1, "")));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"skipped#0 step", "-", "begin#1 step", "end#1 step", "begin#2 step",
                                           "end#2 step", "-", "-"}));
  // After the last selected range the injection may stop listening.
  EXPECT_FALSE(t.listens_to_nvtx());
  EXPECT_FALSE(t.recording());
}

TEST(RangeTrigger, a_range_list_selects_the_listed_matches_of_the_profiler_api) {
  RangeTrigger t;
  ProfileConfig c;
  c.profiler_api = true;
  c.ranges = RangeSelector::parse_list("0,2").value();
  configure(t, c);
  EXPECT_FALSE(t.listens_to_nvtx());
  EXPECT_TRUE(t.listens_to_profiler_api());
  std::vector<std::string> got;
  for (int i = 0; i < 3; ++i) {
    got.push_back(ev(t.on_profiler_start(kT1)));
    got.push_back(ev(t.on_profiler_stop(kT2)));  // a stop on another thread closes it
  }
  EXPECT_EQ(got, (std::vector<std::string>{"begin#0 cudaProfilerStart", "end#0 cudaProfilerStart",
                                           "skipped#1 cudaProfilerStart", "-", "begin#2 cudaProfilerStart",
                                           "end#2 cudaProfilerStart"}));
  EXPECT_FALSE(t.listens_to_profiler_api());
}

TEST(RangeTrigger, a_kernel_window_begins_before_its_first_launch_and_ends_after_its_last) {
  RangeTrigger t;
  configure(t, windows("6:12"));
  EXPECT_TRUE(t.counts_launches());
  std::vector<std::string> got;
  for (int i = 0; i < 12; ++i) got.push_back(launch(t));
  std::vector<std::string> expected(12, "-|-");
  expected[6] = "begin#0 kernels 6:12|-";
  expected[11] = "-|end#0 kernels 6:12";
  EXPECT_EQ(got, expected);
  EXPECT_EQ(t.launches(), 12u);
  EXPECT_FALSE(t.counts_launches());  // past the last window
}

TEST(RangeTrigger, a_one_launch_window_begins_and_ends_around_the_same_launch) {
  RangeTrigger t;
  configure(t, windows("0:1,1:2"));
  EXPECT_EQ(launch(t), "begin#0 kernels 0:1|end#0 kernels 0:1");
  EXPECT_EQ(launch(t), "begin#1 kernels 1:2|end#1 kernels 1:2");
  EXPECT_FALSE(t.counts_launches());
}

TEST(RangeTrigger, kernel_windows_are_matches_for_the_selector) {
  RangeTrigger t;
  ProfileConfig c = windows("0:2,2:4,4:6");
  c.ranges = RangeSelector::from_skip_count(1, 1).value();
  configure(t, c);
  std::vector<std::string> got;
  for (int i = 0; i < 4; ++i) got.push_back(launch(t));
  EXPECT_EQ(got, (std::vector<std::string>{"skipped#0 kernels 0:2|-", "-|-", "begin#1 kernels 2:4|-",
                                           "-|end#1 kernels 2:4"}));
  EXPECT_FALSE(t.counts_launches());  // nothing selectable after match 1
}

TEST(RangeTrigger, a_launch_that_ends_no_recorded_window_returns_no_end) {
  RangeTrigger t;
  configure(t, windows("2:4"));
  RangeTrigger::Launch first = t.on_launch(kT1);
  EXPECT_FALSE(first.ends_after);
  EXPECT_EQ(ev(t.after_launch(kT1, first.index)), "-");
}

TEST(RangeTrigger, a_touching_window_begun_on_another_thread_before_the_previous_ended_is_declined) {
  RangeTrigger t;
  configure(t, windows("0:1,1:2"));
  RangeTrigger::Launch a = t.on_launch(kT1);  // launch 0 entered on thread 1
  EXPECT_EQ(ev(a.before), "begin#0 kernels 0:1");
  RangeTrigger::Launch b = t.on_launch(kT2);  // launch 1 entered on thread 2 before launch 0 returned
  EXPECT_EQ(ev(b.before), "declined_overlap#1 kernels 1:2");
  EXPECT_FALSE(b.ends_after);
  EXPECT_EQ(ev(t.after_launch(kT1, a.index)), "end#0 kernels 0:1");
}

TEST(RangeTrigger, a_second_thread_push_inside_a_recorded_range_is_an_overlapping_range) {
  RangeTrigger t;
  configure(t, nvtx({"step/"}));
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "begin#0 step");
  EXPECT_EQ(ev(t.on_push(kT2, "", "step")), "declined_overlap#1 step");
  EXPECT_EQ(ev(t.on_pop(kT2, "")), "-");
  EXPECT_TRUE(t.recording());
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 step");
  EXPECT_FALSE(t.recording());
}

TEST(RangeTrigger, a_range_of_another_source_inside_the_recorded_one_is_declined_and_its_end_dropped) {
  // The launcher allows one source per run; a hand-written config may hold several.
  RangeTrigger t;
  ProfileConfig c = nvtx({"step/"});
  c.kernel_windows = KernelWindows::parse("0:2").value();
  configure(t, c);
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "begin#0 step");
  EXPECT_EQ(launch(t), "declined_overlap#0 kernels 0:2|-");
  EXPECT_EQ(launch(t), "-|-");  // the window's end is not the recorded range's end
  EXPECT_TRUE(t.recording());
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 step");
}

TEST(RangeTrigger, a_domain_expression_matches_only_its_domain) {
  RangeTrigger t;
  configure(t, nvtx({"D@step/"}));
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "E", "step")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "E")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "D", "step")), "begin#0 step@D");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");  // a default-domain pop does not end it
  EXPECT_EQ(ev(t.on_pop(kT1, "D")), "end#0 step@D");
}

TEST(RangeTrigger, a_start_end_range_may_end_on_another_thread) {
  RangeTrigger t;
  configure(t, nvtx({"epoch"}));
  EXPECT_EQ(ev(t.on_start(kT1, "", "epoch", 7)), "begin#0 epoch");
  EXPECT_EQ(ev(t.on_end(kT2, 8)), "-");  // an unknown id
  EXPECT_EQ(ev(t.on_end(kT2, 7)), "end#0 epoch");
}

TEST(RangeTrigger, excludes_veto_a_range_at_its_push) {
  RangeTrigger t;
  configure(t, nvtx({"step/"}, {"warmup/"}));
  EXPECT_EQ(ev(t.on_push(kT1, "", "warmup")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "begin#0 step");
}

TEST(RangeTrigger, without_a_source_nothing_begins_and_launches_are_not_counted) {
  RangeTrigger t;
  configure(t, ProfileConfig{});
  EXPECT_FALSE(t.listens_to_nvtx());
  EXPECT_FALSE(t.listens_to_profiler_api());
  EXPECT_FALSE(t.counts_launches());
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "-");
  EXPECT_EQ(ev(t.on_profiler_start(kT1)), "-");
  EXPECT_EQ(launch(t), "-|-");
}

TEST(RangeTrigger, an_exclude_without_an_include_is_rejected) {
  // The launcher refuses it; a hand-written configuration may hold it.
  RangeTrigger t;
  const Status s = t.configure(nvtx({}, {"warmup/"}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "nvtx-exclude needs at least one nvtx-include: a range begins at an included range's push or start");
  EXPECT_FALSE(t.listens_to_nvtx());
}

}  // namespace
}  // namespace rangereplay::range
