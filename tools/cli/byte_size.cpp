// Parsing of user-typed byte sizes (see byte_size.h).
#include "cli/byte_size.h"

#include <array>
#include <cctype>
#include <numeric>
#include <string>

namespace rangereplay::cli {
namespace {

struct Unit {
  std::string_view name;  // lower case
  std::uint64_t multiplier;
};

constexpr std::uint64_t kKi = 1024;
constexpr std::array<Unit, 14> kUnits{{
    {"", 1},
    {"b", 1},
    {"k", kKi},
    {"kib", kKi},
    {"m", kKi * kKi},
    {"mib", kKi * kKi},
    {"g", kKi * kKi * kKi},
    {"gib", kKi * kKi * kKi},
    {"t", kKi * kKi * kKi * kKi},
    {"tib", kKi * kKi * kKi * kKi},
    {"kb", 1000ull},
    {"mb", 1000ull * 1000},
    {"gb", 1000ull * 1000 * 1000},
    {"tb", 1000ull * 1000 * 1000 * 1000},
}};

Status malformed(std::string_view text, std::string_view why) {
  return invalid_argument("size '" + std::string(text) + "' " + std::string(why) +
                          "; write a number of bytes with an optional unit, e.g. 512MiB, 6GB or 1073741824");
}

// a * b into out; false on overflow.
bool multiply(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}

}  // namespace

StatusOr<std::uint64_t> parse_byte_size(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t end = text.size();
  while (end > i && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  std::string_view body = text.substr(i, end - i);
  if (body.empty()) return malformed(text, "is empty");
  if (body[0] == '-' || body[0] == '+') return malformed(text, "has a sign");

  std::size_t pos = 0;
  std::string_view whole, fraction;
  while (pos < body.size() && std::isdigit(static_cast<unsigned char>(body[pos]))) ++pos;
  whole = body.substr(0, pos);
  if (pos < body.size() && body[pos] == '.') {
    std::size_t frac_begin = ++pos;
    while (pos < body.size() && std::isdigit(static_cast<unsigned char>(body[pos]))) ++pos;
    fraction = body.substr(frac_begin, pos - frac_begin);
  }
  if (whole.empty() && fraction.empty()) return malformed(text, "has no number");

  std::string unit_text;
  for (char c : body.substr(pos)) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;  // "512 MiB"
    unit_text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const Unit* unit = nullptr;
  for (const Unit& u : kUnits) {
    if (u.name == unit_text) unit = &u;
  }
  if (unit == nullptr) return malformed(text, "has an unknown unit '" + unit_text + "'");

  const Status too_large = out_of_range("size '" + std::string(text) + "' exceeds 2^64-1 bytes");
  std::uint64_t value = 0;
  for (char c : whole) {
    if (!multiply(value, 10, value) || __builtin_add_overflow(value, std::uint64_t(c - '0'), &value)) {
      return too_large;
    }
  }
  if (!multiply(value, unit->multiplier, value)) return too_large;

  // The fraction: digits / 10^n of the unit, which must come out whole.
  // Trailing zeros carry no value; dropping them keeps 10^n small.
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (!fraction.empty()) {
    std::uint64_t numerator = 0, denominator = 1;
    for (char c : fraction) {
      if (!multiply(numerator, 10, numerator) || !multiply(denominator, 10, denominator)) {
        return malformed(text, "has too many decimals");
      }
      numerator += std::uint64_t(c - '0');
    }
    // extra = numerator * multiplier / denominator, whole. With g the gcd of
    // multiplier and denominator, denominator/g shares no factor with
    // multiplier/g, so it must divide numerator; the product then stays below
    // the multiplier (no overflow).
    const std::uint64_t g = std::gcd(unit->multiplier, denominator);
    const std::uint64_t reduced_denominator = denominator / g;
    if (numerator % reduced_denominator != 0) return malformed(text, "is not a whole number of bytes");
    const std::uint64_t extra = (numerator / reduced_denominator) * (unit->multiplier / g);
    if (__builtin_add_overflow(value, extra, &value)) return too_large;
  }
  return value;
}

}  // namespace rangereplay::cli
