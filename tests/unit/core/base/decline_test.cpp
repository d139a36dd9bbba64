// Typed declines: a Status carries the DeclineReason set where the fact is
// known, through RR_RETURN_IF_ERROR and StatusOr, and decline_of() reads it
// (or the caller's default when the failure names none).
#include "core/base/decline.h"

#include <gtest/gtest.h>

namespace rangereplay {
namespace {

Status unknown_metric_step() {
  return invalid_argument("unknown metric 'x'").with_decline_reason(DeclineReason::kUnknownMetric);
}
StatusOr<int> through_status_or() {
  RR_RETURN_IF_ERROR(unknown_metric_step());
  return 1;
}
Status through_assign() {
  RR_ASSIGN_OR_RETURN(int v, through_status_or());
  (void)v;
  return ok_status();
}

TEST(Decline, reason_travels_with_the_status) {
  Status s = through_assign();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "unknown metric 'x'");
  EXPECT_EQ(s.decline_reason(), DeclineReason::kUnknownMetric);
  const Decline d = decline_of(s, DeclineReason::kCountersUnavailable);
  EXPECT_EQ(d.reason, DeclineReason::kUnknownMetric);
  EXPECT_EQ(d.detail, "unknown metric 'x'");
}

TEST(Decline, a_failure_naming_no_reason_takes_the_callers_default) {
  // The code alone decides nothing: an invalid argument without a reason is
  // the step's default, not unknown_metric.
  const Decline d = decline_of(invalid_argument("empty counter data image"), DeclineReason::kCountersUnavailable);
  EXPECT_EQ(d.reason, DeclineReason::kCountersUnavailable);
  EXPECT_EQ(d.detail, "empty counter data image");
  EXPECT_EQ(decline_of(permission_denied("p"), DeclineReason::kReplayFailed).reason, DeclineReason::kReplayFailed);
}

TEST(Decline, an_ok_status_carries_no_reason) {
  Status s = ok_status().with_decline_reason(DeclineReason::kUnknownMetric);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.decline_reason(), std::nullopt);
}

}  // namespace
}  // namespace rangereplay
