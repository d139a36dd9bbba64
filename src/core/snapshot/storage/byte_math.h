// Overflow-safe byte arithmetic for the storage planner.
//
// Budgets, capacities and region sizes may sit near UINT64_MAX (a backing that
// reports "no limit", a test of the edges), so every sum, rounding and
// percentage the planner computes goes through these helpers instead of raw
// operators. All functions are constexpr, pure and thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace rangereplay::storage {

inline constexpr std::uint64_t kMaxBytes = std::numeric_limits<std::uint64_t>::max();

/// a + b, or kMaxBytes when the sum does not fit.
constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > kMaxBytes - b ? kMaxBytes : a + b;
}

constexpr bool is_power_of_two(std::uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

/// The smallest multiple of `alignment` (a power of two) that is >= value, or
/// nullopt when that multiple is larger than kMaxBytes.
constexpr std::optional<std::uint64_t> align_up(std::uint64_t value, std::uint64_t alignment) {
  const std::uint64_t mask = alignment - 1;
  if (value > kMaxBytes - mask) {
    const std::uint64_t down = value & ~mask;
    if (down == value) return value;
    return std::nullopt;
  }
  return (value + mask) & ~mask;
}

/// floor(value * numerator / denominator) for numerator <= denominator, exact
/// for every value (no intermediate product of value and numerator).
/// Requires denominator * denominator to fit in 64 bits (e.g. percentages).
constexpr std::uint64_t scale_down(std::uint64_t value, std::uint64_t numerator, std::uint64_t denominator) {
  return value / denominator * numerator + value % denominator * numerator / denominator;
}

}  // namespace rangereplay::storage
