// JSON forms of the parsed range selection: the launcher parses
// --nvtx-include/--nvtx-exclude, --kernel-range and --skip/--range-count/
// --range-list once and writes the values into the configuration; the
// injection reads the values back without parsing any expression text.
//
//   NVTX expression  {"text": "D@[A/*/B", "kind": "push_pop" | "start_end",
//                     "domain": null | {"name": "D", "regex": false},
//                     "bottom_anchored": true, "top_anchored": false,
//                     "elements": [{"kind": "name", "name": "A", "regex": false},
//                                  {"kind": "any_many"},  // also "any_one"
//                                  {"kind": "name", "name": "B", "regex": false}]}
//   kernel windows   [{"first": 100, "end": 164}, ...]  launch indices, end exclusive
//   range selector   [{"first": 2, "last": 2}, {"first": 5, "last": null}]  last inclusive,
//                                                       null: to the end of the process
//
// A regex name holds the pattern handed to RE2 ("regex": true) and is
// compiled again on reading, with the same options and memory bound
// (NameMatcher::compile). The readers check what the parsers guarantee
// (a regex compiles, a push/pop pattern starts and ends with a name, a
// start/end expression has names only, windows ascend without overlap, a
// span's last is not below its first) and fail with kInvalidArgument naming
// the field by its path, `field` being the path of the value read
// ("nvtx_include[0].elements[1].kind: unknown value 'all'; one of name, ...").
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/base/status.h"
#include "core/range/kernel_windows.h"
#include "core/range/nvtx_expression.h"
#include "core/range/range_selector.h"

namespace rangereplay::range {

nlohmann::json nvtx_expression_json(const NvtxExpression& expression);
StatusOr<NvtxExpression> nvtx_expression_from_json(const nlohmann::json& j, std::string_view field);

nlohmann::json kernel_windows_json(const KernelWindows& windows);
StatusOr<KernelWindows> kernel_windows_from_json(const nlohmann::json& j, std::string_view field);

nlohmann::json range_selector_json(const RangeSelector& selector);
StatusOr<RangeSelector> range_selector_from_json(const nlohmann::json& j, std::string_view field);

}  // namespace rangereplay::range
