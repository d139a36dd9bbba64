// The report as CSV (report_csv.h).
#include "report/report_csv.h"

#include <algorithm>
#include <exception>
#include <initializer_list>
#include <vector>

#include "report/demangle.h"
#include "report/format_helpers.h"
#include "report/report_file.h"
#include "report/time_budget.h"

namespace rangereplay::report {
namespace {

constexpr std::string_view kMetricHeader =
    "range_index,range_name,status,decline_reason,kernel_index,kernel_name,grid,block,metric,unit,value\n";

void append_row(std::string& out, std::initializer_list<std::string_view> fields) {
  bool first = true;
  for (std::string_view f : fields) {
    if (!first) out.push_back(',');
    out += csv_field(f);
    first = false;
  }
  out.push_back('\n');
}

std::string_view status_of(const RangeRecord& range) { return range.declined ? "declined" : "replayed"; }

}  // namespace

std::string csv_field(std::string_view text) {
  const bool needs_quotes = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                            (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!needs_quotes) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string render_report_csv(const Report& report) {
  std::string out(kMetricHeader);
  for (const RangeRecord& range : report.ranges) {
    const std::string range_index = std::to_string(range.index);
    const std::string_view status = status_of(range);
    if (range.declined) {
      append_row(out, {range_index, range.name, status, range.decline_reason, "", "", "", "", "", "", ""});
      continue;
    }
    const bool has_range_metrics = !range.range_metrics.empty();
    for (const KernelRecord& kernel : range.kernels) {
      const std::string kernel_index = std::to_string(kernel.index);
      const std::string name = kernel_display_name(kernel);
      const std::string grid = format_dim3(kernel.grid);
      const std::string block = format_dim3(kernel.block);
      if (kernel.metrics.empty() && !has_range_metrics) {
        append_row(out, {range_index, range.name, status, "", kernel_index, name, grid, block, "", "", ""});
      }
      for (const MetricValue& metric : kernel.metrics) {
        append_row(out, {range_index, range.name, status, "", kernel_index, name, grid, block, metric.name, metric.unit,
                         format_exact_number(metric.value)});
      }
    }
    for (const MetricValue& metric : range.range_metrics) {
      append_row(out, {range_index, range.name, status, "", "", "", "", "", metric.name, metric.unit,
                       format_exact_number(metric.value)});
    }
    if (range.kernels.empty() && !has_range_metrics) {
      append_row(out, {range_index, range.name, status, "", "", "", "", "", "", "", ""});
    }
  }
  return out;
}

std::string render_stage_timings_csv(const Report& report) {
  std::vector<std::string> tier_names;
  for (const RangeRecord& range : report.ranges) {
    for (const TierUsage& tier : range.tiers) {
      if (std::find(tier_names.begin(), tier_names.end(), tier.tier) == tier_names.end()) {
        tier_names.push_back(tier.tier);
      }
    }
  }
  std::string out =
      "range_index,range_name,status,decline_reason,decline_detail,passes,kernels,regions,footprint_bytes,"
      "snapshot_bytes";
  for (const std::string& name : tier_names) out += "," + csv_field("snapshot_" + name + "_bytes");
  out +=
      ",restore,restored_bytes,divergences,sync_ms,capture_ms,restore_ms,replay_submit_ms,kernels_ms,counters_ms,"
      "decode_ms,verify_ms,window_ms,begin_ms,other_ms,rendezvous_ms\n";

  for (const RangeRecord& range : report.ranges) {
    std::uint64_t snapshot_bytes = 0;
    std::vector<std::uint64_t> per_tier(tier_names.size(), 0);
    for (const TierUsage& tier : range.tiers) {
      snapshot_bytes += tier.bytes;
      const auto at = std::find(tier_names.begin(), tier_names.end(), tier.tier) - tier_names.begin();
      per_tier[static_cast<std::size_t>(at)] += tier.bytes;
    }
    std::uint64_t restored_bytes = 0, divergences = 0;
    for (const PassRecord& pass : range.pass_records) {
      restored_bytes += pass.restored_bytes;
      divergences += pass.divergences.size();
    }
    const StageTimings& t = range.timings;
    out += std::to_string(range.index);
    for (std::string_view text : {std::string_view(range.name), status_of(range),
                                  std::string_view(range.decline_reason), std::string_view(range.decline_detail)}) {
      out += "," + csv_field(text);
    }
    for (std::uint64_t n : {std::uint64_t{range.passes}, std::uint64_t{range.kernels.size()},
                            std::uint64_t{range.regions}, range.footprint_bytes, snapshot_bytes}) {
      out += "," + std::to_string(n);
    }
    for (std::uint64_t n : per_tier) out += "," + std::to_string(n);
    out += "," + csv_field(range.restore.value_or("")) + "," + std::to_string(restored_bytes) + "," +
           std::to_string(divergences);
    for (double ms : {t.sync_ms, t.capture_ms, t.restore_ms, t.replay_submit_ms, t.kernels_ms, t.counters_ms,
                      t.decode_ms, t.verify_ms, t.window_ms, t.begin_ms, t.other_ms, t.rendezvous_ms.value_or(0)}) {
      out += "," + format_exact_number(ms);
    }
    out += "\n";
  }
  return out;
}

Status write_report_csv(const Report& report, const std::filesystem::path& path) {
  try {
    return write_text_file(path, render_report_csv(report));
  } catch (const std::exception& e) {  // only std::bad_alloc can reach here
    return resource_exhausted(std::string("cannot write the report as CSV: ") + e.what());
  }
}

Status write_time_budget_csv(const Report& report, const std::filesystem::path& path) {
  try {
    return write_text_file(path, render_time_budget_csv(report));
  } catch (const std::exception& e) {
    return resource_exhausted(std::string("cannot write the time-budget CSV: ") + e.what());
  }
}

Status write_stage_timings_csv(const Report& report, const std::filesystem::path& path) {
  try {
    return write_text_file(path, render_stage_timings_csv(report));
  } catch (const std::exception& e) {
    return resource_exhausted(std::string("cannot write the stage-timings CSV: ") + e.what());
  }
}

}  // namespace rangereplay::report
