// Named metric sets (`--set NAME`), the sections they are made of, and the
// expansion of `--metrics a,b` plus `--set NAME` into the one list of metric
// names the profiler collects on a given chip.
//
// A set is a list of sections, the same on every chip. A section (Speed Of
// Light, Compute Workload Analysis, Memory Workload Analysis, Warp State and
// Scheduler Statistics, ...: the parts of an Nsight Compute report) is a list
// of metric roles. A role is named by its GH100 (H100/H200) metric name in
// Nsight Compute's spelling; on another chip it resolves to the first of its
// spellings (role_spellings) that chip has, as Nsight Compute's section files
// name a metric per architecture: Blackwell renames some DRAM counters
// (dram__bytes_read -> dram__bytes_op_read on GB20x) and tensor pipes
// (tensor_op_hmma -> tensor_subpipe_hmma). A role a chip has under no
// spelling (the Hopper-only lrc__ and TMA units on Ampere and Ada, DRAM on the
// integrated GA10B/GB10B/GB20B, L2 aperture breakdowns on Blackwell) is
// missing on that chip: the set still resolves, and the launcher, the report
// and metrics-probe name what is missing.
//
// The set names follow Nsight Compute where one exists (`basic`, `detailed`,
// `full`); `memory`, `compute`, `single-pass` and `triage` are ours. The test
// tests/cupti_host/metric_sets_all_chips_test.cpp resolves and schedules
// every set on every chip CUPTI's host API knows from Ampere on and prints
// the passes; docs/performance.md has that table.
//
// Sets hold names only, no CUPTI types, so this lives in core and is tested
// without a GPU; whether a chip has a name is the caller's MetricPresence
// (MetricCatalog::contains on the chip).
//
//   RR_ASSIGN_OR_RETURN(auto list, resolve_metric_list("", "basic",
//       [&](const std::string& n) { return catalog.contains(n); }));
//   // list.metrics: what to collect; list.missing: roles the chip lacks
//
// Thread-safety: the tables are built once on first use (thread-safe static
// initialisation) and are immutable afterwards; the functions are pure
// (resolve_* call `chip_has` on the calling thread).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace rangereplay {

/// One part of a report: a list of metric roles.
struct MetricSection {
  std::string name;                // e.g. "SpeedOfLight", as Nsight Compute names its section files
  std::string title;               // e.g. "Speed Of Light", for listings
  std::vector<std::string> roles;  // role names (GH100 spelling), no duplicates, display order
};

struct MetricSet {
  std::string name;                   // e.g. "basic"
  std::string description;            // one line for `--list-sets`
  std::vector<std::string> sections;  // MetricSection names, in order
  std::vector<std::string> metrics;   // the sections' roles, each once, in order (GH100 spelling)
};

/// The set used when neither --metrics nor --set is given.
inline constexpr std::string_view kDefaultMetricSetName = "basic";
/// The set profiled by PM sampling in the application's own run (no
/// snapshot, no replay): each range's totals and its samples over time.
inline constexpr std::string_view kTriageSetName = "triage";

/// All built-in sets, cheapest first: single-pass, triage, basic, memory,
/// compute, detailed, full. (triage is counted by PM sampling, the others by
/// the range profiler.)
const std::vector<MetricSet>& metric_sets();

/// Every section any set uses, in the order the sets first use them.
const std::vector<MetricSection>& metric_sections();

/// The section called `name`, or nullptr.
const MetricSection* find_metric_section(std::string_view name);

/// The set called `name` (exact, case-sensitive), or kInvalidArgument naming
/// the known sets and the closest one: "unknown metric set 'ful'; did you mean
/// 'full'? known sets: single-pass, basic, ...".
StatusOr<const MetricSet*> find_metric_set(std::string_view name);

/// The names `role` has across chips, in order of preference: the role
/// itself (its GH100 spelling) first, then other chips' spellings. A name that
/// is no role gives just itself.
std::vector<std::string> role_spellings(std::string_view role);

/// Whether the chip at hand has the full metric name given. Called on the
/// caller's thread; must not throw.
using MetricPresence = std::function<bool(const std::string& name)>;

/// A metric list resolved for one chip.
struct ResolvedMetrics {
  std::vector<std::string> metrics;  // names to collect, in the chip's spelling, each once
  std::vector<std::string> missing;  // roles of the set the chip has under no spelling (role names)
  friend bool operator==(const ResolvedMetrics&, const ResolvedMetrics&) = default;
};

/// Each role of `roles` in the first spelling `chip_has` accepts; a role with
/// none goes to `missing`. Duplicates (after resolution) are kept once.
ResolvedMetrics resolve_roles(const std::vector<std::string>& roles, const MetricPresence& chip_has);

/// Splits a comma-separated metric list: surrounding whitespace is trimmed and
/// empty items are skipped ("a, b,,c " -> a, b, c). Names are not checked.
std::vector<std::string> split_metric_csv(std::string_view metrics_csv);

/// The metrics to collect on a chip for `--metrics metrics_csv --set
/// set_name`: first the explicit metrics in the order given, as typed (they
/// are not resolved: a name the chip lacks is the caller's error to report,
/// MetricCatalog::validate), then the set's roles resolved with resolve_roles,
/// each name once (first occurrence wins). An empty `set_name` means no set.
/// Errors: an unknown set name (kInvalidArgument, see find_metric_set).
StatusOr<ResolvedMetrics> resolve_metric_list(std::string_view metrics_csv, std::string_view set_name,
                                              const MetricPresence& chip_has);
/// resolve_metric_list with the explicit metrics already split.
StatusOr<ResolvedMetrics> resolve_metric_list(const std::vector<std::string>& explicit_metrics,
                                              std::string_view set_name, const MetricPresence& chip_has);

/// resolve_metric_list without a chip: the set's roles in their GH100
/// spelling, nothing missing. Both empty gives an empty list; the caller then
/// applies kDefaultMetricSetName. Errors: an unknown set name. Metric names
/// are not validated here (MetricCatalog::validate does that).
StatusOr<std::vector<std::string>> expand_metric_list(std::string_view metrics_csv, std::string_view set_name);

}  // namespace rangereplay
