// Application range replay: which application run collects which counter pass.
//
// Range replay collects every pass of a range inside one run of the
// application. A range it declines (allocation_in_range, free_in_range, ...)
// can still be measured the way Nsight Compute's `--replay-mode app-range`
// measures it: by running the whole application again once per pass, and in
// each run collecting one pass of every matching range. This header holds the
// plan of those runs, as plain numbers, so the launcher's loop and its tests
// share one definition:
//
//   RR_ASSIGN_OR_RETURN(AppRunPlan plan, plan_app_runs(ReplayMode::kRange, Fallback::kAppRange,
//                                                      /*pass_count=*/40, /*max_app_runs=*/0));
//   // plan.total_runs == 41: run 1 replays ranges as usual, runs 2..41 collect passes 0..39
//   // of the ranges run 1 declined (plan.pass_of_run(2) == 0, plan.pass_of_run(41) == 39).
//
// Runs are numbered from 1, as the progress line ("run k of n") prints them;
// passes from 0, as CUPTI numbers them. No CUDA types; plain values,
// thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <optional>

#include "core/base/decline_reason.h"
#include "core/base/enum_names.h"
#include "core/base/status.h"

namespace rangereplay {

/// --replay-mode: kRange replays each range inside the application's one run
/// (snapshot, restore, re-submit); kAppRange re-runs the whole application
/// once per pass for every range, as Nsight Compute's app-range mode.
enum class ReplayMode { kRange, kAppRange };
inline constexpr EnumNames<ReplayMode, 2> kReplayModeNames{{
    {ReplayMode::kRange, "range"},
    {ReplayMode::kAppRange, "app-range"},
}};

/// --fallback: what happens to the ranges range replay declined. kNone
/// reports them declined; kAppRange re-runs the application once per pass
/// and collects them (those fallback_can_collect allows).
enum class Fallback { kNone, kAppRange };
inline constexpr EnumNames<Fallback, 2> kFallbackNames{{
    {Fallback::kNone, "none"},
    {Fallback::kAppRange, "app-range"},
}};

/// The application runs a profile needs. `total_runs` counts every run of
/// the application, the first included; `first_app_range_run` is the first
/// run that collects a pass by application range replay (1 with
/// --replay-mode app-range, 2 with --fallback app-range, 0 when no run
/// does). Run r, from first_app_range_run to total_runs, collects pass
/// r - first_app_range_run.
struct AppRunPlan {
  std::uint32_t total_runs = 1;
  std::uint32_t first_app_range_run = 0;
  std::uint32_t pass_count = 0;

  /// The counter pass run `run` (from 1) collects for the ranges application
  /// range replay measures; nullopt for a run that collects none (run 1 under
  /// --fallback, a run outside 1..total_runs).
  std::optional<std::uint32_t> pass_of_run(std::uint32_t run) const;
  /// Whether any run is an application range replay run.
  bool uses_app_runs() const { return first_app_range_run != 0; }
  friend bool operator==(const AppRunPlan&, const AppRunPlan&) = default;
};

/// ok unless `mode` and `fallback` cannot be combined: --replay-mode
/// app-range replays no range, so none falls back. Errors: invalid_argument
/// "--fallback app-range applies to --replay-mode range ...; drop --fallback".
Status check_app_run_modes(ReplayMode mode, Fallback fallback);

/// The runs `mode` and `fallback` need for a metric list of `pass_count`
/// passes (>= 1). With kAppRange the runs are pass_count; with kRange and
/// Fallback::kAppRange they are 1 + pass_count (the first run, then one per
/// pass for its declined ranges: a declined range collected nothing in the
/// first run); with kRange and Fallback::kNone one. `max_app_runs` caps
/// total_runs (0 = no cap). Errors: invalid_argument for a pass_count of 0,
/// or check_app_run_modes' error; and
/// out_of_range when total_runs exceeds the cap, one line naming both
/// numbers and the fix ("the metrics need 40 passes, so app-range needs 41
/// application runs, above --max-app-runs 20; raise --max-app-runs to 41, or
/// ask for fewer metrics").
StatusOr<AppRunPlan> plan_app_runs(ReplayMode mode, Fallback fallback, std::uint32_t pass_count,
                                   std::uint32_t max_app_runs);

/// Whether application range replay can collect a range range replay
/// declined with `reason`: true where the reason is a limit of the snapshot
/// or of the recorder (the range's own execution is measured, any API
/// allowed), false where the range's work cannot be counted at all (no
/// kernel, a stream capture, counters unavailable or not permitted, an
/// unknown metric, several contexts or devices, overlapping or unclosed
/// ranges, collectives whose peers run in other processes) or where the
/// reason is application range replay's own (nondeterministic_application).
/// docs/limitations.md states the same per reason.
bool fallback_can_collect(DeclineReason reason);

}  // namespace rangereplay
