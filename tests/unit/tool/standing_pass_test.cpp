// StandingPass over a CounterSession with a fake backend: its opening (once,
// before any push), a counter range of its own per range, when it is full,
// what a flush writes into the pending records (values and a note, or a
// decline), an abandoned pass's declines, and its debug lines.
#include "tool/logic/standing_pass.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "tool/logic/counter_session.h"
#include "unit/tool/fake_counter_backend.h"

namespace rangereplay::tool {
namespace {

using testing::Fixture;
using testing::Log;
using testing::one_pass_whole_range;

TEST(StandingPass, the_first_push_opens_it_and_every_range_gets_its_own_counter_range) {
  Fixture f(one_pass_whole_range());
  EXPECT_EQ(f.session->configured_mode(), CounterMode::kWholeRange);
  ASSERT_EQ(f.standing().push("step").value(), 0u);
  EXPECT_EQ(f.log, (Log{"set_mode 2", "resize 256", "begin_range", "start_pass step", "push_range step#0"}));
  EXPECT_TRUE(f.standing().is_open());
  // The pass's start is the session's first, timed as such.
  EXPECT_GT(f.session->first_pass_start_ms(), 0.0);
  f.log.clear();
  ASSERT_EQ(f.standing().push("step").value(), 1u);
  EXPECT_EQ(f.log, (Log{"push_range step#1"}));
}

TEST(StandingPass, opens_once_before_any_push) {
  Fixture f(one_pass_whole_range());
  ASSERT_TRUE(f.standing().open("step").ok());
  EXPECT_EQ(f.log, (Log{"set_mode 2", "resize 256", "begin_range", "start_pass step"}));
  EXPECT_TRUE(f.standing().is_open());
  f.log.clear();
  // Open already: no second start, and the push is the first counter range.
  ASSERT_TRUE(f.standing().open("step").ok());
  ASSERT_EQ(f.standing().push("step").value(), 0u);
  EXPECT_EQ(f.log, (Log{"push_range step#0"}));
}

TEST(StandingPass, a_failed_opening_leaves_it_closed) {
  Fixture f(one_pass_whole_range());
  f.backend->fail_at = "set_mode";
  EXPECT_FALSE(f.standing().push("step").ok());
  EXPECT_FALSE(f.standing().is_open());
}

TEST(StandingPass, is_full_at_its_image_size) {
  Fixture f(one_pass_whole_range());
  f.backend->most = 3;  // an image of 3 ranges
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(f.standing().push("r").ok());
  EXPECT_FALSE(f.standing().full());
  ASSERT_TRUE(f.standing().push("r").ok());
  EXPECT_TRUE(f.standing().full());

  Fixture g(one_pass_whole_range());  // 256 ranges by default
  for (int i = 0; i < 255; ++i) ASSERT_TRUE(g.standing().push("r").ok());
  EXPECT_FALSE(g.standing().full());
  ASSERT_TRUE(g.standing().push("r").ok());
  EXPECT_TRUE(g.standing().full());
}

TEST(StandingPass, a_flush_writes_each_pending_records_values) {
  Fixture f(one_pass_whole_range());
  std::vector<report::RangeRecord> records(3);
  records[0].name = "declined earlier";
  ASSERT_TRUE(f.standing().push("a").ok());
  f.standing().add_pending(1, 0);
  ASSERT_TRUE(f.standing().push("b").ok());
  f.standing().add_pending(2, 1);
  EXPECT_EQ(f.standing().pending(), 2u);
  f.backend->values = {{10}, {20}};
  f.log.clear();
  f.standing().flush("at exit", records, RangeReporter(/*quiet=*/true));
  EXPECT_EQ(f.log, (Log{"end_pass", "decode", "evaluate", "set_mode 1"}));
  EXPECT_FALSE(f.standing().is_open());
  EXPECT_EQ(f.standing().pending(), 0u);
  EXPECT_TRUE(records[0].range_metrics.empty());
  EXPECT_EQ(records[1].range_metrics, (std::vector<report::MetricValue>{{"sm__cycles_elapsed.avg", "cycle", 10}}));
  EXPECT_EQ(records[2].range_metrics, (std::vector<report::MetricValue>{{"sm__cycles_elapsed.avg", "cycle", 20}}));
  EXPECT_EQ(records[2].notes,
            (std::vector<std::string>{
                "one-pass metrics collected in a CUPTI pass left open across 2 ranges (flushed: at exit)"}));
  EXPECT_FALSE(records[1].declined);
  // A flush with none open does nothing; the next push opens a new pass
  // whose counter ranges count from 0 again.
  f.log.clear();
  f.standing().flush("again", records, RangeReporter(true));
  EXPECT_TRUE(f.log.empty());
  EXPECT_EQ(f.standing().push("c").value(), 0u);
}

TEST(StandingPass, an_abandoned_pass_declines_its_records_without_a_cupti_call) {
  Fixture f(one_pass_whole_range());
  std::vector<report::RangeRecord> records(2);
  ASSERT_TRUE(f.standing().push("a").ok());
  f.standing().add_pending(1, 0);
  f.log.clear();
  f.standing().abandon(DeclineReason::kStreamCaptureActive, "a capture was open at exit", records,
                       RangeReporter(/*quiet=*/true));
  EXPECT_TRUE(f.log.empty());
  EXPECT_FALSE(f.standing().is_open());
  EXPECT_EQ(f.standing().pending(), 0u);
  EXPECT_FALSE(records[0].declined);
  EXPECT_TRUE(records[1].declined);
  EXPECT_EQ(records[1].decline_reason, "stream_capture_active");
  // With none open it does nothing.
  f.standing().abandon(DeclineReason::kStreamCaptureActive, "again", records, RangeReporter(true));
  EXPECT_TRUE(f.log.empty());
}

TEST(StandingPass, a_flush_declines_the_records_cupti_gave_no_values_for) {
  Fixture f(one_pass_whole_range());
  std::vector<report::RangeRecord> records(2);
  ASSERT_TRUE(f.standing().push("a").ok());
  f.standing().add_pending(0, 0);
  ASSERT_TRUE(f.standing().push("b").ok());
  f.standing().add_pending(1, 1);
  f.backend->values = {{10}};  // one counter range for two pushed
  f.standing().flush("full", records, RangeReporter(true));
  EXPECT_FALSE(records[0].declined);
  EXPECT_TRUE(records[1].declined);
  EXPECT_EQ(records[1].decline_reason, "counter_ranges_mismatch");
  EXPECT_EQ(records[1].decline_detail, decline_report_detail(DeclineReason::kCounterRangesMismatch,
                                                             "CUPTI returned 1 counter ranges for 2 pushed"));
}

TEST(StandingPass, a_failed_flush_declines_every_pending_record_with_the_error) {
  Fixture f(one_pass_whole_range());
  std::vector<report::RangeRecord> records(1);
  ASSERT_TRUE(f.standing().push("a").ok());
  f.standing().add_pending(0, 0);
  f.backend->fail_at = "end_pass";
  f.log.clear();
  f.standing().flush("full", records, RangeReporter(true));
  EXPECT_EQ(f.log, (Log{"end_pass", "set_mode 1"}));  // no decode; the mode is set back
  EXPECT_EQ(records[0].decline_reason, "counters_unavailable");
  EXPECT_EQ(records[0].decline_detail,
            decline_report_detail(DeclineReason::kCountersUnavailable, "cuptiRangeProfilerStop failed"));
}

TEST(StandingPass, lists_its_pending_records_in_the_order_they_were_added) {
  Fixture f(one_pass_whole_range());
  ASSERT_TRUE(f.standing().push("a").ok());
  f.standing().add_pending(4, 0);
  ASSERT_TRUE(f.standing().push("b").ok());
  f.standing().add_pending(7, 1);
  std::vector<std::size_t> records = {1};
  f.standing().pending_records(records);  // appended
  EXPECT_EQ(records, (std::vector<std::size_t>{1, 4, 7}));
}

TEST(StandingPass, writes_one_debug_line_per_open_flush_and_abandon) {
  Fixture f(one_pass_whole_range());
  std::vector<report::RangeRecord> records(1);
  ASSERT_TRUE(f.standing().push("a").ok());
  f.standing().flush("at exit", records, RangeReporter(true));
  ASSERT_TRUE(f.standing().push("b").ok());
  f.standing().abandon(DeclineReason::kStreamCaptureActive, "a capture was open at exit", records, RangeReporter(true));
  EXPECT_EQ(f.debug,
            (Log{"standing pass opened for 256 ranges", "standing pass flushed: at exit: ok",
                 "standing pass opened for 256 ranges", "standing pass abandoned: a capture was open at exit"}));
}

}  // namespace
}  // namespace rangereplay::tool
