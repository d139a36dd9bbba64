// Two reports compared metric by metric (see report_diff.h).
#include "report/report_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "report/format_helpers.h"
#include "report/report_csv.h"
#include "report/report_pairing.h"

namespace rangereplay::report {

namespace {

std::optional<double> change_pct(double base, double next) {
  if (base == next) return 0.0;
  if (base == 0 || !std::isfinite(base) || !std::isfinite(next)) return std::nullopt;
  return (next - base) / std::fabs(base) * 100.0;
}

// Rows for two metric lists of one paired kernel (or range); names only one
// side has go into `only_base` / `only_next`.
void diff_metrics(const std::string& range, const std::string& kernel, const std::vector<MetricValue>& base,
                  const std::vector<MetricValue>& next, ReportDiff& out, std::set<std::string>& only_base,
                  std::set<std::string>& only_next) {
  const std::map<std::string, const MetricValue*> in_next = metrics_by_name(next);
  std::set<std::string> in_base;
  for (const MetricValue& m : base) {
    in_base.insert(m.name);
    auto it = in_next.find(m.name);
    if (it == in_next.end()) {
      only_base.insert(m.name);
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
        {range, kernel, m.name, m.unit, m.value, it->second->value, change_pct(m.value, it->second->value)});
  }
  for (const MetricValue& m : next) {
    if (!in_base.contains(m.name)) only_next.insert(m.name);
  }
}

}  // namespace

ReportDiff diff_reports(const Report& base, const Report& next) {
  ReportDiff out;
  if (base.device_name != next.device_name || base.chip_name != next.chip_name)
    out.unmatched.push_back("the reports are of different GPUs: " + gpu_of(base) + " in the baseline, " + gpu_of(next) +
                            " in the new report");
  const auto base_ranges = numbered(base.ranges, range_name);
  const auto next_ranges = numbered(next.ranges, range_name);
  std::map<std::string, const RangeRecord*> next_by_key(next_ranges.begin(), next_ranges.end());
  std::set<std::string> base_keys;
  std::set<std::string> only_base_metrics, only_next_metrics;
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
    diff_metrics(key, "", b->range_metrics, n.range_metrics, out, only_base_metrics, only_next_metrics);
    const auto base_kernels = numbered(b->kernels, kernel_key);
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
      diff_metrics(key, kkey, bk->metrics, kit->second->metrics, out, only_base_metrics, only_next_metrics);
    }
    for (const auto& [kkey, nk] : next_kernels) {
      if (!base_kernel_keys.contains(kkey))
        out.unmatched.push_back("kernel '" + kkey + "' of range '" + key + "' only in the new report");
    }
  }
  for (const auto& [key, n] : next_ranges) {
    if (base_keys.contains(key)) continue;
    out.unmatched.push_back("range '" + key + "' only in the new report");
    if (n->declined)
      out.declined.push_back("range '" + key + "' declined in the new report (" + n->decline_reason + ")");
  }
  for (const std::string& m : only_base_metrics) out.unmatched.push_back("metric '" + m + "' only in the baseline");
  for (const std::string& m : only_next_metrics) out.unmatched.push_back("metric '" + m + "' only in the new report");
  return out;
}

std::string render_diff_table(const ReportDiff& diff) {
  std::string out;
  std::string range, kernel;
  for (const DiffRow& row : diff.rows) {
    if (row.range != range || row.kernel != kernel) {
      range = row.range;
      kernel = row.kernel;
      out += fmt::format("\n{}{}\n", range, kernel.empty() ? " (whole range)" : ": " + kernel);
      out += fmt::format("  {:<58} {:<12} {:>18} {:>18} {:>9}\n", "Metric Name", "Metric Unit", "Baseline", "New",
                         "Change");
    }
    const std::string change = row.change_pct ? fmt::format("{:+.2f}%", *row.change_pct) : std::string("n/a");
    out += fmt::format("  {:<58} {:<12} {:>18} {:>18} {:>9}\n", row.metric, row.unit, format_metric_value(row.base),
                       format_metric_value(row.next), change);
  }
  if (!diff.unmatched.empty()) {
    out += "\nunmatched:\n";
    for (const std::string& line : diff.unmatched) out += "  " + line + "\n";
  }
  if (!diff.declined.empty()) {
    out += "\ndeclined:\n";
    for (const std::string& line : diff.declined) out += "  " + line + "\n";
  }
  out += fmt::format("\n{} values compared, {} unmatched, {} declined\n", diff.rows.size(), diff.unmatched.size(),
                     diff.declined.size());
  return out;
}

std::string render_diff_csv(const ReportDiff& diff) {
  std::string out = "range,kernel,metric,unit,base,new,change_pct\n";
  for (const DiffRow& row : diff.rows) {
    out += fmt::format("{},{},{},{},{},{},{}\n", csv_field(row.range), csv_field(row.kernel), csv_field(row.metric),
                       csv_field(row.unit), format_exact_number(row.base), format_exact_number(row.next),
                       row.change_pct ? format_exact_number(*row.change_pct) : std::string());
  }
  return out;
}

std::string render_diff_json(const ReportDiff& diff) {
  nlohmann::json rows = nlohmann::json::array();
  for (const DiffRow& row : diff.rows) {
    nlohmann::json r = {{"range", row.range}, {"kernel", row.kernel}, {"metric", row.metric}, {"unit", row.unit}};
    // Non-finite values are written as strings, as the report writes them.
    r["base"] = json_number(row.base);
    r["new"] = json_number(row.next);
    r["change_pct"] = row.change_pct ? json_number(*row.change_pct) : nlohmann::json(nullptr);
    rows.push_back(std::move(r));
  }
  const nlohmann::json j = {{"rows", rows}, {"unmatched", diff.unmatched}, {"declined", diff.declined}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace rangereplay::report
