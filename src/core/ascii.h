// ASCII case folding for names the user types (metric names, file
// extensions, size units): one definition instead of a std::tolower loop per
// caller. Only 'A'-'Z' change; other bytes (UTF-8 included) pass through, so
// the result does not depend on the process locale.
//
//   if (ascii_lower(extension) == ".csv") ...
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace rangereplay {

/// `c` with 'A'-'Z' mapped to 'a'-'z'.
constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// A copy of `s` with 'A'-'Z' mapped to 'a'-'z' (same length).
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

}  // namespace rangereplay
