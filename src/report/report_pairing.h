// How reports are lined up with each other, shared by `diff` (two reports,
// report_diff.h) and `merge` (the reports of a job's ranks, report_merge.h):
// ranges are keyed by name and instance ("step #0": the first range named
// step), kernels by name, grid and block, metric values by name; GPUs are
// named alike in both tools' messages (non-finite values go to JSON through
// report_json.h's json_number).
//
//   for (const auto& [key, range] : numbered(report.ranges, range_name)) ...   // "step #0", "step #1"
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/report_model.h"

namespace rangereplay::report {

/// Each item keyed by `key_of(item)` and its instance among items of that
/// key, in order: {"step", "eval", "step"} -> "step #0", "eval #0", "step #1".
/// The pointers point into `items`, which must outlive the result.
template <class T, class KeyOf>
std::vector<std::pair<std::string, const T*>> numbered(const std::vector<T>& items, KeyOf key_of) {
  std::map<std::string, int> seen;
  std::vector<std::pair<std::string, const T*>> out;
  out.reserve(items.size());
  for (const T& item : items) {
    std::string key = key_of(item);
    const int instance = seen[key]++;
    out.emplace_back(std::move(key) + " #" + std::to_string(instance), &item);
  }
  return out;
}

/// A range's pairing key before its instance: its name.
std::string range_name(const RangeRecord& range);

/// A kernel's pairing key: its name, grid and block, "scale(float*, int) (1024,1,1)x(256,1,1)".
std::string kernel_key(const KernelRecord& kernel);

/// The first difference between two kernel sequences, compared by
/// kernel_key in launch order, as one phrase naming both sides by their
/// labels ("rank 0", "run 2"); nullopt when they are alike. E.g. "kernel 3
/// is 'scale(float*, int) (64,1,1)x(256,1,1)' in run 2 and 'add(...) ...' in
/// run 4", or "run 4 ends after 5 kernels; run 2's kernel 5 is '...'".
/// Thread-safe (pure).
std::optional<std::string> kernel_sequence_difference(const std::vector<KernelRecord>& reference,
                                                      std::string_view reference_label,
                                                      const std::vector<KernelRecord>& other,
                                                      std::string_view other_label);

/// `metrics` by name; a name given twice keeps its first value. The pointers
/// point into `metrics`.
std::map<std::string, const MetricValue*> metrics_by_name(const std::vector<MetricValue>& metrics);

/// The report's GPU for messages: "NVIDIA H200 (GH100)".
std::string gpu_of(const Report& report);

}  // namespace rangereplay::report
