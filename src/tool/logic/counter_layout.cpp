// Counter layouts (see counter_layout.h).
#include "tool/logic/counter_layout.h"

#include "tool/logic/range_report.h"

namespace rangereplay::tool {

CounterLayout configured_layout(bool per_kernel_metrics) {
  if (per_kernel_metrics) return AutoKernelRanges{};
  return WholeRange{};
}

CounterLayout layout_after_recording_pass0(bool per_kernel_metrics, bool graph_launches, bool user_kernel_ranges,
                                           bool cache_flush) {
  if (!per_kernel_metrics) return WholeRange{};
  // A replayed graph launch under CUPTI's auto ranges made
  // cuptiRangeProfilerStop fail (CUPTI_ERROR_UNKNOWN; H200, CUDA 13.0).
  if (graph_launches) return WholeRange{.graph_launches = true};
  if (user_kernel_ranges) return UserKernelRanges{};
  return AutoKernelRanges{.lead_in_flush = cache_flush};
}

CounterLayout batched_layout(bool per_kernel_metrics, bool user_kernel_ranges, bool cache_flush) {
  if (!per_kernel_metrics) return WholeRange{};
  if (user_kernel_ranges || !cache_flush) return UserKernelRanges{};
  return AutoKernelRanges{};
}

std::size_t batch_counter_ranges(const CounterLayout& layout, std::size_t kernels) {
  const bool automatic = std::holds_alternative<AutoKernelRanges>(layout);
  return counter_ranges(layout, kernels) + (automatic ? kBatchToolKernelRanges : 0);
}

StatusOr<std::vector<std::size_t>> batch_first_rows(std::span<const std::size_t> tool_kernels_before,
                                                    std::span<const std::size_t> kernels, std::size_t returned,
                                                    std::size_t dropped, std::span<const std::string> names) {
  if (tool_kernels_before.size() != kernels.size())
    return invalid_argument("batch_first_rows: " + std::to_string(tool_kernels_before.size()) +
                            " counts of the tool's kernels for " + std::to_string(kernels.size()) + " members");
  std::vector<std::size_t> first(kernels.size());
  std::size_t row = 0;
  std::size_t tool = 0;
  std::size_t replayed = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    first[i] = row + tool_kernels_before[i];
    row = first[i] + kernels[i];
    tool += tool_kernels_before[i];
    replayed += kernels[i];
  }
  // A range dropped from a full image was one more than expected, somewhere
  // before the image's end: the rows kept may sit on other kernels.
  if (returned != row || dropped > 0)
    return counter_ranges_mismatch(returned,
                                   std::to_string(replayed) + " kernels of " + std::to_string(kernels.size()) +
                                       " ranges and " + std::to_string(tool) + " of the tool's own",
                                   dropped, names);
  return first;
}

std::vector<bool> batch_rows_wanted(std::span<const std::size_t> tool_kernels_before,
                                    std::span<const std::size_t> kernels) {
  std::vector<bool> wanted;
  if (tool_kernels_before.size() != kernels.size()) return wanted;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    wanted.insert(wanted.end(), tool_kernels_before[i], false);
    wanted.insert(wanted.end(), kernels[i], true);
  }
  return wanted;
}

CounterMode counter_mode(const CounterLayout& layout, CounterMode configured) {
  if (std::holds_alternative<UserKernelRanges>(layout)) return CounterMode::kUserRanges;
  if (const auto* whole = std::get_if<WholeRange>(&layout); whole != nullptr && whole->graph_launches)
    return CounterMode::kWholeRange;
  return configured;
}

std::size_t counter_ranges(const CounterLayout& layout, std::size_t kernels) {
  if (const auto* automatic = std::get_if<AutoKernelRanges>(&layout))
    return kernels + (automatic->lead_in_flush ? 1 : 0);
  if (std::holds_alternative<UserKernelRanges>(layout)) return kernels;
  return 1;
}

bool per_kernel_values(const CounterLayout& layout) {
  return std::holds_alternative<AutoKernelRanges>(layout) || std::holds_alternative<UserKernelRanges>(layout);
}

const char* counter_ranges_name(const CounterLayout& layout) {
  if (std::holds_alternative<AutoKernelRanges>(layout)) return "auto";
  if (std::holds_alternative<UserKernelRanges>(layout)) return "user";
  return "whole";
}

bool has_lead_in_flush(const CounterLayout& layout) {
  const auto* automatic = std::get_if<AutoKernelRanges>(&layout);
  return automatic != nullptr && automatic->lead_in_flush;
}

const std::size_t* standing_counter_range(const CounterLayout& layout) {
  const auto* standing = std::get_if<StandingRange>(&layout);
  return standing != nullptr ? &standing->index : nullptr;
}

}  // namespace rangereplay::tool
