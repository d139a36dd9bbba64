// Named metric sets (`--set NAME`) and the expansion of `--metrics a,b` plus
// `--set NAME` into the one list of metric names the profiler collects.
//
// The set names follow Nsight Compute where one exists (`basic`, `detailed`,
// `full`); `memory`, `compute` and `single-pass` are ours. Every name in every
// set is a GH100 (H100/H200) metric in Nsight Compute's spelling, and the test
// tests/cupti_host/metric_catalog_host_test.cpp checks each against CUPTI's host
// API for GH100, together with each set's pass count. Pass counts measured
// with the CUDA 13 CUPTI host API for GH100 (no counter-availability image):
//   single-pass 1, basic 9, memory 12, compute 12, detailed 14, full 32.
// Other chips may lack some names; the metric catalog reports those.
//
// Sets hold names only, no CUPTI types, so this lives in core and is tested
// without a GPU.
//
//   RR_ASSIGN_OR_RETURN(auto names, expand_metric_list("dram__bytes_read.sum", "basic"));
//
// Thread-safety: metric_sets() is built once on first use (thread-safe static
// initialisation) and is immutable afterwards; the functions are pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace rangereplay {

struct MetricSet {
  std::string name;                  // e.g. "basic"
  std::string description;           // one line for `--list-sets`
  std::vector<std::string> metrics;  // full metric names, no duplicates, display order
};

/// The set used when neither --metrics nor --set is given.
inline constexpr std::string_view kDefaultMetricSetName = "basic";

/// All built-in sets, cheapest first: single-pass, basic, memory, compute,
/// detailed, full.
const std::vector<MetricSet>& metric_sets();

/// The set called `name` (exact, case-sensitive), or kInvalidArgument naming
/// the known sets and the closest one: "unknown metric set 'ful'; did you mean
/// 'full'? known sets: single-pass, basic, ...".
StatusOr<const MetricSet*> find_metric_set(std::string_view name);

/// Splits a comma-separated metric list: surrounding whitespace is trimmed and
/// empty items are skipped ("a, b,,c " -> a, b, c). Names are not checked.
std::vector<std::string> split_metric_csv(std::string_view metrics_csv);

/// The metrics to collect for `--metrics metrics_csv --set set_name`: first
/// the explicit metrics in the order given, then the set's metrics, each name
/// once (first occurrence wins). An empty `set_name` means no set. Both empty
/// gives an empty list; the caller then applies kDefaultMetricSetName.
/// Errors: an unknown set name (kInvalidArgument, see find_metric_set).
/// Metric names are not validated here (MetricCatalog::validate does that).
StatusOr<std::vector<std::string>> expand_metric_list(std::string_view metrics_csv, std::string_view set_name);

}  // namespace rangereplay
