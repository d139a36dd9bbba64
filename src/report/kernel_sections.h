// One kernel's metrics as Nsight Compute's report sections show them: GPU
// Speed Of Light Throughput (with its breakdown by unit), Memory Workload
// Analysis (L1/TEX, L2 and DRAM tables), Compute Workload Analysis, Launch
// Statistics, Occupancy, Scheduler Statistics, Warp State Statistics and
// Instruction Statistics. Each row has a label for people, a unit and a value
// formatted with the unit's fixed number of decimals (format_quantity).
//
// Which metric goes in which section follows core/config/metric_sets.h's sections
// (themselves Nsight Compute's section files); a row names its metric by role
// (GH100 spelling) and finds it in the kernel under any of the role's
// spellings (role_spellings), so a report of any chip from Ampere on shows
// the same rows. A metric the kernel lacks leaves its row out; a section
// without rows is left out. Launch Statistics also shows the launch's own
// grid, block and dynamic shared memory, which every kernel record has.
//
//   for (const KernelSection& s : kernel_sections(kernel))
//     for (const SectionRow& row : s.rows) fmt::print("{} {} {}\n", row.label, row.value, row.unit);
//
// Thread-safety: pure functions; the section table is built once on first use
// (thread-safe static initialisation) and is immutable afterwards.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/report_model.h"

namespace rangereplay::report {

/// Nsight Compute's headline roles (GH100 spelling): a kernel's duration and
/// its Speed Of Light compute (SM) and memory throughputs, percent of peak.
inline constexpr std::string_view kDurationRole = "gpu__time_duration.sum";
inline constexpr std::string_view kSolComputeRole = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr std::string_view kSolMemoryRole = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";

/// How a row's value is shown. Decimals are fixed per kind.
enum class QuantityKind {
  kPercent,         // "47.47" "%" (2 decimals)
  kBytes,           // "25.54" "MiB": binary prefixes, 2 decimals; below 1 KiB whole bytes "512" "B"
  kBytesPerSecond,  // "2.28" "TB/s": decimal prefixes as bandwidths are quoted, 2 decimals
  kFrequency,       // "1.96" "GHz" from a value in Hz (per second), 2 decimals
  kDuration,        // from nanoseconds: "960" "ns" (whole), "11.74" "us", "1.23" "ms", "2.50" "s"
  kCount,           // "3,145,772": rounded, thousands grouped; the unit is the row's noun ("inst")
  kCycles,          // "23,065" "cycle": rounded, thousands grouped
  kRatio,           // "2.63" with the row's noun as unit ("cycle", "warp", "sector/request"), 2 decimals
};

/// A value in a kind: {value text, unit text}. `noun` is the unit of kCount
/// and kRatio (may be empty). NaN gives "n/a", infinities "inf"/"-inf".
struct Quantity {
  std::string value;
  std::string unit;
  friend bool operator==(const Quantity&, const Quantity&) = default;
};
Quantity format_quantity(double value, QuantityKind kind, std::string_view noun = {});

/// One line of a section.
struct SectionRow {
  std::string group;   // sub-table within the section ("" for the section's headline rows, "L2", ...)
  std::string label;   // e.g. "Memory Throughput"
  std::string metric;  // the metric it shows as named in the kernel, or "" for a launch field
  double raw = 0;      // the value as collected (before any scaling for display)
  std::string value;   // formatted, see QuantityKind
  std::string unit;
};

/// One section of one kernel.
struct KernelSection {
  std::string name;   // e.g. "SpeedOfLight"
  std::string title;  // e.g. "GPU Speed Of Light Throughput"
  std::vector<SectionRow> rows;
};

/// What a row of the section table shows: a metric role (GH100 spelling),
/// scaled by `scale` for display (e.g. a fraction shown as a percentage).
struct SectionRowSpec {
  std::string_view group;
  std::string_view label;
  std::string_view role;
  QuantityKind kind;
  std::string_view noun = {};
  double scale = 1;
};

struct SectionSpec {
  std::string_view name;
  std::string_view title;
  std::vector<SectionRowSpec> rows;
  bool sort_by_value = false;  // rows of a group after the first shown largest first (stall reasons)
};

/// The section table, in display order.
const std::vector<SectionSpec>& kernel_section_specs();

/// A kernel's metric values by the names it has them under.
using MetricLookup = std::unordered_map<std::string, double>;
MetricLookup metric_lookup(const KernelRecord& kernel);

/// The value of `role` in `metrics` under the first of its spellings
/// (role_spellings) present, or nullopt.
std::optional<double> role_value(const MetricLookup& metrics, std::string_view role);

/// The sections of `kernel`, in kernel_section_specs() order, without rows for
/// metrics it lacks and without empty sections.
std::vector<KernelSection> kernel_sections(const KernelRecord& kernel);

}  // namespace rangereplay::report
