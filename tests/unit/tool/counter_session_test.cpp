// CounterSession with a fake backend: image sizing per range name, when the
// standing pass is used, its opening, its counter ranges, when it is full,
// and what a flush writes into the pending records.
#include "tool/logic/counter_session.h"

#include <filesystem>

#include "tool/logic/app_range_collector.h"

#include "tool/restore_strategy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace rangereplay::tool {
namespace {

using Log = std::vector<std::string>;

class FakeBackend final : public CounterBackend {
 public:
  explicit FakeBackend(Log& log) : log_(log) {}
  Status set_mode(CounterMode mode) override {
    log_.push_back("set_mode " + std::to_string(static_cast<int>(mode)));
    return fail_at == "set_mode" ? internal_error("set_mode failed") : ok_status();
  }
  Status resize(std::size_t n) override {
    log_.push_back("resize " + std::to_string(n));
    max_ranges_ = n;
    return ok_status();
  }
  Status begin_range() override {
    log_.push_back("begin_range");
    return ok_status();
  }
  Status start_pass(const std::string& name) override {
    log_.push_back("start_pass " + name);
    in_pass_ = true;
    return ok_status();
  }
  StatusOr<bool> end_pass() override {
    log_.push_back("end_pass");
    in_pass_ = false;
    if (fail_at == "end_pass") return internal_error("cuptiRangeProfilerStop failed");
    return all_submitted;
  }
  Status push_range(const std::string& name) override {
    log_.push_back("push_range " + name);
    return ok_status();
  }
  Status pop_range() override {
    log_.push_back("pop_range");
    return ok_status();
  }
  Status set_lead_in(bool on) override {
    log_.push_back(std::string("set_lead_in ") + (on ? "1" : "0"));
    return ok_status();
  }
  Status end_lead_in(const std::string& name) override {
    log_.push_back("end_lead_in " + name);
    return ok_status();
  }
  bool pass_has_lead_in() const override { return false; }
  StatusOr<std::size_t> decode() override {
    log_.push_back("decode");
    image.push_back(static_cast<std::uint8_t>(current_pass_));  // what a decoded pass adds to the image
    return std::size_t{0};
  }
  StatusOr<std::vector<std::vector<double>>> evaluate() const override {
    log_.push_back("evaluate");
    return values;
  }
  bool in_pass() const override { return in_pass_; }
  std::size_t max_ranges() const override { return max_ranges_; }
  std::size_t most_ranges() const override { return most; }
  std::size_t bytes_per_range() const override { return bytes; }
  Status begin_application_pass(const std::vector<std::uint8_t>& carried, std::size_t pass,
                                std::uint16_t nesting) override {
    log_.push_back("begin_application_pass " + std::to_string(carried.size()) + " " + std::to_string(pass) + " " +
                   std::to_string(nesting));
    image = carried.empty() ? std::vector<std::uint8_t>(4, 0) : carried;
    current_pass_ = pass;
    next_pass_ = pass + 1;  // CUPTI's pass index after the stop
    return ok_status();
  }
  const std::vector<std::uint8_t>& counter_data() const override { return image; }
  std::size_t next_pass() const override { return next_pass_; }
  std::size_t next_nesting_level() const override { return 1; }
  std::vector<std::uint8_t> image;
  std::size_t next_pass_ = 0;
  std::size_t current_pass_ = 0;

  std::vector<std::vector<double>> values;
  std::string fail_at;
  bool all_submitted = true;
  std::size_t most = 100000;
  std::size_t bytes = 9 * 1024 * 10;  // ~9 KB per metric and range, 10 metrics

 private:
  Log& log_;
  std::size_t max_ranges_ = 1;
  bool in_pass_ = false;
};

struct Fixture {
  explicit Fixture(CounterSessionOptions options) {
    auto b = std::make_unique<FakeBackend>(log);
    backend = b.get();
    session = std::make_unique<CounterSession>(std::move(b), std::vector<std::string>{"sm__cycles_elapsed.avg"},
                                               std::vector<std::string>{"cycle"}, options);
  }
  Log log;
  FakeBackend* backend = nullptr;
  std::unique_ptr<CounterSession> session;
};

CounterSessionOptions one_pass_whole_range() {
  CounterSessionOptions o;
  o.pass_count = 1;
  o.whole_range_metrics = true;
  return o;
}

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
  EXPECT_FALSE(f.session->standing_open());
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

TEST(CounterSession, the_first_push_opens_the_standing_pass_and_every_range_gets_its_own_counter_range) {
  Fixture f(one_pass_whole_range());
  EXPECT_EQ(f.session->configured_mode(), CounterMode::kWholeRange);
  ASSERT_EQ(f.session->push_standing_range("step").value(), 0u);
  EXPECT_EQ(f.log, (Log{"set_mode 2", "resize 256", "begin_range", "start_pass step", "push_range step#0"}));
  EXPECT_TRUE(f.session->standing_open());
  f.log.clear();
  ASSERT_EQ(f.session->push_standing_range("step").value(), 1u);
  EXPECT_EQ(f.log, (Log{"push_range step#1"}));
}

TEST(CounterSession, the_standing_pass_opens_once_before_any_push) {
  Fixture f(one_pass_whole_range());
  ASSERT_TRUE(f.session->open_standing_pass("step").ok());
  EXPECT_EQ(f.log, (Log{"set_mode 2", "resize 256", "begin_range", "start_pass step"}));
  EXPECT_TRUE(f.session->standing_open());
  f.log.clear();
  // Open already: no second start, and the push is the first counter range.
  ASSERT_TRUE(f.session->open_standing_pass("step").ok());
  ASSERT_EQ(f.session->push_standing_range("step").value(), 0u);
  EXPECT_EQ(f.log, (Log{"push_range step#0"}));
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

TEST(CounterSession, a_failed_opening_leaves_the_standing_pass_closed) {
  Fixture f(one_pass_whole_range());
  f.backend->fail_at = "set_mode";
  EXPECT_FALSE(f.session->push_standing_range("step").ok());
  EXPECT_FALSE(f.session->standing_open());
}

TEST(CounterSession, the_standing_pass_is_full_at_its_image_size) {
  Fixture f(one_pass_whole_range());
  f.backend->most = 3;  // an image of 3 ranges
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(f.session->push_standing_range("r").ok());
  EXPECT_FALSE(f.session->standing_full());
  ASSERT_TRUE(f.session->push_standing_range("r").ok());
  EXPECT_TRUE(f.session->standing_full());

  Fixture g(one_pass_whole_range());  // 256 ranges by default
  for (int i = 0; i < 255; ++i) ASSERT_TRUE(g.session->push_standing_range("r").ok());
  EXPECT_FALSE(g.session->standing_full());
  ASSERT_TRUE(g.session->push_standing_range("r").ok());
  EXPECT_TRUE(g.session->standing_full());
}

TEST(CounterSession, a_flush_writes_each_pending_records_values) {
  Fixture f(one_pass_whole_range());
  std::vector<report::RangeRecord> records(3);
  records[0].name = "declined earlier";
  ASSERT_TRUE(f.session->push_standing_range("a").ok());
  f.session->add_standing_pending(1, 0);
  ASSERT_TRUE(f.session->push_standing_range("b").ok());
  f.session->add_standing_pending(2, 1);
  EXPECT_EQ(f.session->standing_pending(), 2u);
  f.backend->values = {{10}, {20}};
  f.log.clear();
  f.session->flush_standing_pass("at exit", records, RangeReporter(/*quiet=*/true));
  EXPECT_EQ(f.log, (Log{"end_pass", "decode", "evaluate", "set_mode 1"}));
  EXPECT_FALSE(f.session->standing_open());
  EXPECT_EQ(f.session->standing_pending(), 0u);
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
  f.session->flush_standing_pass("again", records, RangeReporter(true));
  EXPECT_TRUE(f.log.empty());
  EXPECT_EQ(f.session->push_standing_range("c").value(), 0u);
}

TEST(CounterSession, an_abandoned_standing_pass_declines_its_records_without_a_cupti_call) {
  Fixture f(one_pass_whole_range());
  std::vector<report::RangeRecord> records(2);
  ASSERT_TRUE(f.session->push_standing_range("a").ok());
  f.session->add_standing_pending(1, 0);
  f.log.clear();
  f.session->abandon_standing_pass(DeclineReason::kStreamCaptureActive, "a capture was open at exit", records,
                                   RangeReporter(/*quiet=*/true));
  EXPECT_TRUE(f.log.empty());
  EXPECT_FALSE(f.session->standing_open());
  EXPECT_EQ(f.session->standing_pending(), 0u);
  EXPECT_FALSE(records[0].declined);
  EXPECT_TRUE(records[1].declined);
  EXPECT_EQ(records[1].decline_reason, "stream_capture_active");
  // With none open it does nothing.
  f.session->abandon_standing_pass(DeclineReason::kStreamCaptureActive, "again", records, RangeReporter(true));
  EXPECT_TRUE(f.log.empty());
}

TEST(CounterSession, a_flush_declines_the_records_cupti_gave_no_values_for) {
  Fixture f(one_pass_whole_range());
  std::vector<report::RangeRecord> records(2);
  ASSERT_TRUE(f.session->push_standing_range("a").ok());
  f.session->add_standing_pending(0, 0);
  ASSERT_TRUE(f.session->push_standing_range("b").ok());
  f.session->add_standing_pending(1, 1);
  f.backend->values = {{10}};  // one counter range for two pushed
  f.session->flush_standing_pass("full", records, RangeReporter(true));
  EXPECT_FALSE(records[0].declined);
  EXPECT_TRUE(records[1].declined);
  EXPECT_EQ(records[1].decline_reason, "counter_ranges_mismatch");
  EXPECT_EQ(records[1].decline_detail, decline_report_detail(DeclineReason::kCounterRangesMismatch,
                                                             "CUPTI returned 1 counter ranges for 2 pushed"));
}

TEST(CounterSession, a_failed_flush_declines_every_pending_record_with_the_error) {
  Fixture f(one_pass_whole_range());
  std::vector<report::RangeRecord> records(1);
  ASSERT_TRUE(f.session->push_standing_range("a").ok());
  f.session->add_standing_pending(0, 0);
  f.backend->fail_at = "end_pass";
  f.log.clear();
  f.session->flush_standing_pass("full", records, RangeReporter(true));
  EXPECT_EQ(f.log, (Log{"end_pass", "set_mode 1"}));  // no decode; the mode is set back
  EXPECT_EQ(records[0].decline_reason, "counters_unavailable");
  EXPECT_EQ(records[0].decline_detail,
            decline_report_detail(DeclineReason::kCountersUnavailable, "cuptiRangeProfilerStop failed"));
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
  Fixture f(one_pass_whole_range());
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
