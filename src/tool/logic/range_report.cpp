// A range's report record (see range_report.h).
#include "tool/logic/range_report.h"

#include <algorithm>
#include <variant>

#include "core/base/ascii.h"
#include "core/record/graph_nodes.h"
#include "report/demangle.h"

namespace rangereplay::tool {

std::vector<report::MetricValue> metric_values(const MetricColumns& columns, std::span<const double> v) {
  std::vector<report::MetricValue> out;
  for (std::size_t m = 0; m < columns.names.size() && m < v.size(); ++m)
    out.push_back({columns.names[m], m < columns.units.size() ? columns.units[m] : std::string(), v[m]});
  return out;
}

report::KernelRecord kernel_record(const KernelLaunchOp& k, std::uint32_t index) {
  report::KernelRecord kr;
  kr.index = index;
  kr.mangled_name = k.name;
  kr.name = report::demangle(k.name);
  kr.stream_id = k.stream;
  kr.grid = {k.grid[0], k.grid[1], k.grid[2]};
  kr.block = {k.block[0], k.block[1], k.block[2]};
  kr.shared_mem_bytes = k.shared_mem_bytes;
  kr.launch_index = k.launch_index;
  return kr;
}

void record_kernels(report::RangeRecord& record, const RecordedProgram& program, bool per_kernel,
                    const MetricColumns& columns, const std::vector<std::vector<double>>& values) {
  // Plain launches and graph kernel nodes, with the counter range of each
  // (map_counter_ranges: CUPTI's auto range may count a graph launch as one
  // range or one per kernel node; core/record/graph_nodes.h).
  const auto kernels = program.kernels();
  const CounterRangeMap ranges = map_counter_ranges(program.launch_units(), values.size());
  std::vector<std::uint64_t> streams;  // launch stream of each kernel
  for (const auto& op : program.ops) {
    if (const auto* k = std::get_if<KernelLaunchOp>(&op)) streams.push_back(k->stream);
    if (const auto* g = std::get_if<GraphLaunchOp>(&op); g != nullptr && g->kernels)
      streams.insert(streams.end(), g->kernels->size(), g->stream);
  }
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    report::KernelRecord kr = kernel_record(*kernels[i], static_cast<std::uint32_t>(i));
    if (i < streams.size()) kr.stream_id = streams[i];
    if (per_kernel && i < ranges.kernel_range.size() && ranges.kernel_range[i] &&
        *ranges.kernel_range[i] < values.size())
      kr.metrics = metric_values(columns, values[*ranges.kernel_range[i]]);
    record.kernels.push_back(std::move(kr));
  }
  if (!per_kernel && !values.empty()) record.range_metrics = metric_values(columns, values[0]);
  if (per_kernel) {
    if (ranges.layout == CounterRangeLayout::kMismatch) {
      record.notes.push_back("CUPTI returned " + std::to_string(values.size()) + " kernel ranges for " +
                             std::to_string(kernels.size()) + " recorded kernels");
    } else if (ranges.layout == CounterRangeLayout::kPerLaunch) {
      // Each graph launch was measured as one counter range: its kernels get
      // no per-kernel values; the launch's values are listed here.
      for (std::size_t g = 0; g < ranges.graph_range.size(); ++g) {
        if (!ranges.graph_range[g] || *ranges.graph_range[g] >= values.size()) continue;
        std::string note = "graph launch " + std::to_string(g + 1) + " was measured as one counter range:";
        for (const auto& m : metric_values(columns, values[*ranges.graph_range[g]]))
          note += " " + m.name + "=" + std::to_string(m.value);
        record.notes.push_back(std::move(note));
      }
    }
  }
}

Status counter_ranges_mismatch(std::size_t returned, const std::string& opened, std::size_t dropped,
                               std::span<const std::string> names) {
  constexpr std::size_t kNamesShown = 12;
  constexpr std::size_t kNameChars = 48;
  std::string message = "CUPTI returned " + std::to_string(returned) + " counter ranges for " + opened;
  if (dropped > 0) message += " (its decode reported " + std::to_string(dropped) + " dropped)";
  for (std::size_t i = 0; i < names.size() && i < kNamesShown; ++i) {
    message += (i == 0 ? "; CUPTI named them '" : ", '") + names[i].substr(0, kNameChars) +
               (names[i].size() > kNameChars ? "...'" : "'");
  }
  if (names.size() > kNamesShown) message += " and " + std::to_string(names.size() - kNamesShown) + " more";
  return internal_error(std::move(message)).with_decline_reason(DeclineReason::kCounterRangesMismatch);
}

std::size_t lead_in_counter_ranges(std::size_t kernels, bool whole_range) { return whole_range ? 2 : kernels + 1; }

Status check_lead_in_ranges(std::size_t returned, std::size_t kernels, bool whole_range, std::size_t dropped,
                            std::span<const std::string> names) {
  // A range dropped from a full image was one more than expected: the rows
  // kept are not the ones expected either.
  if (returned == lead_in_counter_ranges(kernels, whole_range) && dropped == 0) return ok_status();
  return counter_ranges_mismatch(returned,
                                 whole_range ? std::string("a whole range and its lead-in")
                                             : "the lead-in flush and " + std::to_string(kernels) + " kernels",
                                 dropped, names);
}

void RangeReporter::record_decline(report::RangeRecord& record, DeclineReason reason, const std::string& detail) const {
  record.declined = true;
  record.decline_reason = std::string(decline_reason_name(reason));
  record.decline_detail = decline_report_detail(reason, detail);
  if (!quiet_)
    std::fprintf(out_, "rangereplay: range %u '%s' declined: %s (%s)\n", record.index + 1,
                 escape_controls(record.name).c_str(), record.decline_reason.c_str(), escape_controls(detail).c_str());
}

void RangeReporter::report_decline(report::RangeRecord& record, const Eligibility& eligibility) const {
  const std::optional<DeclineReason> reason = eligibility.reason();
  if (reason) record_decline(record, *reason, eligibility.detail());
}

void RangeReporter::finish_record(report::RangeRecord& record, const Eligibility& eligibility,
                                  std::uint32_t skipped_device_to_host, std::uint32_t modules_loaded,
                                  double window_ms) const {
  report_decline(record, eligibility);
  if (skipped_device_to_host)
    record.notes.push_back(
        std::to_string(skipped_device_to_host) +
        " device-to-host copies (or writes into pinned host memory) were not re-executed in replays");
  if (modules_loaded == 1) {
    record.notes.push_back("1 module loaded inside the range (lazy loading); it has no module-scope variables");
  } else if (modules_loaded > 1) {
    record.notes.push_back(std::to_string(modules_loaded) +
                           " modules loaded inside the range (lazy loading); none has module-scope variables");
  }
  auto& t = record.timings;
  t.window_ms = window_ms;
  t.other_ms = std::max(0.0, t.window_ms - t.counters_ms - t.kernels_ms - t.restore_ms);
}

}  // namespace rangereplay::tool
