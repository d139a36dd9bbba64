// RangeReporter: a range's record in the report (report::RangeRecord) as the
// range ends: its decline fields (and the decline line on stderr), its notes,
// its window times, its kernels and their counter values.
//
//   RangeReporter reporter(config.quiet);
//   reporter.record_decline(record, DeclineReason::kOverlappingRange, "began while ...");
//   reporter.finish_record(record, eligibility, program.skipped_device_to_host, modules_loaded, window_ms);
//   record_kernels(record, program, per_kernel, columns, values);
//
// CUDA-free (tests/unit/tool/range_report_test.cpp). Thread-safety: values
// and the caller's records; callers serialize (the tool's lock).
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "core/base/decline_reason.h"
#include "core/base/status.h"
#include "core/record/recorded_program.h"
#include "report/report_model.h"

namespace rangereplay::tool {

/// The metric list's names and units, in the order of each row of values
/// (MetricEvaluator::metrics() and units()).
struct MetricColumns {
  std::span<const std::string> names;
  std::span<const std::string> units;
};

/// One MetricValue per metric of `columns` that `values` has (the shorter of
/// the two).
std::vector<report::MetricValue> metric_values(const MetricColumns& columns, std::span<const double> values);

/// The report record of kernel launch `k`, number `index` in its range:
/// names (mangled and demangled), grid, block, shared memory, launch number
/// and stream; no values.
report::KernelRecord kernel_record(const KernelLaunchOp& k, std::uint32_t index);

/// Appends `record`'s kernel records for `program`'s recorded kernels (plain
/// launches and graph kernel nodes, with their launch streams), with their
/// counter values where `values` (one row per counter range) has them:
/// `per_kernel`, each kernel's counter range (map_counter_ranges), with notes
/// when CUPTI's ranges do not match the kernels or a graph launch was one
/// range; otherwise values[0] as the range's metrics.
void record_kernels(report::RangeRecord& record, const RecordedProgram& program, bool per_kernel,
                    const MetricColumns& columns, const std::vector<std::vector<double>>& values);

/// The error of a pass whose decoded counter data holds `returned` counter
/// ranges where it opened those `opened` describes ("the 4 of the batch"):
/// an internal error carrying DeclineReason::kCounterRangesMismatch,
/// "CUPTI returned <returned> counter ranges for <opened>", then the
/// `dropped` ranges CUPTI's decode reported when above 0, and the first 12
/// of CUPTI's `names` for the returned ranges, each cut at 48 characters.
Status counter_ranges_mismatch(std::size_t returned, const std::string& opened, std::size_t dropped = 0,
                               std::span<const std::string> names = {});

/// Counter ranges a pass whose first counter range was a lead-in flush's
/// returns for `kernels` kernels: one more than the kernels under CUPTI's
/// auto ranges, two (the lead-in and the range) when `whole_range`.
std::size_t lead_in_counter_ranges(std::size_t kernels, bool whole_range);

/// OK when `returned` is lead_in_counter_ranges(kernels, whole_range) and
/// none was `dropped`; otherwise counter_ranges_mismatch() naming the lead-in
/// and the kernels (a row more or fewer would shift every value onto the
/// wrong kernel; one dropped from a full image was one more).
Status check_lead_in_ranges(std::size_t returned, std::size_t kernels, bool whole_range, std::size_t dropped = 0,
                            std::span<const std::string> names = {});

class RangeReporter {
 public:
  /// `quiet`: no decline lines; `out`: where they go (stderr in the tool).
  explicit RangeReporter(bool quiet, std::FILE* out = stderr) : quiet_(quiet), out_(out) {}

  /// Fills `record`'s decline fields (the reason's fix appended to
  /// `detail`) and prints the decline unless quiet.
  void record_decline(report::RangeRecord& record, DeclineReason reason, const std::string& detail) const;
  /// record_decline with `eligibility`'s reason and detail, when it declined.
  void report_decline(report::RangeRecord& record, const Eligibility& eligibility) const;
  /// At a range's end: its decline, its notes (device-to-host copies not
  /// replayed, modules loaded inside it), the window's time (`window_ms`)
  /// and the tool's own part of it (other_ms).
  void finish_record(report::RangeRecord& record, const Eligibility& eligibility, std::uint32_t skipped_device_to_host,
                     std::uint32_t modules_loaded, double window_ms) const;

 private:
  bool quiet_;
  std::FILE* out_;
};

}  // namespace rangereplay::tool
