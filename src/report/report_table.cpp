// The report as terminal text (report_table.h).
#include "report/report_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <string_view>
#include <vector>

#include "core/base/ascii.h"
#include "report/demangle.h"
#include "report/format_helpers.h"
#include "report/time_budget.h"

namespace rangereplay::report {
namespace {

constexpr std::string_view kNameHeader = "Metric Name";
constexpr std::string_view kUnitHeader = "Metric Unit";
constexpr std::string_view kValueHeader = "Metric Value";
constexpr std::string_view kTableIndent = "    ";

struct ColumnWidths {
  std::size_t name = kNameHeader.size();
  std::size_t unit = kUnitHeader.size();
  std::size_t value = kValueHeader.size();

  void fit(const std::vector<MetricValue>& metrics) {
    for (const MetricValue& m : metrics) {
      name = std::max(name, escape_controls(m.name).size());
      unit = std::max(unit, escape_controls(m.unit).size());
      value = std::max(value, format_metric_value(m.value).size());
    }
  }
};

// A command line as a shell would accept it back: arguments with spaces or
// quotes in single quotes.
std::string join_command(const std::vector<std::string>& command) {
  std::string out;
  for (const std::string& raw : command) {
    const std::string arg = escape_controls(raw);
    if (!out.empty()) out.push_back(' ');
    const bool plain = !arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      out += arg;
      continue;
    }
    out.push_back('\'');
    for (char c : arg) {
      if (c == '\'')
        out += "'\\''";
      else
        out.push_back(c);
    }
    out.push_back('\'');
  }
  return out;
}

std::string range_title(const RangeRecord& range) {
  if (range.name.empty()) return fmt::format("range {}", range.index);
  return fmt::format("range {} '{}'", range.index, escape_controls(range.name));
}

void append_metric_table(std::string& out, const std::vector<MetricValue>& metrics, const ColumnWidths& w) {
  const std::string rule = fmt::format("{}{} {} {}\n", kTableIndent, std::string(w.name, '-'), std::string(w.unit, '-'),
                                       std::string(w.value, '-'));
  out += rule;
  out += fmt::format("{}{:<{}} {:>{}} {:>{}}\n", kTableIndent, kNameHeader, w.name, kUnitHeader, w.unit, kValueHeader,
                     w.value);
  out += rule;
  for (const MetricValue& m : metrics) {
    out += fmt::format("{}{:<{}} {:>{}} {:>{}}\n", kTableIndent, escape_controls(m.name), w.name,
                       escape_controls(m.unit), w.unit, format_metric_value(m.value), w.value);
  }
  out += rule;
}

void append_kernel(std::string& out, const KernelRecord& kernel, const ColumnWidths& widths,
                   const TableOptions& options) {
  const std::string name = escape_controls(kernel_display_name(kernel));
  out += fmt::format("  kernel {}: {} {}x{}", kernel.index, truncate_middle(name, options.max_kernel_name_width),
                     format_dim3(kernel.grid), format_dim3(kernel.block));
  if (kernel.shared_mem_bytes > 0) out += ", shared " + format_bytes(kernel.shared_mem_bytes);
  if (kernel.stream_id != 0) out += fmt::format(", stream {}", kernel.stream_id);
  out += "\n";
  if (!kernel.metrics.empty()) append_metric_table(out, kernel.metrics, widths);
}

void append_stages(std::string& out, const Report& report, const StageTimings& t) {
  out +=
      fmt::format("  stages: sync {}, capture {}, restore {}, submit {}, kernels {}, counters {}, decode {}",
                  format_ms(t.sync_ms), format_ms(t.capture_ms), format_ms(t.restore_ms), format_ms(t.replay_submit_ms),
                  format_ms(t.kernels_ms), format_ms(t.counters_ms), format_ms(t.decode_ms));
  if (report.verify || t.verify_ms != 0) out += ", verify " + format_ms(t.verify_ms);
  out += ", tool " + format_ms(t.other_ms);
  if (t.rendezvous_ms.value_or(0) > 0)
    out += " (of it waiting for the other ranks " + format_ms(*t.rendezvous_ms) + ")";
  out += "; begin " + format_ms(t.begin_ms) + "\n";
}

void append_snapshot(std::string& out, const RangeRecord& range) {
  if (range.tiers.empty() && range.regions == 0) return;
  out += "  snapshot: " + count_of(range.regions, "region");
  std::string_view separator = "; ";
  for (const TierUsage& tier : range.tiers) {
    out += fmt::format("{}{} {} (arena {}, {})", separator, tier.tier, format_bytes(tier.bytes),
                       format_bytes(tier.arena_bytes), tier.new_allocation ? "new" : "retained");
    separator = ", ";
  }
  out += "\n";
}

// "restored per pass (differential, footprint 256.0 MiB): passes 1-2 1.0 MiB
// each, pass 3 1.5 MiB": runs of consecutive passes with equal byte counts are
// merged.
void append_restores(std::string& out, const RangeRecord& range) {
  const std::vector<PassRecord>& passes = range.pass_records;
  if (passes.empty()) return;
  out += "  restored per pass (";
  if (!range.restore.value_or("").empty()) out += *range.restore + ", ";
  out += "footprint " + format_bytes(range.footprint_bytes) + "): ";
  std::size_t begin = 0;
  while (begin < passes.size()) {
    std::size_t end = begin + 1;
    while (end < passes.size() && passes[end].restored_bytes == passes[begin].restored_bytes &&
           passes[end].pass == passes[end - 1].pass + 1) {
      ++end;
    }
    if (begin > 0) out += ", ";
    if (end - begin == 1) {
      out += fmt::format("pass {} {}", passes[begin].pass, format_bytes(passes[begin].restored_bytes));
    } else {
      out += fmt::format("passes {}-{} {} each", passes[begin].pass, passes[end - 1].pass,
                         format_bytes(passes[begin].restored_bytes));
    }
    begin = end;
  }
  out += "\n";
}

void append_verify(std::string& out, const Report& report, const std::vector<PassRecord>& passes) {
  std::size_t divergent_regions = 0, divergent_passes = 0;
  for (const PassRecord& pass : passes) {
    divergent_regions += pass.divergences.size();
    divergent_passes += pass.divergences.empty() ? 0 : 1;
  }
  if (passes.empty() || (!report.verify && divergent_regions == 0)) return;
  if (divergent_regions == 0) {
    out += fmt::format("  verify: {} reproduced the range-exit state\n",
                       passes.size() == 1 ? std::string("1 replay") : fmt::format("all {} replays", passes.size()));
    return;
  }
  out += fmt::format("  verify: {} in {} of {}\n", count_of(divergent_regions, "divergent region"), divergent_passes,
                     count_of(passes.size(), "replay"));
  for (const PassRecord& pass : passes) {
    for (const Divergence& d : pass.divergences) {
      out += fmt::format("    pass {}: {}, {}", pass.pass, format_address(d.address), format_bytes(d.size_bytes));
      if (!d.origin.empty()) out += ", allocated at " + d.origin;
      out += "\n";
    }
  }
}

void append_notes(std::string& out, const RangeRecord& range) {
  for (const std::string& note : range.notes) out += "  note: " + note + "\n";
}

}  // namespace

std::string render_report_header(const Report& report) {
  std::string out = "rangereplay";
  if (!report.tool_version.empty()) out += " " + report.tool_version;
  if (report.process_id != 0) out += fmt::format(", pid {}", report.process_id);
  out += "\n";
  if (!report.device_name.empty()) {
    out += "device: " + report.device_name;
    std::vector<std::string> details;
    if (!report.chip_name.empty()) details.push_back(report.chip_name);
    if (!report.compute_capability.empty()) details.push_back("CC " + report.compute_capability);
    if (!details.empty()) out += fmt::format(" ({})", fmt::join(details, ", "));
    if (!report.driver_version.empty()) out += ", driver " + report.driver_version;
    out += "\n";
  }
  if (!report.command.empty()) out += "command: " + join_command(report.command) + "\n";
  if (report.environment && !report.environment->empty()) {
    std::vector<std::string> values;
    for (const auto& [name, value] : *report.environment) values.push_back(name + "=" + value);
    const std::string host = report.host_name.value_or("");
    out += fmt::format("environment: {}{}\n", fmt::join(values, " "), host.empty() ? std::string() : " on " + host);
  }
  out += fmt::format("metrics: {} requested, {}, {} values", report.metrics.size(), count_of(report.pass_count, "pass"),
                     report.range_metrics == "whole" ? "whole-range" : "per-kernel");
  if (!report.counter_backend.value_or("").empty()) out += ", counted by " + *report.counter_backend;
  if (report.setup_ms != 0) out += ", counter setup " + format_ms(report.setup_ms);
  if (report.launcher_ms.value_or(0) != 0) out += ", launcher checks " + format_ms(*report.launcher_ms);
  if (report.verify) out += ", verify on";
  if (report.cache_control == "all") out += ", cache control all";
  out += "\n";
  return escape_controls(out, LineBreaks::kKeep);
}

std::string render_range_table(const Report& report, const RangeRecord& range, const TableOptions& options) {
  std::string out = range_title(range);
  if (range.declined) {
    out += ": declined";
    if (!range.decline_reason.empty()) out += " (" + range.decline_reason + ")";
    if (!range.decline_detail.empty()) out += ": " + range.decline_detail;
    out += "\n";
    append_notes(out, range);
    return escape_controls(out, LineBreaks::kKeep);
  }
  out += fmt::format(": {}, {}, footprint {}, window {}\n", count_of(range.passes, "pass"),
                     count_of(range.kernels.size(), "kernel"), format_bytes(range.footprint_bytes),
                     format_ms(range.timings.window_ms));
  append_stages(out, report, range.timings);
  append_snapshot(out, range);

  ColumnWidths widths;
  for (const KernelRecord& kernel : range.kernels) widths.fit(kernel.metrics);
  widths.fit(range.range_metrics);
  for (const KernelRecord& kernel : range.kernels) append_kernel(out, kernel, widths, options);
  if (!range.range_metrics.empty()) {
    out += "  range metrics:\n";
    append_metric_table(out, range.range_metrics, widths);
  }
  out += render_samples_line(range);
  append_restores(out, range);
  append_verify(out, report, range.pass_records);
  append_notes(out, range);
  return escape_controls(out, LineBreaks::kKeep);
}

std::string render_samples_line(const RangeRecord& range) {
  if (!range.samples || range.samples->empty()) return "";
  double first = range.samples->front().start_ms, last = range.samples->front().end_ms;
  for (const MetricSample& s : *range.samples) {
    first = std::min(first, s.start_ms);
    last = std::max(last, s.end_ms);
  }
  return fmt::format("  samples: {} over {} (PM sampling; the JSON and HTML reports hold the series)\n",
                     count_of(range.samples->size(), "point"), format_ms(last - first));
}

std::string render_report_summary(const Report& report) {
  std::size_t declined = 0, kernels = 0;
  for (const RangeRecord& range : report.ranges) {
    declined += range.declined ? 1 : 0;
    kernels += range.kernels.size();
  }
  return fmt::format("{} ({} replayed, {} declined), {}, {}, {}", count_of(report.ranges.size(), "range"),
                     report.ranges.size() - declined, declined, count_of(kernels, "kernel"),
                     count_of(report.pass_count, "pass"), count_of(report.errors.size(), "error"));
}

std::string render_report_footer(const Report& report) {
  std::string out;
  for (const std::string& error : report.errors) out += "error: " + error + "\n";
  return escape_controls(out, LineBreaks::kKeep) + "summary: " + render_report_summary(report) + "\n";
}

std::string render_report_table(const Report& report, const TableOptions& options) {
  std::string out = render_report_header(report);

  for (const RangeRecord& range : report.ranges) {
    out += "\n";
    out += render_range_table(report, range, options);
  }
  out += "\n";
  out += render_report_footer(report);
  out += render_time_budget(report);  // fixed labels and numbers only
  return out;                         // each part above is escaped already
}

}  // namespace rangereplay::report
