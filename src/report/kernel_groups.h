// A range's kernels grouped by a short name, for reading a range of hundreds
// of kernels (a training step) as a few dozen kinds of work: every launch of
// `void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<
// float>, std::array<char*, 1ul> >(int, ...)` and of its other instantiations
// is one group `vectorized_elementwise_kernel`, with its count, its total
// time, its share of the range's kernel time and its duration-weighted Speed
// Of Light throughputs.
//
// Metrics read (per kernel, as the full and basic sets name them):
//   gpu__time_duration.sum (its unit: nanosecond, usecond, msecond or second)
//   gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed (SOL memory)
//   sm__throughput.avg.pct_of_peak_sustained_elapsed (SOL compute)
// A kernel without a metric is counted in its group and left out of that
// metric's sums; a range with whole-range values (no per-kernel metrics) gets
// its groups with counts only.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/kernel_sections.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// One group of a range's kernels that share a short name.
struct KernelGroup {
  std::string short_name;
  std::vector<std::string> full_names;        // distinct full (demangled) names, in order of first launch
  std::vector<std::uint32_t> kernel_indices;  // the members' KernelRecord::index, in launch order
  std::size_t kernels_with_duration = 0;      // members with a duration metric
  double total_ns = 0;                        // sum of the members' durations, nanoseconds
  double share_pct = 0;                       // total_ns in percent of the range's kernel time (0 when it has none)
  // Duration-weighted means over the members with both the duration and the
  // metric, percent; nullopt when no member has both.
  std::optional<double> sol_memory_pct;
  std::optional<double> sol_compute_pct;
  // What limits the group (guidance.h's classify_bottleneck: "memory",
  // "compute" or "latency") and its top stall reason (top_stalls), each the
  // one with the most of the group's time (each member weighs its duration,
  // or 1 when the group has no durations); "" when no member has the metrics.
  std::string bottleneck;
  std::string top_stall;
  // Per member, in kernel_indices' order: its own bottleneck and top stall
  // ("" without the metrics).
  std::vector<std::string> member_bottlenecks;
  std::vector<std::string> member_top_stalls;
  std::size_t count() const { return kernel_indices.size(); }
};

/// A range's groups, largest total time first.
struct KernelGroups {
  std::vector<KernelGroup> groups;
  double total_ns = 0;  // the range's kernel time: every kernel's duration, nanoseconds
  std::size_t kernels_with_duration = 0;
};

/// The short name of a kernel name: the function's own name, without return
/// type, namespaces and classes, template arguments and parameter list
/// ("void ns::(anonymous namespace)::f<int, g<2> >(int*) const" -> "f";
/// "ns::Functor::operator()(int)" -> "operator()"). A name without a parameter
/// list (an extern "C" kernel, or a mangled name the demangler rejected) is its
/// own short name; an empty name or one whose brackets do not balance is
/// returned unchanged.
std::string kernel_short_name(std::string_view name);

/// The range's kernels grouped by kernel_short_name of their demangled name
/// (KernelRecord::name, else the demangling of mangled_name), sorted by total
/// time, largest first (ties: more kernels first, then by short name).
/// Durations in other units than nanoseconds are converted; a duration in a
/// unit not known here is left out as if missing.
KernelGroups group_kernels(const RangeRecord& range);

}  // namespace rangereplay::report
