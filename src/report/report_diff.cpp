// Two reports compared metric by metric (see report_diff.h).
#include "report/report_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/base/ascii.h"
#include "core/base/closest_names.h"
#include "report/format_helpers.h"
#include "report/report_csv.h"
#include "report/report_json.h"
#include "report/report_pairing.h"

namespace rangereplay::report {

namespace {

std::optional<double> change_pct(double base, double next) {
  if (base == next) return 0.0;
  if (base == 0 || !std::isfinite(base) || !std::isfinite(next)) return std::nullopt;
  return (next - base) / std::fabs(base) * 100.0;
}

// The metric names a report has values of, in any kernel or range.
std::set<std::string> metric_names(const Report& r) {
  std::set<std::string> names;
  for (const RangeRecord& range : r.ranges) {
    for (const MetricValue& m : range.range_metrics) names.insert(m.name);
    for (const KernelRecord& k : range.kernels) {
      for (const MetricValue& m : k.metrics) names.insert(m.name);
    }
  }
  return names;
}

// What a range's values cover: one set for the whole range (--range-metrics
// whole), one per kernel, or none (nothing measured).
enum class Coverage { kNone, kWholeRange, kPerKernel };

Coverage coverage_of(const RangeRecord& r) {
  if (!r.range_metrics.empty()) return Coverage::kWholeRange;
  for (const KernelRecord& k : r.kernels) {
    if (!k.metrics.empty()) return Coverage::kPerKernel;
  }
  return Coverage::kNone;
}

// A metric whose whole-range value is the sum of its kernels' values: a
// counter summed over units (".sum"), not a rate, peak or ratio of one.
bool additive(const std::string& metric) { return metric.ends_with(".sum"); }

// The range totals of a per-kernel range: for each additive metric that
// every kernel of the range has, the sum of its kernels' values; the other
// metric names go into `not_summed`.
std::vector<MetricValue> kernel_totals(const RangeRecord& r, std::set<std::string>& not_summed) {
  std::map<std::string, MetricValue> totals;
  std::map<std::string, std::size_t> kernels_with;
  for (const KernelRecord& k : r.kernels) {
    for (const MetricValue& m : k.metrics) {
      if (!additive(m.name)) {
        not_summed.insert(m.name);
        continue;
      }
      auto [it, inserted] = totals.try_emplace(m.name, MetricValue{m.name, m.unit, 0});
      it->second.value += m.value;
      ++kernels_with[m.name];
    }
  }
  std::vector<MetricValue> out;
  for (const auto& [name, total] : totals) {
    if (kernels_with[name] == r.kernels.size()) {
      out.push_back(total);
    } else {
      not_summed.insert(name);
    }
  }
  return out;
}

// What the pairing of two metric lists leaves out, gathered over the whole
// comparison.
struct Missing {
  std::set<std::string> only_base, only_next;  // names one report has nowhere
  std::set<std::string> not_summed;            // per-kernel names without a range total
};

// Rows for two metric lists of one paired kernel (or range) `where` ("kernel
// 'K' of range 'R'", "range 'R'"). A name one report has nowhere goes into
// `missing`; a name it has elsewhere but not here is listed for `where`.
void diff_metrics(const std::string& range, const std::string& kernel, const std::string& where,
                  const std::vector<MetricValue>& base, const std::vector<MetricValue>& next,
                  const std::set<std::string>& base_names, const std::set<std::string>& next_names, ReportDiff& out,
                  Missing& missing, DiffRow::Summed summed = DiffRow::Summed::kNeither) {
  const std::map<std::string, const MetricValue*> in_next = metrics_by_name(next);
  std::set<std::string> in_base;
  for (const MetricValue& m : base) {
    in_base.insert(m.name);
    auto it = in_next.find(m.name);
    if (it == in_next.end()) {
      if (next_names.contains(m.name)) {
        out.unmatched.push_back("metric '" + m.name + "' missing for " + where + " in the new report");
      } else {
        missing.only_base.insert(m.name);
      }
      continue;
    }
    if (it->second->unit != m.unit) {
      // Values in different units are not compared.
      const std::string line = "metric '" + m.name + "' is in " + m.unit + " in the baseline and in " +
                               it->second->unit + " in the new report: not compared";
      if (std::find(out.unmatched.begin(), out.unmatched.end(), line) == out.unmatched.end())
        out.unmatched.push_back(line);
      continue;
    }
    out.rows.push_back(
        {range, kernel, m.name, m.unit, m.value, it->second->value, change_pct(m.value, it->second->value), summed});
  }
  for (const MetricValue& m : next) {
    if (in_base.contains(m.name)) continue;
    if (base_names.contains(m.name)) {
      out.unmatched.push_back("metric '" + m.name + "' missing for " + where + " in the baseline");
    } else {
      missing.only_next.insert(m.name);
    }
  }
}

// The values of two paired ranges: whole-range values with whole-range
// values and kernels with kernels; a per-kernel range against a whole-range
// one compares range totals (kernel_totals). Kernels only one side has are
// listed either way.
void diff_range(const std::string& key, const RangeRecord& b, const RangeRecord& n,
                const std::set<std::string>& base_names, const std::set<std::string>& next_names, ReportDiff& out,
                Missing& missing) {
  const Coverage bc = coverage_of(b), nc = coverage_of(n);
  const bool mixed = (bc == Coverage::kPerKernel && nc == Coverage::kWholeRange) ||
                     (bc == Coverage::kWholeRange && nc == Coverage::kPerKernel);
  const std::string where = "range '" + key + "'";
  if (mixed) {
    const bool base_summed = bc == Coverage::kPerKernel;
    const RangeRecord& whole_range = base_summed ? n : b;
    const std::set<std::string>& whole_names = base_summed ? next_names : base_names;
    std::set<std::string> not_summed;
    const std::vector<MetricValue> totals = kernel_totals(base_summed ? b : n, not_summed);
    // A name the per-kernel side has but cannot total is not compared; one
    // the whole-range report lacks everywhere is only in the other report.
    for (const std::string& name : not_summed) {
      if (whole_names.contains(name)) {
        missing.not_summed.insert(name);
      } else {
        (base_summed ? missing.only_base : missing.only_next).insert(name);
      }
    }
    std::vector<MetricValue> whole;
    for (const MetricValue& m : whole_range.range_metrics) {
      if (!not_summed.contains(m.name)) whole.push_back(m);
    }
    const auto side = base_summed ? DiffRow::Summed::kBase : DiffRow::Summed::kNext;
    diff_metrics(key, "", where, base_summed ? totals : whole, base_summed ? whole : totals, base_names, next_names,
                 out, missing, side);
    if (out.comparison_note.empty()) {
      out.comparison_note =
          std::string("the baseline has ") +
          (base_summed ? "per-kernel values, the new report whole-range values"
                       : "whole-range values, the new report per-kernel values") +
          " (--range-metrics whole): compared are range totals, the " + (base_summed ? "baseline's" : "new report's") +
          " being the sum of its kernels' values (.sum metrics only); profile both with the same --range-metrics "
          "to compare every metric per kernel";
    }
  } else {
    diff_metrics(key, "", where, b.range_metrics, n.range_metrics, base_names, next_names, out, missing);
  }
  const auto base_kernels = numbered(b.kernels, kernel_key);
  const auto next_kernels = numbered(n.kernels, kernel_key);
  std::map<std::string, const KernelRecord*> next_kernel(next_kernels.begin(), next_kernels.end());
  std::set<std::string> base_kernel_keys;
  for (const auto& [kkey, bk] : base_kernels) {
    base_kernel_keys.insert(kkey);
    auto kit = next_kernel.find(kkey);
    if (kit == next_kernel.end()) {
      out.unmatched.push_back("kernel '" + kkey + "' of range '" + key + "' only in the baseline");
      continue;
    }
    if (!mixed) {
      diff_metrics(key, kkey, "kernel '" + kkey + "' of range '" + key + "'", bk->metrics, kit->second->metrics,
                   base_names, next_names, out, missing);
    }
  }
  for (const auto& [kkey, nk] : next_kernels) {
    if (!base_kernel_keys.contains(kkey))
      out.unmatched.push_back("kernel '" + kkey + "' of range '" + key + "' only in the new report");
  }
}

}  // namespace

ReportDiff diff_reports(const Report& base, const Report& next) {
  ReportDiff out;
  if (base.device_name != next.device_name || base.chip_name != next.chip_name)
    out.unmatched.push_back("the reports are of different GPUs: " + gpu_of(base) + " in the baseline, " + gpu_of(next) +
                            " in the new report");
  const std::set<std::string> base_names = metric_names(base), next_names = metric_names(next);
  const auto base_ranges = numbered(base.ranges, range_name);
  const auto next_ranges = numbered(next.ranges, range_name);
  std::map<std::string, const RangeRecord*> next_by_key(next_ranges.begin(), next_ranges.end());
  std::set<std::string> base_keys;
  Missing missing;
  for (const auto& [key, b] : base_ranges) {
    base_keys.insert(key);
    if (b->declined) out.declined.push_back("range '" + key + "' declined in the baseline (" + b->decline_reason + ")");
    auto it = next_by_key.find(key);
    if (it == next_by_key.end()) {
      out.unmatched.push_back("range '" + key + "' only in the baseline");
      continue;
    }
    const RangeRecord& n = *it->second;
    if (n.declined) out.declined.push_back("range '" + key + "' declined in the new report (" + n.decline_reason + ")");
    if (b->declined || n.declined) continue;
    diff_range(key, *b, n, base_names, next_names, out, missing);
  }
  for (const auto& [key, n] : next_ranges) {
    if (base_keys.contains(key)) continue;
    out.unmatched.push_back("range '" + key + "' only in the new report");
    if (n->declined)
      out.declined.push_back("range '" + key + "' declined in the new report (" + n->decline_reason + ")");
  }
  for (const std::string& m : missing.only_base) out.unmatched.push_back("metric '" + m + "' only in the baseline");
  for (const std::string& m : missing.only_next) out.unmatched.push_back("metric '" + m + "' only in the new report");
  for (const std::string& m : missing.not_summed) {
    out.unmatched.push_back("metric '" + m +
                            "' not compared: it has no range total from per-kernel values (only .sum metrics that "
                            "every kernel of the range has are summed)");
  }
  out.compared = out.rows.size();
  return out;
}

namespace {

// The size of a row's change in percent; a change without a finite value
// (the baseline 0, the new value not) is larger than any.
double change_size(const DiffRow& row) {
  return row.change_pct ? std::fabs(*row.change_pct) : std::numeric_limits<double>::infinity();
}

// The table's group of a row: its range, kernel and whether a side is summed.
std::tuple<std::string, std::string, DiffRow::Summed> group_key(const DiffRow& row) {
  return {row.range, row.kernel, row.summed};
}

void sort_by_change(std::vector<DiffRow>& rows) {
  // Each group's largest change, and its place among the groups.
  std::map<std::tuple<std::string, std::string, DiffRow::Summed>, std::pair<double, std::size_t>> groups;
  for (const DiffRow& row : rows) {
    auto [it, inserted] = groups.try_emplace(group_key(row), change_size(row), groups.size());
    it->second.first = std::max(it->second.first, change_size(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow& a, const DiffRow& b) {
    const auto& ga = groups.at(group_key(a));
    const auto& gb = groups.at(group_key(b));
    if (ga.first != gb.first) return ga.first > gb.first;
    if (ga.second != gb.second) return ga.second < gb.second;
    return change_size(a) > change_size(b);
  });
}

}  // namespace

StatusOr<ReportDiff> diff_reports(const Report& base, const Report& next, const DiffSelection& selection) {
  if (selection.changed_above_pct &&
      (!std::isfinite(*selection.changed_above_pct) || *selection.changed_above_pct < 0)) {
    return invalid_argument(
        fmt::format("--changed-above {}: give a percentage of 0 or more, e.g. 10", *selection.changed_above_pct));
  }
  std::set<std::string> known = metric_names(base);
  known.merge(metric_names(next));
  const std::vector<std::string> candidates(known.begin(), known.end());
  for (const std::string& name : selection.metrics) {
    if (known.contains(name)) continue;
    std::string line = "--metrics '" + escape_controls(name) + "': neither report has this metric";
    const std::vector<std::string> near = closest_names(name, candidates, 3, plausible_typo_distance(name.size()));
    if (!near.empty()) line += fmt::format("; closest: {}", fmt::join(near, ", "));
    return invalid_argument(line +
                            "; give metric names as the reports name them (rangereplay report x.json "
                            "--page raw lists them)");
  }
  ReportDiff out = diff_reports(base, next);
  std::vector<std::string> kept_because;
  if (!selection.metrics.empty()) {
    const std::set<std::string> wanted(selection.metrics.begin(), selection.metrics.end());
    std::erase_if(out.rows, [&](const DiffRow& row) { return !wanted.contains(row.metric); });
    kept_because.push_back(count_of(wanted.size(), "metric") + " asked for");
  }
  if (selection.changed_above_pct) {
    const double limit = *selection.changed_above_pct;
    std::erase_if(out.rows, [&](const DiffRow& row) { return !(change_size(row) > limit); });
    kept_because.push_back(fmt::format("changed by more than {}%", format_metric_value(limit)));
  }
  if (!kept_because.empty()) out.selection_note = fmt::format("{}", fmt::join(kept_because, ", "));
  if (selection.sort_by_change) sort_by_change(out.rows);
  return out;
}

namespace {

// Beyond this change in percent the table writes the factor new / base.
constexpr double kFactorFromPct = 1000;

// The change column: "+12.34%", a factor "x1234.5" when the change is too
// large to read as a percentage, "n/a" without a finite change.
std::string format_change(const DiffRow& row) {
  if (!row.change_pct) return "n/a";
  if (std::fabs(*row.change_pct) <= kFactorFromPct) return fmt::format("{:+.2f}%", *row.change_pct);
  const double factor = row.next / row.base;
  return std::fabs(factor) < 1e6 ? fmt::format("x{:.1f}", factor) : fmt::format("x{:.2e}", factor);
}

// Kernel keys longer than this are shortened in the middle in the table (a
// PyTorch template name runs to 1,000 characters); the key's end, the launch
// and instance, stays.
constexpr std::size_t kTitleKernelWidth = 160;

std::string group_title(const DiffRow& row) {
  const std::string range = escape_controls(row.range);
  if (!row.kernel.empty()) return range + ": " + truncate_middle(escape_controls(row.kernel), kTitleKernelWidth);
  switch (row.summed) {
    case DiffRow::Summed::kBase: return range + " (whole range; baseline: the sum of its kernels)";
    case DiffRow::Summed::kNext: return range + " (whole range; new: the sum of its kernels)";
    case DiffRow::Summed::kNeither: break;
  }
  return range + " (whole range)";
}

}  // namespace

std::string render_diff_table(const ReportDiff& diff) {
  std::string out;
  std::string title;
  for (const DiffRow& row : diff.rows) {
    if (group_title(row) != title) {
      title = group_title(row);
      out += fmt::format("\n{}\n", title);
      out += fmt::format("  {:<58} {:<12} {:>18} {:>18} {:>9}\n", "Metric Name", "Metric Unit", "Baseline", "New",
                         "Change");
    }
    out += fmt::format("  {:<58} {:<12} {:>18} {:>18} {:>9}\n", escape_controls(row.metric), escape_controls(row.unit),
                       format_metric_value(row.base), format_metric_value(row.next), format_change(row));
  }
  if (!diff.unmatched.empty()) {
    out += "\nunmatched:\n";
    for (const std::string& line : diff.unmatched) out += "  " + escape_controls(line) + "\n";
  }
  if (!diff.declined.empty()) {
    out += "\ndeclined:\n";
    for (const std::string& line : diff.declined) out += "  " + escape_controls(line) + "\n";
  }
  if (!diff.comparison_note.empty()) out += "\nnote: " + escape_controls(diff.comparison_note) + "\n";
  std::string shown;
  if (!diff.selection_note.empty())
    shown = fmt::format(" ({} shown: {})", diff.rows.size(), escape_controls(diff.selection_note));
  out += fmt::format("\n{} values compared{}, {} unmatched, {} declined\n", std::max(diff.compared, diff.rows.size()),
                     shown, diff.unmatched.size(), diff.declined.size());
  return out;
}

std::string render_diff_csv(const ReportDiff& diff) {
  std::string out = "range,kernel,metric,unit,base,new,change_pct\n";
  for (const DiffRow& row : diff.rows) {
    out += fmt::format(
        "{},{},{},{},{},{},{}\n", csv_field(escape_controls(row.range)), csv_field(escape_controls(row.kernel)),
        csv_field(escape_controls(row.metric)), csv_field(escape_controls(row.unit)), format_exact_number(row.base),
        format_exact_number(row.next), row.change_pct ? format_exact_number(*row.change_pct) : std::string());
  }
  return out;
}

std::string render_diff_json(const ReportDiff& diff) {
  nlohmann::json rows = nlohmann::json::array();
  for (const DiffRow& row : diff.rows) {
    nlohmann::json r = {{"range", row.range}, {"kernel", row.kernel}, {"metric", row.metric}, {"unit", row.unit}};
    r["base"] = json_number(row.base);
    r["new"] = json_number(row.next);
    r["change_pct"] = row.change_pct ? json_number(*row.change_pct) : nlohmann::json(nullptr);
    if (row.summed != DiffRow::Summed::kNeither)
      r["summed_from_kernels"] = row.summed == DiffRow::Summed::kBase ? "base" : "new";
    rows.push_back(std::move(r));
  }
  nlohmann::json j = {{"rows", rows}, {"unmatched", diff.unmatched}, {"declined", diff.declined}};
  if (!diff.comparison_note.empty()) j["note"] = diff.comparison_note;
  // ASCII only, so a C1 control in a name is written \u escaped, like the C0
  // controls JSON always escapes; DEL, which JSON leaves as it is, too (it
  // can only be inside a string). The text is then safe on a terminal.
  std::string text = j.dump(2, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 1);
  for (char c : text) out += c == '\x7f' ? std::string("\\u007f") : std::string(1, c);
  return out + "\n";
}

}  // namespace rangereplay::report
