// Edit-distance suggestions (see closest_names.h).
#include "cli/closest_names.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace rangereplay::cli {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t max_count) {
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 2);
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // (distance, candidate index)
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::size_t d = edit_distance(name, candidates[i]);
    if (d <= limit) scored.emplace_back(d, i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t k = 0; k < scored.size() && out.size() < max_count; ++k) {
    out.push_back(candidates[scored[k].second]);
  }
  return out;
}

}  // namespace rangereplay::cli
