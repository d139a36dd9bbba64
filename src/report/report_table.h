// The report as terminal text, laid out like Nsight Compute's per-kernel
// sections so its users read it without a legend:
//
//   range 0 'step': 3 passes, 2 kernels, footprint 256.0 MiB, window 61.2 ms
//     stages: sync 0.120 ms, capture 1.50 ms, restore 3.00 ms, submit 0.400 ms, ...
//     snapshot: 4 regions; device 192.0 MiB (arena 256.0 MiB, new)
//     kernel 0: scale(float*, int) (1024, 1, 1)x(256, 1, 1)
//       -------------------- ----------- ------------
//       Metric Name          Metric Unit Metric Value
//       -------------------- ----------- ------------
//       dram__bytes_read.sum        byte    6,291,488
//       -------------------- ----------- ------------
//     restored per pass (differential, footprint 256.0 MiB): passes 1-2 3.0 MiB each
//     samples: 12 PM samples over 3.45 ms (the JSON and HTML reports hold the series)
//   range 1 'step': declined (free_in_range): <detail>
//
// Metric columns are aligned across all kernels of one range. Values are
// printed for people (format_metric_value); JSON/CSV carry the exact ones.
// Text from the report (names, command, environment, details) is written
// through escape_controls (core/base/ascii.h): a control byte in a name shows as
// "\x1b", never reaching the terminal; a name's line break too, so one
// name stays on one line. Lines never end in spaces. Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>

#include "report/report_model.h"

namespace rangereplay::report {

struct TableOptions {
  /// Kernel names longer than this many bytes are shortened in the middle
  /// ("void cutlass::Kernel<...>(Params)"); see truncate_middle.
  std::size_t max_kernel_name_width = 160;
};

/// The run's preamble: tool version and pid, device, command, metric list
/// summary. Lines for unknown (empty) values are left out.
std::string render_report_header(const Report& report);

/// One range's section (header line, stages, snapshot, kernels with their
/// metric tables, whole-range metrics, restores, verify result, notes), or
/// one line for a declined range (plus its notes). `report` supplies the
/// run-wide settings (verify). Usable while the report is still filling.
std::string render_range_table(const Report& report, const RangeRecord& range, const TableOptions& options = {});

/// The line of a range's PM samples (--set triage): "  samples: 12 PM
/// samples over 3.45 ms (the JSON and HTML reports hold the series)\n", the
/// span from the first sample's start to the last one's end; "" for a range
/// without samples.
std::string render_samples_line(const RangeRecord& range);

/// The summary line's text: "2 ranges (1 replayed, 1 declined), 5 kernels,
/// 3 passes, 1 error" (no line end).
std::string render_report_summary(const Report& report);

/// One "error: ..." line per error, then the summary line:
/// "summary: 2 ranges (1 replayed, 1 declined), 5 kernels, 3 passes, 1 error".
std::string render_report_footer(const Report& report);

/// Header, every range, and footer, separated by blank lines.
std::string render_report_table(const Report& report, const TableOptions& options = {});

}  // namespace rangereplay::report
