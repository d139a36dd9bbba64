// The error of a range option's text that failed to parse at one column, as
// every range option's parser (NVTX expressions, kernel windows, range lists)
// words it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace rangereplay::range {

/// kInvalidArgument "<option> '<text>': <problem> at column <c>; <hint>", c
/// being `column` + 1 (1-based, as editors count). Stores the 0-based
/// `column` in *error_column unless error_column is null. Thread-safety: pure.
inline Status column_parse_error(std::string_view option, std::string_view text, std::size_t column,
                                 std::string_view problem, std::string_view hint, std::size_t* error_column) {
  if (error_column) *error_column = column;
  return invalid_argument(std::string(option) + " '" + std::string(text) + "': " + std::string(problem) +
                          " at column " + std::to_string(column + 1) + "; " + std::string(hint));
}

}  // namespace rangereplay::range
