// Application range replay's reports merged into one (see app_range_merge.h).
#include "report/app_range_merge.h"

#include <string>
#include <vector>

#include "core/decline_reason.h"
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
  for (RangeRecord& range : merged.ranges) {
    if (!measured_by_app_runs(range, plan)) continue;
    // The reference sequence: the first application range replay run's. Under
    // --fallback that is run 2 (or the first later run made): run 1 declined
    // the range, and a declined range's record may list none or part of its
    // kernels.
    const RangeRecord* reference = &range;
    std::uint32_t reference_run = 1;
    if (plan.first_app_range_run != 1) {
      reference = nullptr;
      for (const AppRunReport& r : later) {
        if (r.run < plan.first_app_range_run || r.run > plan.total_runs) continue;
        if (reference != nullptr && r.run >= reference_run) continue;
        const RangeRecord* found = find_range(r.report, range.index);
        if (found != nullptr && found->name == range.name) {
          reference = found;
          reference_run = r.run;
        }
      }
    }
    const std::string before = range.declined ? "; range replay declined it first (" + range.decline_reason + ")" : "";
    const std::string log = plan.total_runs > 1 ? "; the later runs' output is in " + log_path : "";
    // A run that declined the range (its counters failed, a capture began
    // in it) collected no pass of it: nothing is merged.
    const AppRunReport* declined_in = nullptr;
    for (const AppRunReport& r : later) {
      if (r.run < plan.first_app_range_run || r.run > plan.total_runs) continue;
      const RangeRecord* found = find_range(r.report, range.index);
      if (found != nullptr && found->declined && (declined_in == nullptr || r.run < declined_in->run)) declined_in = &r;
    }
    if (declined_in != nullptr) {
      const RangeRecord& in_run = *find_range(declined_in->report, range.index);
      range.declined = true;
      range.decline_reason = in_run.decline_reason;
      range.decline_detail = "application run " + std::to_string(declined_in->run) + ": " + in_run.decline_detail;
      for (KernelRecord& k : range.kernels) k.metrics.clear();
      range.range_metrics.clear();
      range.notes.push_back("app-range: not merged: application run " + std::to_string(declined_in->run) +
                            " declined it" + before + log);
      continue;
    }
    std::optional<std::string> difference;
    if (reference == nullptr) {
      // No run matched the range: the earliest run made says how it differs.
      const AppRunReport* earliest = nullptr;
      for (const AppRunReport& r : later) {
        if (r.run < plan.first_app_range_run || r.run > plan.total_runs) continue;
        if (earliest == nullptr || r.run < earliest->run) earliest = &r;
      }
      if (earliest == nullptr) {
        range.notes.push_back("app-range: the runs stopped before run " + std::to_string(plan.first_app_range_run) +
                              ", so no values were merged");
        continue;
      }
      difference = run_difference(range, range, 1, earliest->report, earliest->run);
    }
    for (const AppRunReport& r : later) {
      if (difference || reference == nullptr) break;
      if (r.run < plan.first_app_range_run || r.run > plan.total_runs || r.run == reference_run) continue;
      difference = run_difference(range, *reference, reference_run, r.report, r.run);
    }
    if (difference) {
      range.declined = true;
      range.decline_reason = std::string(decline_reason_name(DeclineReason::kNondeterministicApplication));
      range.decline_detail = decline_report_detail(DeclineReason::kNondeterministicApplication, *difference);
      for (KernelRecord& k : range.kernels) k.metrics.clear();
      range.range_metrics.clear();
      range.notes.push_back("app-range: not merged" + before + log);
      continue;
    }
    const RangeRecord* values = last_run != nullptr ? find_range(*last_run, range.index) : nullptr;
    if (values == nullptr) {
      range.notes.push_back("app-range: the runs stopped before run " + std::to_string(plan.total_runs) +
                            " (the last pass), so no values were merged" + before);
      continue;
    }
    range.declined = false;
    range.decline_reason.clear();
    range.decline_detail.clear();
    range.kernels = values->kernels;
    range.range_metrics = values->range_metrics;
    range.counter_ranges = values->counter_ranges;
    range.passes = plan.pass_count;
    range.notes.push_back("app-range: " + std::to_string(plan.pass_count) + " passes collected by application " +
                          runs_text(plan) + ", one pass each, of " + std::to_string(plan.total_runs) +
                          " application runs" + before + log);
  }
  return merged;
}

}  // namespace rangereplay::report
