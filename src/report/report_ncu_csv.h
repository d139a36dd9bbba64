// The report as the CSV that `ncu --csv --print-units base` writes, so that
// scripts written for Nsight Compute's output read it unchanged:
//   details: ncu's --page details, one row per result and metric, columns
//     "ID","Process ID","Process Name","Host Name","Kernel Name","Context",
//     "Stream","Block Size","Grid Size","Device","CC","Section Name",
//     "Metric Name","Metric Unit","Metric Value", every field quoted;
//   raw: ncu's --page raw, one row per result with one column per metric
//     after the same first eleven columns, and a units row under the header.
// A result is a replayed kernel, or with whole-range values a replayed
// range, named as ncu's range replay names range results (its range's name);
// IDs count results from 0 in report order. Declined ranges have no result.
// The report records no host name, context or device ordinal: "Host Name" is
// empty, "Context" is 1 and "Device" is 0 (one profiled context per process).
// Values are written exactly (format_exact_number), without thousands
// separators. Units are written as ncu spells them (ncu_base_unit).
// ncu run with --nvtx adds two columns of NVTX ranges after "Host Name"; these
// pages have none (ncu's layout without --nvtx): readers that find columns by
// name read either.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "report/report_model.h"

namespace rangereplay::report {

/// The unit `unit` (as the counters' metric evaluator names it, e.g.
/// "l2_sector", "dram_cycle/second", "percent") as ncu 2025's
/// `--print-units base` writes it ("sector", "hz", "%"): each part of a
/// quotient is renamed (any "<unit>_cycle" is "cycle", "instruction" is
/// "inst", "l2_sector" and "lrc_sector" are "sector", "l2_request" is
/// "request", "cta" is "block", "branch_target" is "branches", "second" is
/// "s", "nanosecond" is "ns", "percent" is "%"); the kinds ncu leaves without
/// a unit ("l1tex_request", "l1tex_wavefront", "l1data_bank_conflict",
/// "math_op") become empty, and a quotient by one of them is its numerator's
/// unit; "cycle/s" is "hz". Units not listed are kept. The table is what ncu
/// printed for the `full` set's metrics on an H200.
std::string ncu_base_unit(std::string_view unit);

/// ncu's --page details layout (see above).
std::string render_ncu_details_csv(const Report& report);

/// ncu's --page raw layout (see above); metric columns in the report's
/// metric order.
std::string render_ncu_raw_csv(const Report& report);

}  // namespace rangereplay::report
