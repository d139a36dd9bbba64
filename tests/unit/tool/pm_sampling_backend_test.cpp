// PmSamplingCounterBackend over a fake PmSampler: a range is one pass whose
// values are its samples' sums; its pass bookkeeping in application range
// replay's collector and the counter session's warm-up.
#include "tool/logic/pm_sampling_backend.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tool/logic/app_range_collector.h"
#include "tool/logic/counter_session.h"

namespace rangereplay::tool {
namespace {

using Log = std::vector<std::string>;

// Writes each call into a log; decode() gives `samples`, `fail_at` names the
// call that fails (start, stop or decode).
class FakeSampler final : public PmSampler {
 public:
  explicit FakeSampler(Log& log) : log_(log) {}
  Status start() override {
    log_.push_back("start");
    return fail_at == "start" ? internal_error("cuptiPmSamplingStart failed") : ok_status();
  }
  Status stop() override {
    log_.push_back("stop");
    return fail_at == "stop" ? internal_error("cuptiPmSamplingStop failed") : ok_status();
  }
  StatusOr<std::vector<CounterSample>> decode() override {
    log_.push_back("decode");
    if (fail_at == "decode") return resource_exhausted("the hardware buffer overflowed");
    return samples;
  }
  std::vector<CounterSample> samples;
  std::string fail_at;

 private:
  Log& log_;
};

// A backend of two metrics over a FakeSampler.
struct Bench {
  Bench() {
    auto s = std::make_unique<FakeSampler>(log);
    sampler = s.get();
    backend = std::make_unique<PmSamplingCounterBackend>(std::move(s), 2);
  }
  // begin_application_pass(pass 0), start, end, decode.
  Status one_pass() {
    RR_RETURN_IF_ERROR(backend->begin_application_pass({}, 0, 1));
    RR_RETURN_IF_ERROR(backend->start_pass("step"));
    RR_ASSIGN_OR_RETURN(const bool all, backend->end_pass());
    if (!all) return internal_error("end_pass said a pass is left");
    return backend->decode().status();
  }
  Log log;
  FakeSampler* sampler = nullptr;
  std::unique_ptr<PmSamplingCounterBackend> backend;
};

TEST(PmSamplingCounterBackend, evaluate_gives_one_row_of_the_samples_sums) {
  Bench b;
  b.sampler->samples = {{100, 200, {10, 1.5}}, {200, 300, {20, 2.5}}, {300, 400, {30, 0}}};
  ASSERT_TRUE(b.one_pass().ok());
  EXPECT_EQ(b.log, (Log{"start", "stop", "decode"}));
  StatusOr<std::vector<std::vector<double>>> rows = b.backend->evaluate();
  ASSERT_TRUE(rows.ok()) << rows.status().to_string();
  EXPECT_EQ(*rows, (std::vector<std::vector<double>>{{60, 4}}));
  const std::vector<CounterSample> samples = b.backend->samples();
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[1].start_ns, 200u);
  EXPECT_EQ(samples[1].end_ns, 300u);
  EXPECT_EQ(samples[1].values, (std::vector<double>{20, 2.5}));
}

TEST(PmSamplingCounterBackend, a_new_pass_forgets_the_last_samples) {
  Bench b;
  b.sampler->samples = {{0, 1, {1, 1}}};
  ASSERT_TRUE(b.one_pass().ok());
  ASSERT_TRUE(b.backend->begin_application_pass({}, 0, 1).ok());
  EXPECT_TRUE(b.backend->samples().empty());
  EXPECT_EQ(b.backend->next_pass(), 0u);
  // Not decoded yet: nothing to evaluate.
  EXPECT_EQ(b.backend->evaluate().status().code(), StatusCode::kFailedPrecondition);
}

TEST(PmSamplingCounterBackend, one_pass_and_nothing_carried) {
  Bench b;
  b.sampler->samples = {{0, 1, {1, 1}}};
  EXPECT_EQ(b.backend->next_pass(), 0u);
  ASSERT_TRUE(b.backend->begin_application_pass({}, 0, 1).ok());
  ASSERT_TRUE(b.backend->start_pass("step").ok());
  EXPECT_TRUE(b.backend->in_pass());
  EXPECT_EQ(b.backend->next_pass(), 0u);
  StatusOr<bool> all = b.backend->end_pass();
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(*all);
  EXPECT_FALSE(b.backend->in_pass());
  EXPECT_EQ(b.backend->next_pass(), 1u);
  EXPECT_EQ(b.backend->next_nesting_level(), 1u);
  StatusOr<std::size_t> dropped = b.backend->decode();
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 0u);
  EXPECT_TRUE(b.backend->counter_data().empty());
  EXPECT_EQ(b.backend->max_ranges(), 1u);
  EXPECT_EQ(b.backend->most_ranges(), 1u);
  EXPECT_EQ(b.backend->bytes_per_range(), 0u);
}

TEST(PmSamplingCounterBackend, later_passes_and_carried_data_are_refused) {
  Bench b;
  Status s = b.backend->begin_application_pass({}, 1, 1);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("one pass"), std::string::npos) << s.message();
  s = b.backend->begin_application_pass({1, 2, 3}, 0, 1);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("carries none"), std::string::npos) << s.message();
  EXPECT_TRUE(b.log.empty());
}

TEST(PmSamplingCounterBackend, calls_out_of_order_are_refused_without_a_cupti_call) {
  Bench b;
  EXPECT_EQ(b.backend->start_pass("step").code(), StatusCode::kFailedPrecondition);  // no pass begun
  EXPECT_EQ(b.backend->end_pass().status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(b.backend->decode().status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(b.backend->evaluate().status().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(b.backend->begin_range().ok());
  ASSERT_TRUE(b.backend->start_pass("step").ok());
  EXPECT_EQ(b.backend->start_pass("step").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(b.backend->begin_application_pass({}, 0, 1).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(b.backend->decode().status().code(), StatusCode::kFailedPrecondition);  // still sampling
  EXPECT_EQ(b.log, (Log{"start"}));
}

TEST(PmSamplingCounterBackend, modes_sizes_lead_ins_and_pushed_ranges_are_no_ops) {
  Bench b;
  EXPECT_TRUE(b.backend->set_mode(CounterMode::kPerKernel).ok());
  EXPECT_TRUE(b.backend->resize(4096).ok());
  EXPECT_TRUE(b.backend->set_lead_in(true).ok());
  EXPECT_FALSE(b.backend->pass_has_lead_in());
  EXPECT_EQ(b.backend->end_lead_in("step").code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(b.backend->push_range("k#0").ok());
  EXPECT_TRUE(b.backend->pop_range().ok());
  EXPECT_TRUE(b.log.empty());
}

TEST(PmSamplingCounterBackend, a_failed_stop_closes_the_pass_and_leaves_nothing_to_decode) {
  Bench b;
  b.sampler->fail_at = "stop";
  ASSERT_TRUE(b.backend->begin_range().ok());
  ASSERT_TRUE(b.backend->start_pass("step").ok());
  EXPECT_FALSE(b.backend->end_pass().ok());
  EXPECT_FALSE(b.backend->in_pass());
  EXPECT_EQ(b.backend->next_pass(), 0u);
  EXPECT_EQ(b.backend->decode().status().code(), StatusCode::kFailedPrecondition);
  // The next range begins afresh.
  b.sampler->fail_at.clear();
  EXPECT_TRUE(b.one_pass().ok());
}

TEST(PmSamplingCounterBackend, decode_failures_and_malformed_samples_are_errors) {
  Bench b;
  b.sampler->fail_at = "decode";
  Status s = b.one_pass();
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(b.backend->evaluate().status().code(), StatusCode::kFailedPrecondition);
  b.sampler->fail_at.clear();
  b.sampler->samples = {{0, 1, {1, 1}}, {1, 2, {1}}};  // the second lacks a metric
  s = b.one_pass();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("PM sample 1 holds 1 values for 2 metrics"), std::string::npos) << s.message();
}

TEST(PmSamplingCounterBackend, a_pass_without_a_completed_sample_has_no_values) {
  Bench b;
  ASSERT_TRUE(b.one_pass().ok());
  EXPECT_EQ(b.backend->evaluate().status().code(), StatusCode::kUnavailable);
}

// The pass as application range replay's one run takes it: begun at pass 0
// with no carried data, complete after the first run, the values the sums.
TEST(PmSamplingCounterBackend, application_range_replay_collects_a_range_in_one_run) {
  const std::string dir = ::testing::TempDir() + "rr_pm_sampling_collector";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Log log;
  auto sampler = std::make_unique<FakeSampler>(log);
  sampler->samples = {{5, 9, {3, 7}}, {9, 13, {4, 1}}};
  CounterSessionOptions options;
  options.pass_count = 1;
  options.whole_range_metrics = true;
  options.standing_pass = false;
  CounterSession session(std::make_unique<PmSamplingCounterBackend>(std::move(sampler), 2),
                         {"smsp__inst_executed.sum", "dram__bytes_read.sum"}, {"inst", "byte"}, options);
  const AppRangeRun run{0, dir, true, {}};
  AppRangeCollector collector(session, run);
  for (std::uint32_t range = 0; range < 2; ++range) {
    ASSERT_TRUE(collector.begin(range, "step").ok());
    StatusOr<AppRangeOutcome> out = collector.end();
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_TRUE(out->complete);
    EXPECT_EQ(out->pass, 0u);
    EXPECT_EQ(out->runs, 1u);
    EXPECT_EQ(out->values, (std::vector<double>{7, 8}));
    EXPECT_EQ(session.backend().samples().size(), 2u);
    ASSERT_EQ(out->samples.size(), 2u);
    EXPECT_EQ(out->samples[1].start_ns, 9u);
    EXPECT_EQ(out->samples[1].values, (std::vector<double>{4, 1}));
  }
  EXPECT_EQ(log, (Log{"start", "stop", "decode", "start", "stop", "decode"}));
  // One pass carries nothing: no state file and no claim of the run, so
  // another process of the job collects its own ranges too.
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  AppRangeCollector other_process(session, run);
  ASSERT_TRUE(other_process.begin(0, "step").ok());
  EXPECT_TRUE(other_process.end().ok());
  // A later pass of a one-pass list is out of step.
  const AppRangeRun second{1, dir, true, {}};
  AppRangeCollector later(session, second);
  const Status s = later.begin(0, "step");
  EXPECT_NE(s.message().find("collects pass 2 of range 0 'step', but the metric list needs one pass"),
            std::string::npos)
      << s.message();
  std::filesystem::remove_all(dir);
}

// The counter session's warm-up pass (where a caller runs it) goes through
// the same calls: one start, stop and decode.
TEST(PmSamplingCounterBackend, the_session_warm_up_runs_one_sampled_pass) {
  Log log;
  auto sampler = std::make_unique<FakeSampler>(log);
  CounterSessionOptions options;
  options.pass_count = 1;
  options.whole_range_metrics = true;
  options.standing_pass = false;
  CounterSession session(std::make_unique<PmSamplingCounterBackend>(std::move(sampler), 1), {"sm__cycles_active.sum"},
                         {"cycle"}, options);
  EXPECT_FALSE(session.standing_pass_eligible());
  const Status s = session.warm_up();
  EXPECT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(log, (Log{"start", "stop", "decode"}));
}

// The report's series: milliseconds from the first sample's start on the
// sample clock, the values kept.
TEST(PmSamplingCounterBackend, sample_series_counts_milliseconds_from_the_first_sample) {
  EXPECT_TRUE(sample_series({}).empty());
  const std::vector<report::MetricSample> series =
      sample_series({{2'000'000, 2'100'000, {3, 7}}, {2'100'000, 2'250'000, {4, 1}}});
  ASSERT_EQ(series.size(), 2u);
  EXPECT_DOUBLE_EQ(series[0].start_ms, 0.0);
  EXPECT_DOUBLE_EQ(series[0].end_ms, 0.1);
  EXPECT_DOUBLE_EQ(series[1].start_ms, 0.1);
  EXPECT_DOUBLE_EQ(series[1].end_ms, 0.25);
  EXPECT_EQ(series[1].values, (std::vector<double>{4, 1}));
}

// A long range's samples are merged in runs of ceil(n / max_points), each
// point spanning its run and holding its sums, so the totals stay.
TEST(PmSamplingCounterBackend, sample_series_merges_runs_of_samples_past_the_most_points) {
  std::vector<CounterSample> samples;
  for (std::uint64_t i = 0; i < 7; ++i)
    samples.push_back({1'000'000 + i * 100'000, 1'100'000 + i * 100'000, {static_cast<double>(i), 2}});
  const std::vector<report::MetricSample> series = sample_series(samples, 3);
  ASSERT_EQ(series.size(), 3u);  // runs of 3: samples 0-2, 3-5, 6
  EXPECT_DOUBLE_EQ(series[0].start_ms, 0.0);
  EXPECT_DOUBLE_EQ(series[0].end_ms, 0.3);
  EXPECT_EQ(series[0].values, (std::vector<double>{0 + 1 + 2, 6}));
  EXPECT_DOUBLE_EQ(series[1].start_ms, 0.3);
  EXPECT_DOUBLE_EQ(series[1].end_ms, 0.6);
  EXPECT_EQ(series[1].values, (std::vector<double>{3 + 4 + 5, 6}));
  EXPECT_DOUBLE_EQ(series[2].start_ms, 0.6);
  EXPECT_DOUBLE_EQ(series[2].end_ms, 0.7);
  EXPECT_EQ(series[2].values, (std::vector<double>{6, 2}));
  EXPECT_EQ(sample_series(samples, 7).size(), 7u);
  EXPECT_EQ(sample_series(samples, 0).size(), 1u) << "at least one point";
}

}  // namespace
}  // namespace rangereplay::tool
