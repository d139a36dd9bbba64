// Application range replay's reports merged into one (see app_range_merge.h).
#include "report/app_range_merge.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/base/decline_reason.h"
#include "report/report_pairing.h"

namespace rangereplay::report {
namespace {

const RangeRecord* find_range(const Report& report, std::uint32_t index) {
  for (const RangeRecord& r : report.ranges) {
    if (r.index == index) return &r;
  }
  return nullptr;
}

// What differs between run `run`'s record of `range` and the reference, or
// nullopt when the run executed the same work.
std::optional<std::string> run_difference(const RangeRecord& range, const RangeRecord& reference,
                                          std::uint32_t reference_run, const Report& report, std::uint32_t run) {
  const RangeRecord* other = find_range(report, range.index);
  const std::string which = "range " + std::to_string(range.index) + " '" + range.name + "'";
  if (other == nullptr) return "run " + std::to_string(run) + " matched no " + which;
  if (other->name != range.name) {
    return "range " + std::to_string(range.index) + " is '" + range.name + "' in run " + std::to_string(reference_run) +
           " and '" + other->name + "' in run " + std::to_string(run);
  }
  return kernel_sequence_difference(reference.kernels, "run " + std::to_string(reference_run), other->kernels,
                                    "run " + std::to_string(run));
}

std::string runs_text(const AppRunPlan& plan) {
  if (plan.first_app_range_run == plan.total_runs) return "run " + std::to_string(plan.total_runs);
  return "runs " + std::to_string(plan.first_app_range_run) + "-" + std::to_string(plan.total_runs);
}

// `range` declined with `reason` and `detail`, its values dropped: nothing of
// the runs is merged into it.
void decline_unmerged(RangeRecord& range, std::string reason, std::string detail) {
  range.declined = true;
  range.decline_reason = std::move(reason);
  range.decline_detail = std::move(detail);
  for (KernelRecord& k : range.kernels) k.metrics.clear();
  range.range_metrics.clear();
  if (range.samples) range.samples->clear();
}

// Declines `range` app_range_incomplete with `why`; under --fallback a range
// range replay declined keeps its own reason, with a note.
void decline_app_range_incomplete(RangeRecord& range, const std::string& why) {
  if (range.declined) {
    range.notes.push_back("app-range: no values merged: " + why);
    return;
  }
  decline_unmerged(range, std::string(decline_reason_name(DeclineReason::kAppRangeIncomplete)),
                   decline_report_detail(DeclineReason::kAppRangeIncomplete, why));
}

}  // namespace

bool measured_by_app_runs(const RangeRecord& record, const AppRunPlan& plan) {
  if (plan.first_app_range_run == 1) return !record.declined;
  if (plan.first_app_range_run != 2 || !record.declined) return false;
  const std::optional<DeclineReason> reason = decline_reason_from_name(record.decline_reason);
  return reason.has_value() && fallback_can_collect(*reason);
}

Report merge_app_runs(const Report& first, std::span<const AppRunReport> later, const AppRunPlan& plan,
                      const std::string& log_path) {
  Report merged = first;
  if (!plan.uses_app_runs()) return merged;
  const Report* last_run = plan.total_runs == 1 ? &first : nullptr;
  for (const AppRunReport& r : later) {
    if (r.run == plan.total_runs) last_run = &r.report;
  }
  // The later runs of the plan, in run order.
  std::vector<const AppRunReport*> runs;
  for (const AppRunReport& r : later) {
    if (r.run >= plan.first_app_range_run && r.run <= plan.total_runs && r.run > 1) runs.push_back(&r);
  }
  std::sort(runs.begin(), runs.end(), [](const AppRunReport* a, const AppRunReport* b) { return a->run < b->run; });
  for (RangeRecord& range : merged.ranges) {
    if (!measured_by_app_runs(range, plan)) continue;
    const std::string before = range.declined ? "; range replay declined it first (" + range.decline_reason + ")" : "";
    const std::string log =
        plan.total_runs > 1 && !log_path.empty() ? "; the later runs' output is in " + log_path : "";
    if (runs.empty() && plan.total_runs > 1) {
      decline_app_range_incomplete(
          range, "the runs stopped before run " + std::to_string(std::max<std::uint32_t>(plan.first_app_range_run, 2)));
      continue;
    }
    // The reference sequence: the first application range replay run's. Under
    // --fallback that is the earliest later run that counted the range (run
    // 1 declined it, and a declined record may list none or part of its
    // kernels); a run's declined record is never a reference.
    const RangeRecord* reference = plan.first_app_range_run == 1 ? &range : nullptr;
    std::uint32_t reference_run = 1;
    // The first difference in run order: a run that matched no range of
    // this index or name, or whose kernels differ from the reference; then,
    // when none differs, the earliest run that declined the range.
    std::optional<std::string> difference;
    const AppRunReport* declined_in = nullptr;
    for (const AppRunReport* r : runs) {
      const RangeRecord* found = find_range(r->report, range.index);
      if (found != nullptr && found->declined && found->name == range.name) {
        if (declined_in == nullptr) declined_in = r;
        continue;
      }
      if (reference == nullptr && found != nullptr && found->name == range.name) {
        reference = found;
        reference_run = r->run;
        continue;
      }
      difference = run_difference(range, reference != nullptr ? *reference : range, reference_run, r->report, r->run);
      if (difference) break;
    }
    if (difference) {
      decline_unmerged(range, std::string(decline_reason_name(DeclineReason::kNondeterministicApplication)),
                       decline_report_detail(DeclineReason::kNondeterministicApplication, *difference));
      range.notes.push_back("app-range: not merged" + before + log);
      continue;
    }
    if (declined_in != nullptr) {
      // That run collected no pass of the range (its counters failed, a
      // capture began in it): nothing is merged.
      const RangeRecord& in_run = *find_range(declined_in->report, range.index);
      decline_unmerged(range, in_run.decline_reason,
                       "application run " + std::to_string(declined_in->run) + ": " + in_run.decline_detail);
      range.notes.push_back("app-range: not merged: application run " + std::to_string(declined_in->run) +
                            " declined it" + before + log);
      continue;
    }
    const RangeRecord* values = last_run != nullptr ? find_range(*last_run, range.index) : nullptr;
    if (values == nullptr) {
      decline_app_range_incomplete(
          range, "the runs stopped before run " + std::to_string(plan.total_runs) + " (the last pass)" + log);
      continue;
    }
    if (values->range_metrics.empty()) {
      decline_app_range_incomplete(range, "run " + std::to_string(plan.total_runs) +
                                              " (the last pass) decoded no values: its counter data did not hold "
                                              "every pass" +
                                              log);
      continue;
    }
    range.declined = false;
    range.decline_reason.clear();
    range.decline_detail.clear();
    range.kernels = values->kernels;
    range.range_metrics = values->range_metrics;
    range.samples = values->samples;
    range.counter_ranges = values->counter_ranges;
    range.passes = plan.pass_count;
    range.notes.push_back("app-range: " + std::to_string(plan.pass_count) + " passes collected by application " +
                          runs_text(plan) + ", one pass each, of " + std::to_string(plan.total_runs) +
                          " application runs" + before + log);
  }
  return merged;
}

void decline_unmeasured_app_ranges(Report& report, const std::string& why) {
  for (RangeRecord& range : report.ranges) {
    if (!range.declined && range.range_metrics.empty()) decline_app_range_incomplete(range, why);
  }
}

}  // namespace rangereplay::report
