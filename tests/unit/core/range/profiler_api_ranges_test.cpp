// ProfilerApiRanges: cu(da)ProfilerStart opens, Stop closes, nesting ignored.
#include "core/range/profiler_api_ranges.h"

#include <gtest/gtest.h>

#include <string>

namespace rangereplay::range {
namespace {

std::string ev(const std::optional<RangeEvent>& e) {
  if (!e) return "-";
  return std::string(range_event_kind_name(e->kind)) + "#" + std::to_string(e->match_index);
}

TEST(ProfilerApiRanges, start_opens_a_range_and_stop_closes_it) {
  ProfilerApiRanges r;
  const std::optional<RangeEvent> b = r.on_start(7);
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, (RangeEvent{RangeEventKind::kBegin, RangeSource::kProfilerApi, 0, "cudaProfilerStart", "", 7}));
  EXPECT_TRUE(r.open());
  const std::optional<RangeEvent> e = r.on_stop(8);  // another thread may stop it
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, (RangeEvent{RangeEventKind::kEnd, RangeSource::kProfilerApi, 0, "cudaProfilerStart", "", 8}));
  EXPECT_FALSE(r.open());
}

TEST(ProfilerApiRanges, nested_starts_and_unmatched_stops_are_ignored) {
  ProfilerApiRanges r;
  EXPECT_EQ(ev(r.on_stop(1)), "-");
  EXPECT_EQ(ev(r.on_start(1)), "begin#0");
  EXPECT_EQ(ev(r.on_start(1)), "-");
  EXPECT_EQ(ev(r.on_start(2)), "-");
  EXPECT_EQ(ev(r.on_stop(1)), "end#0");
  EXPECT_EQ(ev(r.on_stop(1)), "-");
  EXPECT_EQ(ev(r.on_start(1)), "begin#1");
  EXPECT_EQ(ev(r.on_stop(1)), "end#1");
  EXPECT_EQ(r.matched(), 2u);
}

TEST(ProfilerApiRanges, the_selector_picks_instances_and_reports_done) {
  ProfilerApiRanges r(RangeSelector::from_skip_count(1, 1).value());
  EXPECT_EQ(ev(r.on_start(1)), "skipped#0");
  EXPECT_TRUE(r.open());
  EXPECT_EQ(ev(r.on_stop(1)), "-");
  EXPECT_FALSE(r.done());
  EXPECT_EQ(ev(r.on_start(1)), "begin#1");
  EXPECT_FALSE(r.done());
  EXPECT_EQ(ev(r.on_stop(1)), "end#1");
  EXPECT_TRUE(r.done());
}

}  // namespace
}  // namespace rangereplay::range
