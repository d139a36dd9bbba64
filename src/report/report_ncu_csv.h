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
// separators.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "report/report_model.h"

namespace rangereplay::report {

/// ncu's --page details layout (see above).
std::string render_ncu_details_csv(const Report& report);

/// ncu's --page raw layout (see above); metric columns in the report's
/// metric order.
std::string render_ncu_raw_csv(const Report& report);

}  // namespace rangereplay::report
