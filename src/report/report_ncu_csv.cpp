// The report in ncu's CSV layouts (see report_ncu_csv.h).
#include "report/report_ncu_csv.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string_view>
#include <vector>

#include "report/format_helpers.h"

namespace rangereplay::report {

namespace {

// One result: what ncu's first eleven columns say of it, and its values.
struct Result {
  std::vector<std::string> columns;
  const std::vector<MetricValue>* metrics = nullptr;
};

// A field as ncu writes it: always quoted, quotes doubled.
std::string ncu_field(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void append_row(std::string& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += ncu_field(fields[i]);
  }
  out += '\n';
}

std::vector<Result> results(const Report& report) {
  const std::string process = report.command.empty() ? "" : std::filesystem::path(report.command.front()).filename();
  const std::string pid = std::to_string(report.process_id);
  std::vector<Result> out;
  const auto add = [&](const std::string& name, const std::string& stream, const std::string& block,
                       const std::string& grid, const std::vector<MetricValue>& metrics) {
    out.push_back(
        {{std::to_string(out.size()), pid, process, "", name, "1", stream, block, grid, "0", report.compute_capability},
         &metrics});
  };
  for (const RangeRecord& range : report.ranges) {
    if (range.declined) continue;
    for (const KernelRecord& k : range.kernels) {
      if (k.metrics.empty()) continue;
      add(k.name.empty() ? k.mangled_name : k.name, std::to_string(k.stream_id), format_dim3(k.block),
          format_dim3(k.grid), k.metrics);
    }
    if (!range.range_metrics.empty()) add(range.name, "", "", "", range.range_metrics);
  }
  return out;
}

// One part of a quotient unit, renamed as ncu names it.
std::string ncu_unit_part(std::string_view part) {
  static const auto& renamed = *new const std::map<std::string_view, std::string_view>{
      // never destroyed
      {"instruction", "inst"}, {"l2_sector", "sector"},       {"lrc_sector", "sector"}, {"l2_request", "request"},
      {"cta", "block"},        {"branch_target", "branches"}, {"second", "s"},          {"nanosecond", "ns"},
      {"percent", "%"},        {"l1tex_request", ""},         {"l1tex_wavefront", ""},  {"l1data_bank_conflict", ""},
      {"math_op", ""}};
  if (auto it = renamed.find(part); it != renamed.end()) return std::string(it->second);
  if (part.ends_with("_cycle")) return "cycle";
  return std::string(part);
}

constexpr std::string_view kColumns[] = {"ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                         "Stream", "Block Size", "Grid Size",    "Device",    "CC"};

std::vector<std::string> header() { return {std::begin(kColumns), std::end(kColumns)}; }

}  // namespace

std::string ncu_base_unit(std::string_view unit) {
  const std::size_t slash = unit.find('/');
  if (slash == std::string_view::npos) return ncu_unit_part(unit);
  const std::string top = ncu_unit_part(unit.substr(0, slash));
  const std::string bottom = ncu_base_unit(unit.substr(slash + 1));
  if (top.empty()) return "";
  if (bottom.empty()) return top;
  if (top == "cycle" && bottom == "s") return "hz";
  return top + "/" + bottom;
}

std::string render_ncu_details_csv(const Report& report) {
  std::string out;
  std::vector<std::string> head = header();
  for (const char* c : {"Section Name", "Metric Name", "Metric Unit", "Metric Value"}) head.emplace_back(c);
  append_row(out, head);
  for (const Result& r : results(report)) {
    for (const MetricValue& m : *r.metrics) {
      std::vector<std::string> row = r.columns;
      row.insert(row.end(),
                 {"Command line profiler metrics", m.name, ncu_base_unit(m.unit), format_exact_number(m.value)});
      append_row(out, row);
    }
  }
  return out;
}

std::string render_ncu_raw_csv(const Report& report) {
  const std::vector<Result> rs = results(report);
  // The report's metric order, then any other names the results carry.
  std::vector<std::string> names = report.metrics;
  std::map<std::string, std::string> units;
  for (const Result& r : rs) {
    for (const MetricValue& m : *r.metrics) {
      if (units.emplace(m.name, m.unit).second && std::find(names.begin(), names.end(), m.name) == names.end())
        names.push_back(m.name);
    }
  }
  std::string out;
  std::vector<std::string> head = header();
  head.insert(head.end(), names.begin(), names.end());
  append_row(out, head);
  std::vector<std::string> unit_row(std::size(kColumns));
  for (const std::string& n : names) unit_row.push_back(ncu_base_unit(units[n]));
  append_row(out, unit_row);
  for (const Result& r : rs) {
    std::map<std::string, double> values;
    for (const MetricValue& m : *r.metrics) values[m.name] = m.value;
    std::vector<std::string> row = r.columns;
    for (const std::string& n : names) {
      auto it = values.find(n);
      row.push_back(it == values.end() ? "n/a" : format_exact_number(it->second));
    }
    append_row(out, row);
  }
  return out;
}

}  // namespace rangereplay::report
