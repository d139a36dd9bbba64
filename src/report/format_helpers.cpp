// Number, size, duration and text helpers for the report renderers
// (format_helpers.h).
#include "report/format_helpers.h"

#include <fmt/format.h>
#include <array>
#include <cmath>

namespace rangereplay::report {
namespace {

constexpr double kIntegralLimit = 1e18;  // below INT64_MAX, so the cast is exact

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// True for a byte that continues a UTF-8 sequence (10xxxxxx).
bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::string format_non_finite(double value, const char* nan_text) {
  if (std::isnan(value)) return nan_text;
  return value > 0 ? "inf" : "-inf";
}

}  // namespace

std::string group_thousands(std::string_view decimal) {
  std::size_t start = (!decimal.empty() && decimal[0] == '-') ? 1 : 0;
  if (start >= decimal.size() || !is_digit(decimal[start])) return std::string(decimal);
  std::size_t end = start;
  while (end < decimal.size() && is_digit(decimal[end])) ++end;
  std::string out(decimal.substr(0, start));
  const std::size_t digits = end - start;
  for (std::size_t i = 0; i < digits; ++i) {
    if (i > 0 && (digits - i) % 3 == 0) out.push_back(',');
    out.push_back(decimal[start + i]);
  }
  out.append(decimal.substr(end));
  return out;
}

std::string format_integer(std::int64_t value) { return group_thousands(fmt::format("{}", value)); }
std::string format_integer(std::uint64_t value) { return group_thousands(fmt::format("{}", value)); }

std::string format_metric_value(double value) {
  if (!std::isfinite(value)) return format_non_finite(value, "n/a");
  const double magnitude = std::fabs(value);
  if (magnitude < kIntegralLimit && value == std::trunc(value)) {
    return format_integer(static_cast<std::int64_t>(value));
  }
  if (magnitude < 0.01 || magnitude >= kIntegralLimit) return fmt::format("{:.2e}", value);
  return group_thousands(fmt::format("{:.2f}", value));
}

std::string format_exact_number(double value) {
  if (!std::isfinite(value)) return format_non_finite(value, "nan");
  if (std::fabs(value) < kIntegralLimit && value == std::trunc(value)) {
    return fmt::format("{}", static_cast<std::int64_t>(value));
  }
  return fmt::format("{}", value);  // fmt prints the shortest round-trip form
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 7> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  std::size_t unit = 0;
  double scaled = static_cast<double>(bytes);
  while (scaled >= 1024.0 && unit + 1 < kUnits.size()) {
    scaled /= 1024.0;
    ++unit;
  }
  std::string text = fmt::format("{:.1f}", scaled);
  if (text == "1024.0" && unit + 1 < kUnits.size()) {  // e.g. 1 MiB - 1 byte
    text = "1.0";
    ++unit;
  }
  return fmt::format("{} {}", text, kUnits[unit]);
}

std::string format_ms(double ms) {
  if (!std::isfinite(ms)) return format_non_finite(ms, "n/a") + " ms";
  const double magnitude = std::fabs(ms);
  const int decimals = magnitude < 1.0 ? 3 : magnitude < 10.0 ? 2 : 1;
  return group_thousands(fmt::format("{:.{}f}", ms, decimals)) + " ms";
}

std::string format_dim3(const Dim3& dim) { return fmt::format("({}, {}, {})", dim.x, dim.y, dim.z); }

std::string format_address(std::uint64_t address) { return fmt::format("{:#x}", address); }

std::string count_of(std::uint64_t count, std::string_view noun) {
  const char* suffix = count == 1 ? "" : (!noun.empty() && noun.back() == 's') ? "es" : "s";
  return fmt::format("{} {}{}", count, noun, suffix);
}

std::string truncate_middle(std::string_view text, std::size_t max_width) {
  if (text.size() <= max_width) return std::string(text);
  if (max_width < 4) {
    std::size_t cut = max_width;
    while (cut > 0 && is_utf8_continuation(text[cut])) --cut;
    return std::string(text.substr(0, cut));
  }
  const std::size_t kept = max_width - 3;
  const std::size_t tail = kept / 3;
  std::size_t head_end = kept - tail;
  while (head_end > 0 && is_utf8_continuation(text[head_end])) --head_end;
  std::size_t tail_begin = text.size() - tail;
  while (tail_begin < text.size() && is_utf8_continuation(text[tail_begin])) ++tail_begin;
  std::string out(text.substr(0, head_end));
  out += "...";
  out.append(text.substr(tail_begin));
  return out;
}

std::string format_progress(std::uint32_t range_index, std::uint32_t range_count, std::uint32_t pass_index,
                            std::uint32_t pass_count) {
  const std::uint64_t range_number = std::uint64_t{range_index} + 1;
  const std::uint64_t pass_number = std::uint64_t{pass_index} + 1;
  if (range_count == 0) return fmt::format("range {}: pass {}/{}", range_number, pass_number, pass_count);
  return fmt::format("range {}/{}: pass {}/{}", range_number, range_count, pass_number, pass_count);
}

}  // namespace rangereplay::report
