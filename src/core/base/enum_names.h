// One table per enum of the names it is written as (configuration JSON,
// command-line choices, help text, report fields), and the look-ups every
// conversion goes through, so that a name is spelled in one place:
//
//   enum class RestoreMode { kDifferential, kFull };
//   inline constexpr EnumNames<RestoreMode, 2> kRestoreModeNames{{
//       {RestoreMode::kDifferential, "differential"}, {RestoreMode::kFull, "full"}}};
//   name_of(kRestoreModeNames, RestoreMode::kFull);      // "full"
//   value_named(kRestoreModeNames, "differential");      // RestoreMode::kDifferential
//   names_joined(kRestoreModeNames, ", ", " or ");       // "differential or full"
//
// Thread-safety: constant tables and pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace rangereplay {

template <class Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

template <class Enum, std::size_t N>
using EnumNames = std::array<EnumName<Enum>, N>;

/// The name of `value` in `table`; "" when the table lacks it.
template <class Enum, std::size_t N>
constexpr std::string_view name_of(const EnumNames<Enum, N>& table, Enum value) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return {};
}

/// The value named `name` (exact, case-sensitive), or nullopt.
template <class Enum, std::size_t N>
constexpr std::optional<Enum> value_named(const EnumNames<Enum, N>& table, std::string_view name) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

/// The names of `order`'s values, separated by `separator` and, before the
/// last, `last_separator`: ("full", "differential"), " or " -> "full or differential".
template <class Enum, std::size_t N>
std::string names_joined(const EnumNames<Enum, N>& table, std::initializer_list<Enum> order, std::string_view separator,
                         std::string_view last_separator) {
  std::string out;
  std::size_t i = 0;
  for (Enum value : order) {
    if (i > 0) out += i + 1 == order.size() ? last_separator : separator;
    out += name_of(table, value);
    ++i;
  }
  return out;
}

/// Every name of `table` in table order, joined as above.
template <class Enum, std::size_t N>
std::string names_joined(const EnumNames<Enum, N>& table, std::string_view separator, std::string_view last_separator) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? last_separator : separator;
    out += table[i].name;
  }
  return out;
}

}  // namespace rangereplay
