// ASCII case folding for names the user types (metric names, file
// extensions, size units): one definition instead of a std::tolower loop per
// caller. Only 'A'-'Z' change; other bytes (UTF-8 included) pass through, so
// the result does not depend on the process locale. And strict unsigned
// decimal numbers (option values, RANGEREPLAY_GATE), also locale-free. And
// the one escaping of text from a report or an application (range and kernel
// names, command lines) before it reaches a terminal, so a name cannot move
// the cursor, retitle the window or clear the screen.
//
//   if (ascii_lower(extension) == ".csv") ...
//   std::uint32_t n; if (!parse_unsigned_decimal(text, n)) ...
//   std::cerr << "range '" << escape_controls(name) << "'\n";
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

/// Whether escape_controls leaves line breaks as they are.
enum class LineBreaks { kEscape, kKeep };

/// `text` with every byte a terminal could act on written as visible text,
/// everything else unchanged (printable ASCII and well-formed UTF-8 of
/// printable characters, e.g. "größe" or "梯度"):
///   - C0 controls 0x00-0x1f and DEL 0x7f as "\x1b", "\x07", "\x0d", "\x7f"
///     ('\n' too unless `line_breaks` is kKeep, for whole rendered texts);
///   - C1 controls U+0080-U+009F (UTF-8 0xc2 0x80-0x9f) as "\u009b";
///   - bytes that are not well-formed UTF-8 (a lone 0x9b, a truncated or
///     overlong sequence, an encoded surrogate) as "\xNN" each.
/// A backslash is not escaped: "\x1b" in the output may also be those four
/// characters in the name. Thread-safety: pure function.
std::string escape_controls(std::string_view text, LineBreaks line_breaks = LineBreaks::kEscape);

}  // namespace rangereplay
