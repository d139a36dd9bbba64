// Parsing of user-typed byte sizes (see byte_size.h).
#include "core/snapshot/storage/byte_size.h"

#include <array>
#include <string>

#include "core/base/ascii.h"

namespace rangereplay::storage {
namespace {

__extension__ typedef unsigned __int128 Uint128;

struct Unit {
  std::string_view name;  // lower case
  std::uint64_t bytes;
};

constexpr std::array<Unit, 10> kUnits = {{
    {"", 1},
    {"b", 1},
    {"kb", 1000ULL},
    {"mb", 1000ULL * 1000},
    {"gb", 1000ULL * 1000 * 1000},
    {"tb", 1000ULL * 1000 * 1000 * 1000},
    {"kib", 1ULL << 10},
    {"mib", 1ULL << 20},
    {"gib", 1ULL << 30},
    {"tib", 1ULL << 40},
}};

// More fraction digits than this cannot change the result by a whole byte
// for any accepted unit, and keeps the fraction in 64 bits.
constexpr std::size_t kMaxFractionDigits = 18;

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

Status bad_size(std::string_view text) {
  return invalid_argument("bad size '" + std::string(text) +
                          "': expected bytes (4096) or a number with a unit (512MiB, 1.5GiB, "
                          "6GB; units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)");
}

}  // namespace

StatusOr<std::uint64_t> parse_byte_size(std::string_view text) {
  std::string_view rest = text;
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  while (!rest.empty() && is_space(rest.back())) rest.remove_suffix(1);

  Uint128 whole = 0;
  std::size_t whole_digits = 0;
  for (; !rest.empty() && is_digit(rest.front()); rest.remove_prefix(1), ++whole_digits) {
    whole = whole * 10 + static_cast<unsigned>(rest.front() - '0');
    if (whole > ~std::uint64_t{0}) {
      return out_of_range("size '" + std::string(text) + "' is larger than 2^64 - 1 bytes");
    }
  }
  if (whole_digits == 0) return bad_size(text);

  std::uint64_t fraction = 0;
  std::uint64_t fraction_scale = 1;
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    std::size_t fraction_digits = 0;
    for (; !rest.empty() && is_digit(rest.front()); rest.remove_prefix(1), ++fraction_digits) {
      if (fraction_digits == kMaxFractionDigits) return bad_size(text);
      fraction = fraction * 10 + static_cast<unsigned>(rest.front() - '0');
      fraction_scale *= 10;
    }
    if (fraction_digits == 0) return bad_size(text);
  }
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);

  const std::string unit_name = ascii_lower(rest);
  for (const Unit& unit : kUnits) {
    if (unit_name != unit.name) continue;
    const Uint128 bytes = whole * unit.bytes + Uint128{fraction} * unit.bytes / fraction_scale;
    if (bytes > ~std::uint64_t{0}) {
      return out_of_range("size '" + std::string(text) + "' is larger than 2^64 - 1 bytes");
    }
    return static_cast<std::uint64_t>(bytes);
  }
  return bad_size(text);
}

}  // namespace rangereplay::storage
