// Tier budget formulas and the /proc/meminfo reader (see tier_budget.h).
#include "core/snapshot/storage/tier_budget.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "core/snapshot/storage/byte_math.h"

namespace rangereplay::storage {

std::uint64_t device_tier_budget(const DeviceMemoryInfo& info, std::uint64_t retained_bytes) {
  const std::uint64_t usable_free =
      scale_down(info.free_bytes > info.reserve_bytes ? info.free_bytes - info.reserve_bytes : 0, 95, 100);
  return std::min({info.largest_allocation_bytes, info.total_bytes / 2, saturating_add(retained_bytes, usable_free)});
}

std::uint64_t pinned_tier_budget(const HostMemoryInfo& info, std::uint64_t retained_bytes) {
  return std::min(info.largest_allocation_bytes, saturating_add(retained_bytes, info.available_bytes / 2));
}

std::uint64_t apply_limit(std::uint64_t budget_bytes, std::optional<std::uint64_t> limit_bytes) {
  return limit_bytes ? std::min(budget_bytes, *limit_bytes) : budget_bytes;
}

StatusOr<std::uint64_t> parse_meminfo_available(std::string_view text) {
  constexpr std::string_view kKey = "MemAvailable:";
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    if (!line.starts_with(kKey)) continue;

    std::string_view rest = line.substr(kKey.size());
    const auto bad = [&] {
      return invalid_argument("bad /proc/meminfo line '" + std::string(line) +
                              "': expected 'MemAvailable: <number> kB'");
    };
    rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
    std::uint64_t kib = 0;
    std::size_t digits = 0;
    for (; digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9'; ++digits) {
      const auto digit = static_cast<std::uint64_t>(rest[digits] - '0');
      if (__builtin_mul_overflow(kib, std::uint64_t{10}, &kib) || __builtin_add_overflow(kib, digit, &kib)) {
        return bad();
      }
    }
    if (digits == 0) return bad();
    rest.remove_prefix(digits);
    rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r')) {
      rest.remove_suffix(1);
    }
    if (rest != "kB") return bad();
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(kib, std::uint64_t{1024}, &bytes)) return bad();
    return bytes;
  }
  return not_found("/proc/meminfo has no MemAvailable line");
}

StatusOr<std::uint64_t> read_meminfo_available(const std::string& meminfo_path) {
  std::ifstream file(meminfo_path);
  if (!file) return unavailable("cannot read " + meminfo_path);
  std::ostringstream text;
  text << file.rdbuf();
  return parse_meminfo_available(text.str());
}

}  // namespace rangereplay::storage
