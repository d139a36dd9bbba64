// ASCII case folding for names the user types (metric names, file
// extensions, size units): one definition instead of a std::tolower loop per
// caller. Only 'A'-'Z' change; other bytes (UTF-8 included) pass through, so
// the result does not depend on the process locale. And strict unsigned
// decimal numbers (option values, RANGEREPLAY_GATE), also locale-free.
//
//   if (ascii_lower(extension) == ".csv") ...
//   std::uint32_t n; if (!parse_unsigned_decimal(text, n)) ...
//
// Thread-safety: pure functions.
#pragma once

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>
#include <system_error>

namespace rangereplay {

/// `c` with 'A'-'Z' mapped to 'a'-'z'.
constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// A copy of `s` with 'A'-'Z' mapped to 'a'-'z' (same length).
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

/// Parses `text` as an unsigned decimal number that fits in T: digits only
/// (no sign, spaces, base prefix or trailing characters), at least one.
/// Returns false, leaving `out` unspecified, otherwise.
template <std::unsigned_integral T>
bool parse_unsigned_decimal(std::string_view text, T& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

}  // namespace rangereplay
