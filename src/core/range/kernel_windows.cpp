// Kernel-index window parsing and launch positions (see kernel_windows.h).
#include "core/range/kernel_windows.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/range/parse_error.h"

namespace rangereplay::range {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

StatusOr<KernelWindows> KernelWindows::parse(std::string_view text, std::string_view option,
                                             std::size_t* error_column) {
  auto fail = [&](std::size_t col, const std::string& problem, const std::string& hint) -> Status {
    return column_parse_error(option, text, col, problem, hint, error_column);
  };
  const std::string example = "write FIRST:END, launch indices from 0, END exclusive, e.g. 100:164";
  // Reads a number at pos; nullopt (and an error) when absent or too large.
  std::optional<Status> error;
  auto read_number = [&](std::size_t& pos, const char* what) -> std::optional<std::uint64_t> {
    const std::size_t start = pos;
    if (pos == text.size()) {
      error = fail(pos, std::string("missing ") + what, example);
      return std::nullopt;
    }
    if (!is_digit(text[pos])) {
      error = fail(pos, "unexpected '" + std::string(1, text[pos]) + "'", example);
      return std::nullopt;
    }
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t v = 0;
    while (pos < text.size() && is_digit(text[pos])) {
      const auto d = static_cast<std::uint64_t>(text[pos] - '0');
      if (v > (kMax - d) / 10) {
        error = fail(start, "number too large", example);
        return std::nullopt;
      }
      v = v * 10 + d;
      ++pos;
    }
    return v;
  };

  std::vector<KernelWindow> windows;
  std::size_t pos = 0;
  while (true) {
    const std::size_t item = pos;
    const auto first = read_number(pos, "first launch index");
    if (!first) return *error;
    if (pos == text.size() || text[pos] != ':') {
      if (pos == text.size()) {
        return fail(pos, "missing ':'",
                    "write FIRST:END, e.g. " + std::to_string(*first) + ":" + std::to_string(*first + 1) +
                        " for launch " + std::to_string(*first) + " alone");
      }
      return fail(pos, "unexpected '" + std::string(1, text[pos]) + "'", example);
    }
    ++pos;
    const std::size_t end_col = pos;
    const auto end = read_number(pos, "end launch index");
    if (!end) return *error;
    if (*end <= *first) {
      return fail(end_col, "end " + std::to_string(*end) + " is not after first " + std::to_string(*first),
                  *end < *first ? "write " + std::to_string(*end) + ":" + std::to_string(*first)
                                : "END is exclusive: write " + std::to_string(*first) + ":" +
                                      std::to_string(*first + 1) + " for one launch");
    }
    if (!windows.empty() && *first < windows.back().end) {
      return fail(item,
                  "window " + std::to_string(*first) + ":" + std::to_string(*end) + " overlaps or precedes " +
                      std::to_string(windows.back().first) + ":" + std::to_string(windows.back().end),
                  "list windows in ascending order without overlap");
    }
    windows.push_back(KernelWindow{*first, *end});
    if (pos == text.size()) break;
    if (text[pos] != ',') return fail(pos, "unexpected '" + std::string(1, text[pos]) + "'", example);
    ++pos;
    if (pos == text.size()) {
      std::string fixed(text);
      fixed.pop_back();
      return fail(pos, "empty window", "write " + fixed);
    }
  }
  return KernelWindows(std::move(windows));
}

StatusOr<KernelWindows> KernelWindows::from_windows(std::vector<KernelWindow> windows) {
  if (windows.empty()) return invalid_argument("no kernel window");
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const KernelWindow& w = windows[i];
    const std::string name =
        "window " + std::to_string(i) + " (" + std::to_string(w.first) + ":" + std::to_string(w.end) + ")";
    if (w.end <= w.first) return invalid_argument(name + " is empty: its end is not after its first launch");
    if (i > 0 && w.first < windows[i - 1].end) {
      return invalid_argument(name + " overlaps or precedes window " + std::to_string(i - 1));
    }
  }
  return KernelWindows(std::move(windows));
}

KernelWindows::Position KernelWindows::position(std::uint64_t launch_index) const {
  // First window whose end is after the launch.
  const auto it = std::upper_bound(windows_.begin(), windows_.end(), launch_index,
                                   [](std::uint64_t i, const KernelWindow& w) { return i < w.end; });
  Position p;
  if (it == windows_.end() || launch_index < it->first) return p;
  p.window = static_cast<std::size_t>(it - windows_.begin());
  p.begins_before = launch_index == it->first;
  p.ends_after = launch_index + 1 == it->end;
  return p;
}

bool KernelWindows::past_last(std::uint64_t launch_index) const {
  return windows_.empty() || launch_index >= windows_.back().end;
}

std::string KernelWindows::window_name(std::size_t i) const {
  const KernelWindow& w = windows_.at(i);
  return "kernels " + std::to_string(w.first) + ":" + std::to_string(w.end);
}

}  // namespace rangereplay::range
