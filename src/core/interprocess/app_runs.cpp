// The plan of application range replay runs (see app_runs.h).
#include "core/interprocess/app_runs.h"

#include <string>

namespace rangereplay {

std::optional<std::uint32_t> AppRunPlan::pass_of_run(std::uint32_t run) const {
  if (first_app_range_run == 0 || run < first_app_range_run || run > total_runs) return std::nullopt;
  return run - first_app_range_run;
}

Status check_app_run_modes(ReplayMode mode, Fallback fallback) {
  if (mode == ReplayMode::kAppRange && fallback == Fallback::kAppRange) {
    return invalid_argument(
        "--fallback app-range applies to --replay-mode range (with --replay-mode app-range no range is replayed, so "
        "none falls back); drop --fallback");
  }
  return ok_status();
}

StatusOr<AppRunPlan> plan_app_runs(ReplayMode mode, Fallback fallback, std::uint32_t pass_count,
                                   std::uint32_t max_app_runs) {
  if (pass_count == 0) return invalid_argument("the metric list needs no counter pass; ask for at least one metric");
  RR_RETURN_IF_ERROR(check_app_run_modes(mode, fallback));
  AppRunPlan plan;
  plan.pass_count = pass_count;
  if (mode == ReplayMode::kAppRange) {
    plan.total_runs = pass_count;
    plan.first_app_range_run = 1;
  } else if (fallback == Fallback::kAppRange) {
    plan.total_runs = pass_count + 1;
    plan.first_app_range_run = 2;
  } else {
    return plan;
  }
  if (max_app_runs != 0 && plan.total_runs > max_app_runs) {
    const std::string runs = std::to_string(plan.total_runs);
    return out_of_range("the metrics need " + std::to_string(pass_count) + (pass_count == 1 ? " pass" : " passes") +
                        ", so app-range needs " + runs + " application runs, above --max-app-runs " +
                        std::to_string(max_app_runs) + "; raise --max-app-runs to " + runs +
                        ", or ask for fewer metrics (--metrics, a smaller --set)");
  }
  return plan;
}

bool fallback_can_collect(DeclineReason reason) {
  switch (reason) {
    case DeclineReason::kAllocationInRange:
    case DeclineReason::kFreeInRange:
    case DeclineReason::kModuleLoadInRange:
    case DeclineReason::kModuleUnloadInRange:
    case DeclineReason::kUnsupportedApi:
    case DeclineReason::kHostFunctionInRange:
    case DeclineReason::kTooManyOperations:
    case DeclineReason::kHostDataTooLarge:
    case DeclineReason::kSnapshotDoesNotFit:
    case DeclineReason::kReplayFailed:
    case DeclineReason::kGraphDestroyedInRange:
    case DeclineReason::kModuleGlobalsInRange:
    case DeclineReason::kWriteSetLearned:
    case DeclineReason::kWriteSetExceeded:
    case DeclineReason::kCounterRangesMismatch: return true;
    case DeclineReason::kStreamCaptureActive:
    case DeclineReason::kCountersUnavailable:
    case DeclineReason::kCountersNotPermitted:
    case DeclineReason::kNoKernelInRange:
    case DeclineReason::kMultipleContexts:
    case DeclineReason::kMultipleDevices:
    case DeclineReason::kUnknownMetric:
    case DeclineReason::kOverlappingRange:
    case DeclineReason::kRangeNotClosed:
    case DeclineReason::kCollectiveInRange:
    case DeclineReason::kNondeterministicApplication:
    case DeclineReason::kAppRangeIncomplete:
    case DeclineReason::kNoContext:
    case DeclineReason::kPeerDeclined:
    case DeclineReason::kRendezvousFailed:
    case DeclineReason::kProcessEnded: return false;
  }
  return false;
}

}  // namespace rangereplay
