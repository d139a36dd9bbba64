// Edit-distance suggestions (see closest_names.h).
#include "core/base/closest_names.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "core/base/ascii.h"

namespace rangereplay {
namespace {

// Optimal string alignment over three rolling rows. Every cell of row i comes
// from rows i-1 and i-2 with non-negative increments, so once two consecutive
// rows have a minimum above `bound`, every later row does too and the
// distance exceeds `bound`.
template <bool kIgnoreCase>
bool same(char x, char y) {
  return kIgnoreCase ? ascii_lower(x) == ascii_lower(y) : x == y;
}

template <bool kIgnoreCase>
std::size_t osa_distance(std::string_view a, std::string_view b, std::size_t bound) {
  if (a.size() < b.size()) std::swap(a, b);  // b is the shorter: rows are short
  const std::size_t n = b.size();
  const std::size_t over = bound == std::numeric_limits<std::size_t>::max() ? bound : bound + 1;
  if (a.size() - n > bound) return over;
  std::vector<std::size_t> before(n + 1), prev(n + 1), cur(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  std::size_t prev_min = 0;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    std::size_t row_min = cur[0];
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t cost = same<kIgnoreCase>(a[i - 1], b[j - 1]) ? 0 : 1;
      std::size_t v = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && same<kIgnoreCase>(a[i - 1], b[j - 2]) && same<kIgnoreCase>(a[i - 2], b[j - 1])) {
        v = std::min(v, before[j - 2] + 1);
      }
      cur[j] = v;
      row_min = std::min(row_min, v);
    }
    if (row_min > bound && prev_min > bound) return over;
    prev_min = row_min;
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[n] > bound ? over : prev[n];
}

template <bool kIgnoreCase>
std::vector<std::string> closest(std::string_view query, std::span<const std::string> candidates, std::size_t count,
                                 std::size_t max_distance) {
  if (count == 0) return {};
  // (distance, candidate index), kept sorted; at most `count` entries.
  std::vector<std::pair<std::size_t, std::size_t>> best;
  std::unordered_set<std::string_view> seen;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    const std::size_t bound = best.size() == count ? best.back().first : max_distance;
    // A candidate must beat the current worst strictly, so ties keep the
    // earlier candidate.
    const std::size_t limit = best.size() == count ? (bound == 0 ? 0 : bound - 1) : bound;
    if (best.size() == count && bound == 0) break;
    const std::size_t length_gap = c.size() > query.size() ? c.size() - query.size() : query.size() - c.size();
    if (length_gap > limit) continue;
    const std::size_t d = osa_distance<kIgnoreCase>(query, c, limit);
    if (d > limit) continue;
    if (!seen.insert(std::string_view(c)).second) continue;
    auto at = std::upper_bound(best.begin(), best.end(), std::make_pair(d, i),
                               [](const auto& x, const auto& y) { return x.first < y.first; });
    best.insert(at, {d, i});
    if (best.size() > count) {
      seen.erase(std::string_view(candidates[best.back().second]));
      best.pop_back();
    }
  }
  std::vector<std::string> out;
  out.reserve(best.size());
  for (const auto& [d, i] : best) out.push_back(candidates[i]);
  return out;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  return osa_distance<false>(a, b, std::numeric_limits<std::size_t>::max());
}

std::size_t bounded_edit_distance(std::string_view a, std::string_view b, std::size_t bound) {
  return osa_distance<false>(a, b, bound);
}

std::vector<std::string> closest_names(std::string_view query, std::span<const std::string> candidates,
                                       std::size_t count, std::size_t max_distance) {
  return closest<false>(query, candidates, count, max_distance);
}

std::vector<std::string> closest_names_ignoring_case(std::string_view query, std::span<const std::string> candidates,
                                                     std::size_t count, std::size_t max_distance) {
  return closest<true>(query, candidates, count, max_distance);
}

std::optional<std::string> lower_case_match(std::string_view query, std::span<const std::string> candidates) {
  if (std::find(candidates.begin(), candidates.end(), query) != candidates.end()) return std::nullopt;
  std::string lower = ascii_lower(query);
  if (std::find(candidates.begin(), candidates.end(), lower) == candidates.end()) return std::nullopt;
  return lower;
}

std::size_t plausible_typo_distance(std::size_t length) { return std::max<std::size_t>(3, length / 3); }

}  // namespace rangereplay
