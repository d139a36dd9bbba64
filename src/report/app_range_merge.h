// Application range replay's reports merged into one: the first run's report,
// with the ranges application range replay measured given the values of the
// run that collected the last pass, after every run's kernel sequence was
// checked against the first's.
//
// Each application run writes a report of its own (one per process). The
// counter data image is carried from run to run, so the run that collects the
// last pass decodes every pass of a range; the earlier runs' reports serve to
// prove that each run executed the same work in the range:
//
//   AppRunPlan plan = ...;                       // core/interprocess/app_runs.h
//   std::vector<AppRunReport> later = {{2, r2}, {3, r3}};
//   Report merged = merge_app_runs(first, later, plan, "/tmp/app_runs.log");
//   // merged.ranges[i]: values from run 3, or declined nondeterministic_application
//
// No CUDA types; pure functions over plain values, thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/interprocess/app_runs.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// One application run's report; `run` numbered from 1 as AppRunPlan numbers runs.
struct AppRunReport {
  std::uint32_t run = 0;
  Report report;
};

/// Whether application range replay measures `record` under `plan`: every
/// range not declined with --replay-mode app-range (plan.first_app_range_run
/// 1); with --fallback app-range (first_app_range_run 2), the ranges range
/// replay declined with a reason fallback_can_collect allows. False when the
/// plan has no application range replay run.
bool measured_by_app_runs(const RangeRecord& record, const AppRunPlan& plan);

/// `first` (run 1's report) with the ranges application range replay
/// measures merged from `later` (runs 2..plan.total_runs, any order; a run
/// missing from it was not made, e.g. the user stopped the runs). For each
/// range measured_by_app_runs selects, paired by its matched-range index,
/// the later runs are read in run order:
///   - the first run that matched no range of that index, or one of another
///     name, or whose kernel sequence differs from the reference (the first
///     application range replay run's record that is not declined: run 1's
///     with --replay-mode app-range, else the earliest later run's, since a
///     declined range's record may list none or part of its kernels),
///     declines the range nondeterministic_application with that difference
///     in its detail, and no values are merged;
///   - else, when a run declined the range (its pass not collected), the
///     range takes the earliest such run's decline (its detail prefixed
///     "application run <k>: "), and no values are merged;
///   - else, when the run that collected the last pass (plan.total_runs) is
///     present and its record has values, the range takes that run's kernel
///     records, whole-range values and PM samples, is not declined, its passes are
///     plan.pass_count, and a note "app-range: ..." names the runs and, with
///     more than one run, `log_path` (where the later runs' output went;
///     an empty `log_path` is named nowhere, e.g. a log that is removed);
///   - else (the runs stopped before the last pass, or it decoded no values)
///     the range is declined app_range_incomplete saying which; a range
///     range replay declined (--fallback) keeps its own reason, with a note.
/// Every other range, and the report's other fields, are run 1's.
Report merge_app_runs(const Report& first, std::span<const AppRunReport> later, const AppRunPlan& plan,
                      const std::string& log_path);

/// For runs that could not be made at all (the first run failed, the cap,
/// several processes): every range of `report` that is not declined and has
/// no values is declined app_range_incomplete with `why` (a range
/// --replay-mode app-range's first run counted one pass of).
void decline_unmeasured_app_ranges(Report& report, const std::string& why);

}  // namespace rangereplay::report
