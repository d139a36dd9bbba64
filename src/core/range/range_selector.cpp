// Instance selection of matched ranges (see range_selector.h).
#include "core/range/range_selector.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/range/parse_error.h"

namespace rangereplay::range {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

RangeSelector::RangeSelector(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.first < b.first; });
  for (const Span& s : spans) {
    if (!spans_.empty()) {
      Span& back = spans_.back();
      if (!back.last) continue;  // unbounded already covers the rest
      if (*back.last == kMax || s.first <= *back.last + 1) {
        if (!s.last || *s.last > *back.last) back.last = s.last;
        continue;
      }
    }
    spans_.push_back(s);
  }
}

StatusOr<RangeSelector> RangeSelector::from_skip_count(std::uint64_t skip, std::optional<std::uint64_t> count) {
  if (!count) return RangeSelector(std::vector<Span>{Span{skip, std::nullopt}});
  if (*count == 0) return invalid_argument("range-count 0 selects no range; give 1 or more, or leave it out for all");
  if (*count - 1 > kMax - skip) {
    return invalid_argument("skip " + std::to_string(skip) + " plus range-count " + std::to_string(*count) +
                            " passes the largest range number");
  }
  return RangeSelector(std::vector<Span>{Span{skip, skip + (*count - 1)}});
}

StatusOr<RangeSelector> RangeSelector::from_spans(std::vector<Span> spans) {
  if (spans.empty()) return invalid_argument("no range span");
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (spans[i].last && *spans[i].last < spans[i].first) {
      return invalid_argument("span " + std::to_string(i) + " ends at " + std::to_string(*spans[i].last) +
                              ", before its first " + std::to_string(spans[i].first));
    }
  }
  return RangeSelector(std::move(spans));
}

StatusOr<RangeSelector> RangeSelector::parse_list(std::string_view text, std::string_view option,
                                                  std::size_t* error_column) {
  auto fail = [&](std::size_t col, const std::string& problem, const std::string& hint) -> Status {
    return column_parse_error(option, text, col, problem, hint, error_column);
  };
  const std::string example = "write range numbers from 0 and spans, e.g. 2,5-7";
  // The list without the comma at `col`, and without the other empty items
  // (doubled, leading or trailing commas); the example when nothing is left.
  auto without = [&](std::size_t col) {
    std::string fixed(text);
    fixed.erase(col, 1);
    for (std::size_t at = fixed.find(",,"); at != std::string::npos; at = fixed.find(",,")) fixed.erase(at, 1);
    while (!fixed.empty() && fixed.front() == ',') fixed.erase(0, 1);
    while (!fixed.empty() && fixed.back() == ',') fixed.pop_back();
    // Offered only when it parses (a shorter list: the check ends).
    return fixed.empty() || !parse_list(fixed).ok() ? example : "write " + fixed;
  };
  // Reads digits at pos into *out; returns false on overflow.
  auto read_number = [&](std::size_t& pos, std::uint64_t* out) {
    std::uint64_t v = 0;
    while (pos < text.size() && is_digit(text[pos])) {
      const auto d = static_cast<std::uint64_t>(text[pos] - '0');
      if (v > (kMax - d) / 10) return false;
      v = v * 10 + d;
      ++pos;
    }
    *out = v;
    return true;
  };

  if (text.empty()) return fail(0, "empty list", example);
  std::vector<Span> spans;
  std::size_t pos = 0;
  while (true) {
    const std::size_t item = pos;
    if (pos == text.size()) return fail(pos, "empty item", without(pos - 1));
    if (text[pos] == ',') return fail(pos, "empty item", without(pos));
    if (!is_digit(text[pos])) return fail(pos, "unexpected '" + std::string(1, text[pos]) + "'", example);
    std::uint64_t first = 0;
    if (!read_number(pos, &first)) return fail(item, "number too large", example);
    Span span{first, first};
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      if (pos == text.size() || text[pos] == ',') {
        span.last = std::nullopt;
      } else {
        const std::size_t second_col = pos;
        if (!is_digit(text[pos])) return fail(pos, "unexpected '" + std::string(1, text[pos]) + "'", example);
        std::uint64_t last = 0;
        if (!read_number(pos, &last)) return fail(second_col, "number too large", example);
        if (last < first) {
          return fail(item, "reversed span", "write " + std::to_string(last) + "-" + std::to_string(first));
        }
        span.last = last;
      }
    }
    spans.push_back(span);
    if (pos == text.size()) break;
    if (text[pos] != ',') return fail(pos, "unexpected '" + std::string(1, text[pos]) + "'", example);
    ++pos;
  }
  return RangeSelector(std::move(spans));
}

bool RangeSelector::selects(std::uint64_t match_index) const {
  for (const Span& s : spans_) {
    if (match_index < s.first) return false;
    if (!s.last || match_index <= *s.last) return true;
  }
  return false;
}

bool RangeSelector::exhausted_after(std::uint64_t match_index) const {
  const std::optional<std::uint64_t> l = last();
  return l && match_index >= *l;
}

std::optional<std::uint64_t> RangeSelector::last() const {
  if (spans_.empty()) return std::nullopt;
  return spans_.back().last;
}

std::string RangeSelector::to_string() const {
  std::string out;
  for (const Span& s : spans_) {
    if (!out.empty()) out.push_back(',');
    out += std::to_string(s.first);
    if (!s.last) {
      out.push_back('-');
    } else if (*s.last != s.first) {
      out += "-" + std::to_string(*s.last);
    }
  }
  return out;
}

}  // namespace rangereplay::range
