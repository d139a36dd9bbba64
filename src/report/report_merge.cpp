// The reports of a job's ranks merged (see report_merge.h).
#include "report/report_merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "core/config/profile_config.h"
#include "report/format_helpers.h"
#include "report/report_csv.h"
#include "report/report_json.h"
#include "report/report_pairing.h"

namespace rangereplay::report {

namespace {

using RankSet = std::set<std::uint32_t>;

// Where a metric was missing in some ranks: those ranks, and in how many of
// the kernels and ranges that carry it.
struct Missing {
  RankSet ranks;
  std::size_t places_missing = 0;  // kernels and ranges where some rank lacks it
  std::size_t places = 0;          // kernels and ranges where some rank has it
};

// "rank 2 (c.json)" for one rank; "ranks 1, 3" for more (the rank list at
// the top names their files).
std::string ranks_text(const ReportMerge& merge, const RankSet& ranks) {
  if (ranks.size() == 1) return fmt::format("rank {} ({})", *ranks.begin(), merge.ranks[*ranks.begin()].file);
  std::vector<std::string> numbers;
  for (std::uint32_t r : ranks) numbers.push_back(std::to_string(r));
  return fmt::format("ranks {}", fmt::join(numbers, ", "));
}

// "A in ranks 0, 1; B in rank 2": the ranks grouped by `value_of`, in the
// order each value first appears; "" when every rank has the same value.
template <class ValueOf>
std::string grouped_ranks(const ReportMerge& merge, ValueOf value_of) {
  std::vector<std::pair<std::string, RankSet>> groups;
  for (const MergedRank& rank : merge.ranks) {
    const std::string value = value_of(rank.rank);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == value; });
    if (it == groups.end()) it = groups.insert(groups.end(), {value, {}});
    it->second.insert(rank.rank);
  }
  if (groups.size() < 2) return "";
  std::string out;
  for (const auto& [value, ranks] : groups)
    out += (out.empty() ? "" : "; ") + value + " in " + ranks_text(merge, ranks);
  return out;
}

void add_once(std::vector<std::string>& lines, std::string line) {
  if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(std::move(line));
}

// One rank's metric list at one paired place (a kernel, or a range's whole-range values).
struct RankMetrics {
  std::uint32_t rank = 0;
  const std::vector<MetricValue>* metrics = nullptr;
};

std::optional<MetricStats> stats_of(const std::vector<std::optional<double>>& values) {
  MetricStats s;
  double sum = 0;
  for (std::uint32_t r = 0; r < values.size(); ++r) {
    if (!values[r] || std::isnan(*values[r])) continue;
    const double v = *values[r];
    if (s.count == 0 || v < s.min) s.min = v;
    if (s.count == 0 || v > s.max) {
      s.max = v;
      s.max_rank = r;
    }
    sum += v;
    ++s.count;
  }
  if (s.count == 0) return std::nullopt;
  s.mean = sum / s.count;
  return s;
}

// The metrics every rank of `present` has, merged; a name only some of them
// have goes into `missing` (name -> ranks lacking it, and where), units that differ into
// merge.unmatched.
std::vector<MergedMetric> merge_metrics(const std::vector<RankMetrics>& present, ReportMerge& merge,
                                        std::map<std::string, Missing>& missing) {
  std::vector<std::string> names;  // the first rank's order, then names only later ranks have
  std::set<std::string> named;
  std::vector<std::map<std::string, const MetricValue*>> by_name;
  for (const RankMetrics& p : present) {
    by_name.push_back(metrics_by_name(*p.metrics));
    for (const MetricValue& m : *p.metrics) {
      if (named.insert(m.name).second) names.push_back(m.name);
    }
  }
  std::vector<MergedMetric> out;
  for (const std::string& name : names) {
    MergedMetric merged;
    merged.name = name;
    merged.values.resize(merge.ranks.size());
    std::vector<std::string> units(merge.ranks.size());
    RankSet lacking;
    std::map<std::string, RankSet> ranks_by_unit;
    for (std::size_t i = 0; i < present.size(); ++i) {
      auto it = by_name[i].find(name);
      if (it == by_name[i].end()) {
        lacking.insert(present[i].rank);
        continue;
      }
      merged.values[present[i].rank] = it->second->value;
      units[present[i].rank] = it->second->unit;
      ranks_by_unit[it->second->unit].insert(present[i].rank);
    }
    Missing& where = missing[name];
    ++where.places;
    if (!lacking.empty()) {
      where.ranks.insert(lacking.begin(), lacking.end());
      ++where.places_missing;
      continue;
    }
    if (ranks_by_unit.size() == 1) {
      merged.unit = ranks_by_unit.begin()->first;
      merged.stats = stats_of(merged.values);
    } else {
      merged.units = std::move(units);
      std::string line = "metric '" + name + "' is in ";
      bool first = true;
      for (const auto& [unit, ranks] : ranks_by_unit) {
        line += (first ? "" : " and in ") + (unit.empty() ? "no unit" : unit) + " in " + ranks_text(merge, ranks);
        first = false;
      }
      add_once(merge.unmatched, line + ": not combined");
    }
    out.push_back(std::move(merged));
  }
  return out;
}

// One range paired across ranks: `records[r]` is rank r's record, or null
// (at least one is not).
MergedRange merge_range(const std::string& key, const std::vector<const RangeRecord*>& records, ReportMerge& merge,
                        std::map<std::string, Missing>& missing) {
  MergedRange out;
  out.key = key;
  // The key is "<name> #<instance>" (numbered()); some rank holds the range.
  const auto held = std::find_if(records.begin(), records.end(), [](const RangeRecord* r) { return r != nullptr; });
  out.name = (*held)->name;
  out.instance = static_cast<std::uint32_t>(std::stoul(key.substr(out.name.size() + 2)));
  out.ranks.resize(records.size());
  RankSet absent;
  std::map<std::string, RankSet> declined_by_reason;
  std::vector<RankMetrics> range_values;
  for (std::uint32_t r = 0; r < records.size(); ++r) {
    const RangeRecord* rec = records[r];
    RankRange& rank = out.ranks[r];
    if (rec == nullptr) {
      absent.insert(r);
      continue;
    }
    rank.index = rec->index;
    if (rec->declined) {
      rank.status = RankRangeStatus::kDeclined;
      rank.decline_reason = rec->decline_reason;
      rank.decline_detail = rec->decline_detail;
      declined_by_reason[rec->decline_reason].insert(r);
      continue;
    }
    rank.status = RankRangeStatus::kReplayed;
    range_values.push_back({r, &rec->range_metrics});
    if (!out.reference_rank) out.reference_rank = r;
  }
  if (!absent.empty()) merge.unmatched.push_back("range '" + key + "' missing in " + ranks_text(merge, absent));
  for (const auto& [reason, ranks] : declined_by_reason)
    merge.declined.push_back("range '" + key + "' declined in " + ranks_text(merge, ranks) + " (" + reason + ")");
  if (!out.reference_rank) return out;

  out.range_metrics = merge_metrics(range_values, merge, missing);
  const std::uint32_t ref = *out.reference_rank;
  const std::vector<KernelRecord>& ref_kernels = records[ref]->kernels;
  std::vector<std::uint32_t> paired;  // ranks whose kernels pair with the reference's
  for (const RankMetrics& p : range_values) {
    const std::optional<std::string> difference = kernel_sequence_difference(
        ref_kernels, "rank " + std::to_string(ref), records[p.rank]->kernels, "rank " + std::to_string(p.rank));
    if (!difference) {
      paired.push_back(p.rank);
      continue;
    }
    out.ranks[p.rank].kernel_mismatch = *difference;
    merge.mismatched.push_back(
        fmt::format("range '{}': {} ran other kernels than rank {}: {}; its kernel values are "
                    "not merged",
                    key, ranks_text(merge, {p.rank}), ref, *difference));
  }
  for (std::size_t i = 0; i < ref_kernels.size(); ++i) {
    const KernelRecord& k = ref_kernels[i];
    std::vector<RankMetrics> kernel_values;
    for (std::uint32_t r : paired) kernel_values.push_back({r, &records[r]->kernels[i].metrics});
    out.kernels.push_back(
        {static_cast<std::uint32_t>(i), k.name, k.grid, k.block, merge_metrics(kernel_values, merge, missing)});
  }
  return out;
}

// Report-level differences: GPUs, the granularity of the values.
void list_report_differences(const std::vector<RankReport>& inputs, ReportMerge& merge) {
  const std::string gpus = grouped_ranks(merge, [&](std::uint32_t r) { return gpu_of(inputs[r].report); });
  if (!gpus.empty()) merge.unmatched.push_back("the ranks are of different GPUs: " + gpus);
  const std::string granularity = grouped_ranks(merge, [&](std::uint32_t r) {
    return inputs[r].report.range_metrics == "whole" ? std::string("whole-range values (--range-metrics whole)")
                                                     : "per-kernel values (--range-metrics kernel)";
  });
  if (!granularity.empty()) merge.unmatched.push_back("the ranks measured differently: " + granularity);
}

}  // namespace

const char* rank_range_status_name(RankRangeStatus status) {
  switch (status) {
    case RankRangeStatus::kReplayed: return "replayed";
    case RankRangeStatus::kDeclined: return "declined";
    case RankRangeStatus::kAbsent: break;
  }
  return "absent";
}

ReportMerge merge_reports(const std::vector<RankReport>& inputs) {
  ReportMerge merge;
  for (std::uint32_t r = 0; r < inputs.size(); ++r) {
    const Report& rep = inputs[r].report;
    std::string recorded;
    for (const char* name : kRankVariables) {
      if (!rep.environment) break;
      if (auto it = rep.environment->find(name); it != rep.environment->end()) {
        recorded = std::string(name) + "=" + it->second;
        break;
      }
    }
    merge.ranks.push_back({r, inputs[r].file, rep.process_id, rep.device_name, rep.chip_name, recorded});
  }
  list_report_differences(inputs, merge);

  // Every range key in the order it first appears (rank 0's order first),
  // with each rank's record of it.
  std::vector<std::string> keys;
  std::map<std::string, std::vector<const RangeRecord*>> records;
  for (std::uint32_t r = 0; r < inputs.size(); ++r) {
    for (const auto& [key, range] : numbered(inputs[r].report.ranges, range_name)) {
      auto [it, added] = records.try_emplace(key, inputs.size(), nullptr);
      if (added) keys.push_back(key);
      it->second[r] = range;
    }
  }
  std::map<std::string, Missing> missing_metrics;
  for (const std::string& key : keys) merge.ranges.push_back(merge_range(key, records[key], merge, missing_metrics));
  for (const auto& [name, where] : missing_metrics) {
    if (where.places_missing == 0) continue;
    merge.unmatched.push_back("metric '" + name + "' missing in " + ranks_text(merge, where.ranks) +
                              (where.places_missing == where.places
                                   ? std::string(": not merged")
                                   : fmt::format(" in {} of the {} kernels and ranges that have it: not merged there",
                                                 where.places_missing, where.places)));
  }
  for (std::uint32_t r = 0; r < inputs.size(); ++r) {
    for (const std::string& e : inputs[r].report.errors) merge.errors.push_back(ranks_text(merge, {r}) + ": " + e);
  }
  return merge;
}

namespace {

std::string kernel_label(const MergedKernel& k) {
  KernelRecord record;
  record.name = k.name;
  record.grid = k.grid;
  record.block = k.block;
  return kernel_key(record);
}

// "6,291,488" or "-" without a value.
std::string value_text(const std::optional<double>& v) { return v ? format_metric_value(*v) : std::string("-"); }

// A metric's cells after its name and unit: min, mean, max, the max's rank,
// then (with rank columns) each rank's value, with its unit when the units differ.
std::vector<std::string> metric_cells(const MergedMetric& m, bool rank_columns) {
  const std::optional<MetricStats>& s = m.stats;
  std::vector<std::string> cells = {
      value_text(s ? std::optional(s->min) : std::nullopt), value_text(s ? std::optional(s->mean) : std::nullopt),
      value_text(s ? std::optional(s->max) : std::nullopt), s ? std::to_string(s->max_rank) : "-"};
  if (!rank_columns) return cells;
  for (std::size_t r = 0; r < m.values.size(); ++r)
    cells.push_back(value_text(m.values[r]) + (m.units.empty() || !m.values[r] ? "" : " " + m.units[r]));
  return cells;
}

std::string unit_text(const MergedMetric& m) { return m.units.empty() ? m.unit : "(mixed)"; }

// Column widths shared by every table of the merge, so they line up: the
// longest name, unit and value, at least their headers, within
// kMaxTableWidth columns: a name column that would overflow is narrowed
// (longer names get a line of their own above their values), and the rank
// columns are left out when even then the line would not fit.
struct Widths {
  std::size_t name = 11, unit = 11, value = 8;
  bool rank_columns = true;
};

constexpr std::size_t kMaxRankWidth = 8;     // "Max Rank"
constexpr std::size_t kMaxTableWidth = 120;  // a terminal's columns
constexpr std::size_t kMinNameWidth = 24;    // narrower, most names would take two lines

// Columns of one line: the indent, name, unit, the figures and the ranks.
std::size_t line_width(const Widths& w, std::size_t ranks) {
  const std::size_t values = 3 + (w.rank_columns ? ranks : 0);
  return 4 + w.name + 1 + w.unit + values * (1 + w.value) + 1 + kMaxRankWidth;
}

Widths widths_of(const ReportMerge& merge, bool rank_columns) {
  Widths w;
  w.rank_columns = rank_columns;
  const auto fit = [&](const std::vector<MergedMetric>& metrics) {
    for (const MergedMetric& m : metrics) {
      w.name = std::max(w.name, m.name.size());
      w.unit = std::max(w.unit, unit_text(m).size());
      for (const std::string& cell : metric_cells(m, rank_columns)) w.value = std::max(w.value, cell.size());
    }
  };
  for (const MergedRange& range : merge.ranges) {
    fit(range.range_metrics);
    for (const MergedKernel& k : range.kernels) fit(k.metrics);
  }
  if (rank_columns && !merge.ranks.empty())
    w.value = std::max(w.value, ("rank " + std::to_string(merge.ranks.size() - 1)).size());
  const std::size_t width = line_width(w, merge.ranks.size());
  if (width > kMaxTableWidth) w.name = std::max(kMinNameWidth, w.name - std::min(w.name, width - kMaxTableWidth));
  return w;
}

Widths widths_of(const ReportMerge& merge) {
  const bool rank_columns = merge.ranks.size() <= kMaxRankColumns;
  Widths w = widths_of(merge, rank_columns);
  if (rank_columns && line_width(w, merge.ranks.size()) > kMaxTableWidth) w = widths_of(merge, false);
  return w;
}

std::string table_line(const std::string& name, const std::string& unit, const std::vector<std::string>& cells,
                       const Widths& w) {
  // A name wider than its column stands on a line of its own.
  std::string out = name.size() > w.name ? "    " + name + "\n" : std::string();
  out += fmt::format("    {:<{}} {:<{}}", name.size() > w.name ? std::string() : name, w.name, unit, w.unit);
  for (std::size_t i = 0; i < cells.size(); ++i)
    out += fmt::format(" {:>{}}", cells[i], i == 3 ? kMaxRankWidth : w.value);
  return out + "\n";
}

std::string metric_table(const std::string& title, const std::vector<MergedMetric>& metrics, std::size_t ranks,
                         const Widths& w) {
  std::vector<std::string> header = {"Min", "Mean", "Max", "Max Rank"};
  if (w.rank_columns) {
    for (std::size_t r = 0; r < ranks; ++r) header.push_back("rank " + std::to_string(r));
  }
  std::string out = "\n" + title + "\n" + table_line("Metric Name", "Metric Unit", header, w);
  for (const MergedMetric& m : metrics) out += table_line(m.name, unit_text(m), metric_cells(m, w.rank_columns), w);
  return out;
}

void append_section(std::string& out, const char* title, const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  out += fmt::format("\n{}:\n", title);
  for (const std::string& line : lines) out += "  " + line + "\n";
}

}  // namespace

std::string render_merge_table(const ReportMerge& merge) {
  std::string out = fmt::format("{}:\n", count_of(merge.ranks.size(), "rank"));
  for (const MergedRank& r : merge.ranks) {
    out += fmt::format("  rank {:<4} {}  pid {}  {} ({}){}\n", r.rank, r.file,
                       r.process_id == 0 ? std::string("unknown") : std::to_string(r.process_id), r.device_name,
                       r.chip_name, r.recorded_rank.empty() ? std::string() : "  " + r.recorded_rank);
  }
  const Widths widths = widths_of(merge);
  for (const MergedRange& range : merge.ranges) {
    out += "\n" + range.key + "\n";
    for (std::uint32_t r = 0; r < range.ranks.size(); ++r) {
      const RankRange& rank = range.ranks[r];
      if (rank.status == RankRangeStatus::kDeclined)
        out += fmt::format("  rank {}: declined ({}): {}\n", r, rank.decline_reason, rank.decline_detail);
      else if (rank.status == RankRangeStatus::kAbsent)
        out += fmt::format("  rank {}: no such range\n", r);
      else if (!rank.kernel_mismatch.empty())
        out += fmt::format("  rank {}: other kernels, not merged: {}\n", r, rank.kernel_mismatch);
    }
    if (!range.reference_rank) out += "  no rank replayed it\n";
    if (!range.range_metrics.empty()) {
      out += metric_table("  whole range", range.range_metrics, merge.ranks.size(), widths);
    }
    for (const MergedKernel& k : range.kernels) {
      if (k.metrics.empty()) continue;
      out +=
          metric_table(fmt::format("  kernel {}: {}", k.index, kernel_label(k)), k.metrics, merge.ranks.size(), widths);
    }
  }
  if (merge.ranks.size() > kMaxRankColumns)
    out += fmt::format("\n(each rank's value is in the JSON and CSV output: more than {} ranks)\n", kMaxRankColumns);
  else if (!widths.rank_columns && !merge.ranges.empty())
    out += fmt::format(
        "\n(each rank's value is in the JSON and CSV output: the rank columns would not fit in {} "
        "columns)\n",
        kMaxTableWidth);
  return out + render_merge_flags(merge);
}

std::string render_merge_flags(const ReportMerge& merge) {
  std::size_t values = 0;
  for (const MergedRange& range : merge.ranges) {
    values += range.range_metrics.size();
    for (const MergedKernel& k : range.kernels) values += k.metrics.size();
  }
  std::string out;
  append_section(out, "mismatched", merge.mismatched);
  append_section(out, "unmatched", merge.unmatched);
  append_section(out, "declined", merge.declined);
  append_section(out, "errors", merge.errors);
  out += fmt::format("\n{} merged over {}, {} mismatched, {} unmatched, {} declined\n", count_of(values, "metric"),
                     count_of(merge.ranks.size(), "rank"), merge.mismatched.size(), merge.unmatched.size(),
                     merge.declined.size());
  return out;
}

namespace {

// The merged JSON keeps its keys in the order report_merge.h lays them out.
using Json = nlohmann::ordered_json;

Json dims_json(const Dim3& d) { return Json::array({d.x, d.y, d.z}); }

std::string exact_or_empty(const std::optional<double>& v) { return v ? format_exact_number(*v) : std::string(); }

std::string csv_row(const ReportMerge& merge, const MergedRange& range, const MergedKernel* kernel,
                    const MergedMetric& m) {
  std::string unit = m.unit;
  if (!m.units.empty()) {
    unit.clear();
    for (std::size_t r = 0; r < m.units.size(); ++r) unit += (r == 0 ? "" : "|") + m.units[r];
  }
  const std::optional<MetricStats>& s = m.stats;
  std::string row =
      fmt::format("{},{},{},{},{},{},{},{},{},{}", csv_field(range.key), kernel ? std::to_string(kernel->index) : "",
                  csv_field(kernel ? kernel_label(*kernel) : ""), csv_field(m.name), csv_field(unit),
                  exact_or_empty(s ? std::optional(s->min) : std::nullopt),
                  exact_or_empty(s ? std::optional(s->mean) : std::nullopt),
                  exact_or_empty(s ? std::optional(s->max) : std::nullopt), s ? std::to_string(s->max_rank) : "",
                  s ? std::to_string(s->count) : "");
  for (std::size_t r = 0; r < merge.ranks.size(); ++r) row += "," + exact_or_empty(m.values[r]);
  return row + "\n";
}

Json optional_number(const std::optional<double>& v) { return v ? Json(json_number(*v)) : Json(nullptr); }

Json metric_json(const MergedMetric& m) {
  Json values = Json::array();
  for (const std::optional<double>& v : m.values) values.push_back(optional_number(v));
  Json j = {{"metric", m.name}, {"unit", m.unit.empty() && !m.units.empty() ? Json(nullptr) : Json(m.unit)}};
  if (!m.units.empty()) {
    Json units = Json::array();
    for (std::size_t r = 0; r < m.units.size(); ++r) units.push_back(m.values[r] ? Json(m.units[r]) : Json(nullptr));
    j["units"] = std::move(units);
  }
  j["values"] = std::move(values);
  const std::optional<MetricStats>& s = m.stats;
  j["min"] = s ? Json(json_number(s->min)) : Json(nullptr);
  j["mean"] = s ? Json(json_number(s->mean)) : Json(nullptr);
  j["max"] = s ? Json(json_number(s->max)) : Json(nullptr);
  j["max_rank"] = s ? Json(s->max_rank) : Json(nullptr);
  j["count"] = s ? s->count : 0;
  return j;
}

Json metrics_json(const std::vector<MergedMetric>& metrics) {
  Json out = Json::array();
  for (const MergedMetric& m : metrics) out.push_back(metric_json(m));
  return out;
}

Json range_json(const MergedRange& range) {
  Json ranks = Json::array();
  for (std::uint32_t r = 0; r < range.ranks.size(); ++r) {
    const RankRange& rank = range.ranks[r];
    Json j = {{"rank", r}, {"status", rank_range_status_name(rank.status)}};
    if (rank.status != RankRangeStatus::kAbsent) j["index"] = rank.index;
    if (rank.status == RankRangeStatus::kDeclined) {
      j["decline_reason"] = rank.decline_reason;
      j["decline_detail"] = rank.decline_detail;
    }
    if (rank.status == RankRangeStatus::kReplayed) {
      j["kernels_merged"] = rank.kernel_mismatch.empty();
      if (!rank.kernel_mismatch.empty()) j["kernel_mismatch"] = rank.kernel_mismatch;
    }
    ranks.push_back(std::move(j));
  }
  Json kernels = Json::array();
  for (const MergedKernel& k : range.kernels) {
    kernels.push_back({{"index", k.index},
                       {"name", k.name},
                       {"grid", dims_json(k.grid)},
                       {"block", dims_json(k.block)},
                       {"metrics", metrics_json(k.metrics)}});
  }
  return {{"range", range.key},
          {"name", range.name},
          {"instance", range.instance},
          {"reference_rank", range.reference_rank ? Json(*range.reference_rank) : Json(nullptr)},
          {"ranks", std::move(ranks)},
          {"range_metrics", metrics_json(range.range_metrics)},
          {"kernels", std::move(kernels)}};
}

}  // namespace

std::string render_merge_csv(const ReportMerge& merge) {
  std::string out = "range,kernel_index,kernel,metric,unit,min,mean,max,max_rank,count";
  for (const MergedRank& r : merge.ranks) out += ",rank_" + std::to_string(r.rank);
  out += "\n";
  for (const MergedRange& range : merge.ranges) {
    for (const MergedMetric& m : range.range_metrics) out += csv_row(merge, range, nullptr, m);
    for (const MergedKernel& k : range.kernels) {
      for (const MergedMetric& m : k.metrics) out += csv_row(merge, range, &k, m);
    }
  }
  return out;
}

std::string render_merge_json(const ReportMerge& merge) {
  Json ranks = Json::array();
  for (const MergedRank& r : merge.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"file", r.file},
                     {"process_id", r.process_id},
                     {"device_name", r.device_name},
                     {"chip_name", r.chip_name},
                     {"recorded_rank", r.recorded_rank.empty() ? Json(nullptr) : Json(r.recorded_rank)}});
  }
  Json ranges = Json::array();
  for (const MergedRange& range : merge.ranges) ranges.push_back(range_json(range));
  const Json j = {{"merge_version", 1},           {"ranks", std::move(ranks)},
                  {"ranges", std::move(ranges)},  {"mismatched", merge.mismatched},
                  {"unmatched", merge.unmatched}, {"declined", merge.declined},
                  {"errors", merge.errors}};
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace rangereplay::report
