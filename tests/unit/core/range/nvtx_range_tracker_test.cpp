// NvtxRangeTracker scenarios: the NVTX call sequences an application makes,
// and the range events the injection receives for them.
#include "core/range/nvtx_range_tracker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace rangereplay::range {
namespace {

NvtxRangeTracker make(std::vector<std::string> includes, std::vector<std::string> excludes = {},
                      RangeSelector selector = {}) {
  StatusOr<NvtxFilter> f = NvtxFilter::parse(includes, excludes);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return NvtxRangeTracker(std::move(f).value(), std::move(selector));
}

// "-" for no event, else "<kind>#<match> <name>[@domain]".
std::string ev(const std::optional<RangeEvent>& e) {
  if (!e) return "-";
  std::string out = std::string(range_event_kind_name(e->kind)) + "#" + std::to_string(e->match_index) + " " + e->name;
  if (!e->domain.empty()) out += "@" + e->domain;
  return out;
}

constexpr std::uint64_t kT1 = 101, kT2 = 202;

TEST(NvtxRangeTracker, a_push_pop_range_begins_at_its_push_and_ends_at_its_pop) {
  NvtxRangeTracker t = make({"step/"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "begin#0 step");
  EXPECT_TRUE(t.recording());
  EXPECT_EQ(ev(t.on_push(kT1, "", "forward")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 step");
  EXPECT_FALSE(t.recording());
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "begin#1 step");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#1 step");
  EXPECT_EQ(t.matched(), 2u);
}

TEST(NvtxRangeTracker, events_carry_source_domain_and_thread) {
  NvtxRangeTracker t = make({"D@step/"});
  const std::optional<RangeEvent> e = t.on_push(kT2, "D", "step");
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, (RangeEvent{RangeEventKind::kBegin, RangeSource::kNvtxPushPop, 0, "step", "D", kT2}));
}

TEST(NvtxRangeTracker, pushes_nested_in_a_matched_range_never_begin_another) {
  NvtxRangeTracker t = make({"A/"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "begin#0 A");
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "x")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 A");
  EXPECT_EQ(t.matched(), 1u);
}

TEST(NvtxRangeTracker, a_nested_expression_begins_at_the_inner_push) {
  NvtxRangeTracker t = make({"A/B"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "B")), "begin#0 B");
  EXPECT_EQ(ev(t.on_push(kT1, "", "C")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 B");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
}

TEST(NvtxRangeTracker, each_thread_has_its_own_stack) {
  NvtxRangeTracker t = make({"A/B"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "-");
  EXPECT_EQ(ev(t.on_push(kT2, "", "B")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "B")), "begin#0 B");
  EXPECT_EQ(ev(t.on_pop(kT2, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 B");
}

TEST(NvtxRangeTracker, each_domain_has_its_own_stack_and_only_its_pop_ends_the_range) {
  NvtxRangeTracker t = make({"D@A/"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "D", "A")), "begin#0 A@D");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "E", "z")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "E")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "D")), "end#0 A@D");
}

TEST(NvtxRangeTracker, repeated_includes_are_alternatives) {
  NvtxRangeTracker t = make({"A/", "B/"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "B")), "begin#0 B");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 B");
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "begin#1 A");
}

TEST(NvtxRangeTracker, an_exclude_that_matches_at_the_push_vetoes_the_range) {
  NvtxRangeTracker t = make({"A/"}, {"[X"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "X")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "begin#0 A");
}

TEST(NvtxRangeTracker, a_start_end_exclude_vetoes_push_pop_ranges_while_it_is_open) {
  NvtxRangeTracker t = make({"step/"}, {"warmup"});
  EXPECT_EQ(ev(t.on_start(kT1, "", "warmup", 1)), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_end(kT2, 1)), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "begin#0 step");
}

TEST(NvtxRangeTracker, an_exclude_that_matches_only_inside_a_range_does_not_cut_it) {
  NvtxRangeTracker t = make({"A/"}, {"A/B]"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "begin#0 A");
  EXPECT_EQ(ev(t.on_push(kT1, "", "B")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 A");
}

TEST(NvtxRangeTracker, skip_and_count_pick_instances_then_it_is_done) {
  NvtxRangeTracker t = make({"A/"}, {}, RangeSelector::from_skip_count(1, 1).value());
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "skipped#0 A");
  EXPECT_FALSE(t.recording());
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_FALSE(t.done());
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "begin#1 A");
  EXPECT_FALSE(t.done());
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#1 A");
  EXPECT_TRUE(t.done());
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "-");
  EXPECT_EQ(t.matched(), 2u);
}

TEST(NvtxRangeTracker, a_skipped_range_shields_its_nested_pushes) {
  NvtxRangeTracker t = make({"A/"}, {}, RangeSelector::parse_list("1").value());
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "skipped#0 A");
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "begin#1 A");
}

TEST(NvtxRangeTracker, a_selected_range_overlapping_a_recorded_one_is_declined) {
  NvtxRangeTracker t = make({"step/"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "begin#0 step");
  EXPECT_EQ(ev(t.on_push(kT2, "", "step")), "declined_overlap#1 step");
  EXPECT_EQ(ev(t.on_push(kT2, "", "step")), "-");
  EXPECT_EQ(ev(t.on_pop(kT2, "")), "-");
  EXPECT_EQ(ev(t.on_pop(kT2, "")), "-");
  EXPECT_TRUE(t.recording());
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 step");
  EXPECT_EQ(ev(t.on_push(kT2, "", "step")), "begin#2 step");
}

TEST(NvtxRangeTracker, a_start_end_range_can_end_on_another_thread) {
  NvtxRangeTracker t = make({"step"});
  const std::optional<RangeEvent> b = t.on_start(kT1, "", "step", 7);
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, (RangeEvent{RangeEventKind::kBegin, RangeSource::kNvtxStartEnd, 0, "step", "", kT1}));
  const std::optional<RangeEvent> e = t.on_end(kT2, 7);
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, (RangeEvent{RangeEventKind::kEnd, RangeSource::kNvtxStartEnd, 0, "step", "", kT2}));
}

TEST(NvtxRangeTracker, a_start_end_conjunction_lasts_while_all_its_ranges_are_open) {
  NvtxRangeTracker t = make({"A,B"});
  EXPECT_EQ(ev(t.on_start(kT1, "", "A", 1)), "-");
  EXPECT_EQ(ev(t.on_start(kT1, "", "B", 2)), "begin#0 B");
  EXPECT_EQ(ev(t.on_end(kT1, 1)), "end#0 B");
  EXPECT_EQ(ev(t.on_end(kT1, 2)), "-");
}

TEST(NvtxRangeTracker, a_start_end_range_lasts_while_any_include_matches) {
  NvtxRangeTracker t = make({"A", "B"});
  EXPECT_EQ(ev(t.on_start(kT1, "", "A", 1)), "begin#0 A");
  EXPECT_EQ(ev(t.on_start(kT1, "", "B", 2)), "-");
  EXPECT_EQ(ev(t.on_end(kT1, 1)), "-");
  EXPECT_EQ(ev(t.on_end(kT1, 2)), "end#0 A");
}

TEST(NvtxRangeTracker, start_end_ranges_of_another_domain_do_not_match) {
  NvtxRangeTracker t = make({"D@A"});
  EXPECT_EQ(ev(t.on_start(kT1, "", "A", 1)), "-");
  EXPECT_EQ(ev(t.on_start(kT1, "D", "A", 2)), "begin#0 A@D");
  EXPECT_EQ(ev(t.on_end(kT1, 1)), "-");
  EXPECT_EQ(ev(t.on_end(kT1, 2)), "end#0 A@D");
}

TEST(NvtxRangeTracker, a_start_end_range_inside_a_recorded_push_pop_range_is_declined) {
  NvtxRangeTracker t = make({"outer/", "inner"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "outer")), "begin#0 outer");
  EXPECT_EQ(ev(t.on_start(kT1, "", "inner", 9)), "declined_overlap#1 inner");
  EXPECT_EQ(ev(t.on_end(kT1, 9)), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 outer");
}

TEST(NvtxRangeTracker, unbalanced_pops_and_unknown_ends_are_ignored) {
  NvtxRangeTracker t = make({"A/"});
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_end(kT1, 12345)), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "A")), "begin#0 A");
  EXPECT_EQ(ev(t.on_pop(kT1, "other")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "end#0 A");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
}

TEST(NvtxRangeTracker, end_of_process_ends_the_recorded_range_once) {
  NvtxRangeTracker t = make({"step/"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "step")), "begin#0 step");
  EXPECT_EQ(ev(t.end_of_process(kT2)), "end#0 step");
  EXPECT_FALSE(t.recording());
  EXPECT_EQ(ev(t.end_of_process(kT2)), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
}

TEST(NvtxRangeTracker, regex_includes_match_by_search) {
  NvtxRangeTracker t = make({"regex:^iter_[0-9]+$/"});
  EXPECT_EQ(ev(t.on_push(kT1, "", "iter_x")), "-");
  EXPECT_EQ(ev(t.on_pop(kT1, "")), "-");
  EXPECT_EQ(ev(t.on_push(kT1, "", "iter_42")), "begin#0 iter_42");
}

TEST(NvtxRangeTracker, concurrent_threads_record_one_range_at_a_time) {
  NvtxRangeTracker t = make({"step/"});
  constexpr int kThreads = 4, kIterations = 2000;
  std::atomic<int> begins{0}, ends{0}, declined{0}, other{0}, active{0}, max_active{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      const auto tid = static_cast<std::uint64_t>(1000 + i);
      for (int k = 0; k < kIterations; ++k) {
        const std::optional<RangeEvent> b = t.on_push(tid, "", "step");
        if (b && b->kind == RangeEventKind::kBegin) {
          ++begins;
          const int now = ++active;
          int seen = max_active.load();
          while (now > seen && !max_active.compare_exchange_weak(seen, now)) {
          }
        } else if (b && b->kind == RangeEventKind::kDeclinedOverlap) {
          ++declined;
        } else {
          ++other;
        }
        t.on_push(tid, "", "inner");
        t.on_pop(tid, "");
        if (b && b->kind == RangeEventKind::kBegin) --active;  // before the pop that ends it
        const std::optional<RangeEvent> e = t.on_pop(tid, "");
        if (e && e->kind == RangeEventKind::kEnd) ++ends;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(begins.load(), ends.load());
  EXPECT_EQ(begins.load() + declined.load(), kThreads * kIterations);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(max_active.load(), 1);
  EXPECT_EQ(t.matched(), static_cast<std::uint64_t>(kThreads * kIterations));
  EXPECT_FALSE(t.recording());
}

}  // namespace
}  // namespace rangereplay::range
