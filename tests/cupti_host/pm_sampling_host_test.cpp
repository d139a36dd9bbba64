// PM sampling's host side for chip GH100 (H100/H200), without a GPU or
// driver: which metrics of a list CUPTI's host API schedules for
// CUPTI_PROFILER_TYPE_PM_SAMPLING in one pass (select_pm_sampling_metrics),
// and the session's image sizing and settle.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cupti/pm_sampling_session.h"

namespace rangereplay::cupti {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

// The triage list's counters (contract: summable .sum counts).
const std::vector<std::string> kTriage = {"smsp__inst_executed.sum", "sm__cycles_active.sum", "dram__bytes_read.sum",
                                          "dram__bytes_write.sum", "lts__t_sectors.sum"};

TEST(PmSamplingSelection, takes_the_triage_counters_in_one_pass_on_gh100) {
  StatusOr<PmSamplingSelection> s = select_pm_sampling_metrics("GH100", {}, kTriage);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  std::printf("PM sampling on GH100 takes: %s; refuses: %s\n", joined(s->metrics).c_str(), joined(s->missing).c_str());
  EXPECT_FALSE(s->config_image.empty());
  // Instructions are the counter the probe compared exactly (c1, c4).
  ASSERT_FALSE(s->metrics.empty());
  EXPECT_EQ(s->metrics.front(), "smsp__inst_executed.sum");
  // Every metric asked for is taken or missing, once, in the order asked.
  EXPECT_EQ(s->metrics.size() + s->missing.size(), kTriage.size());
  std::size_t taken = 0, missing = 0;
  for (const auto& m : kTriage) {
    if (taken < s->metrics.size() && s->metrics[taken] == m) {
      ++taken;
    } else {
      ASSERT_LT(missing, s->missing.size());
      EXPECT_EQ(s->missing[missing++], m);
    }
  }
}

TEST(PmSamplingSelection, a_metric_pm_sampling_refuses_is_missing_not_an_error) {
  StatusOr<PmSamplingSelection> s =
      select_pm_sampling_metrics("GH100", {}, {"smsp__inst_executed.sum", "no_such__metric.sum"});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->metrics, std::vector<std::string>{"smsp__inst_executed.sum"});
  EXPECT_EQ(s->missing, std::vector<std::string>{"no_such__metric.sum"});
}

TEST(PmSamplingSelection, none_taken_is_an_error_naming_the_metrics) {
  StatusOr<PmSamplingSelection> s = select_pm_sampling_metrics("GH100", {}, {"no_such__metric.sum"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().decline_reason(), DeclineReason::kUnknownMetric);
  EXPECT_NE(s.status().message().find("no_such__metric.sum"), std::string::npos) << s.status().message();
  EXPECT_FALSE(select_pm_sampling_metrics("GH100", {}, {}).ok());
}

TEST(PmSamplingSelection, an_unknown_chip_is_an_error) {
  EXPECT_FALSE(select_pm_sampling_metrics("NOCHIP", {}, kTriage).ok());
}

TEST(PmSamplingSession, images_hold_twice_the_windows_samples_within_bounds) {
  // 1 ms at 100 us: 11 samples (one more for a partial one), twice that.
  EXPECT_EQ(PmSamplingSession::image_samples(1000000, 100000, true, 1000), 22u);
  // A short window: at least kMinImageSamples.
  EXPECT_EQ(PmSamplingSession::image_samples(0, 100000, true, 1000), PmSamplingSession::kMinImageSamples);
  // A long one: at most `most`, never below the minimum.
  EXPECT_EQ(PmSamplingSession::image_samples(10000000000ull, 100000, true, 1000), 1000u);
  EXPECT_EQ(PmSamplingSession::image_samples(10000000000ull, 100000, true, 3), PmSamplingSession::kMinImageSamples);
  // Sys-clock cycles are taken at up to 2 GHz: twice the samples.
  EXPECT_EQ(PmSamplingSession::image_samples(1000000, 100000, false, 1000), 42u);
}

TEST(PmSamplingSession, settles_four_intervals_and_half_a_millisecond) {
  EXPECT_EQ(PmSamplingSession::settle_us(100000), 900u);
  EXPECT_EQ(PmSamplingSession::settle_us(20000), 580u);
}

// The start waits for the window's first sample (the counts from before the
// start) to close: two intervals and 100 us.
TEST(PmSamplingSession, start_settles_two_intervals_and_a_tenth_of_a_millisecond) {
  EXPECT_EQ(PmSamplingSession::start_settle_us(100000), 300u);
  EXPECT_EQ(PmSamplingSession::start_settle_us(20000), 140u);
}

}  // namespace
}  // namespace rangereplay::cupti
