// Which matched ranges to profile: all, skip K then take M, or a list.
//
// Matched ranges are numbered from 0 in the order they begin, the same number
// the report prints as a range's index. The three forms mirror Nsight
// Compute's habits:
//   --skip K --range-count M   like ncu --launch-skip K --launch-count M:
//                              profile matches K .. K+M-1 (M omitted: all
//                              from K on)
//   a list "2,5-7" or "3-"     0-based match numbers and inclusive spans; an
//                              open span "N-" runs to the end of the process
// --skip 2 --range-count 3 selects the same ranges as the list "2-4".
// Unlike ncu's --range-filter instance lists (1-based), the list is 0-based
// so that it uses the numbers the report shows.
//
//   RR_ASSIGN_OR_RETURN(RangeSelector s, RangeSelector::parse_list("2,5-7", "ranges"));
//   s.selects(5);          // true
//   s.exhausted_after(7);  // true: the tool can stop matching after range 7
//
// Thread-safety: immutable value; const methods are safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace rangereplay::range {

class RangeSelector {
 public:
  /// Matches first .. last (inclusive; last nullopt: to the end of the process).
  struct Span {
    std::uint64_t first = 0;
    std::optional<std::uint64_t> last;  // inclusive; nullopt: unbounded
    friend bool operator==(const Span&, const Span&) = default;
  };

  /// Selects every matched range.
  RangeSelector() { spans_.push_back(Span{0, std::nullopt}); }

  /// Skips the first `skip` matches, then selects `count` (all when nullopt).
  /// kInvalidArgument when count is 0 or skip + count overflows.
  static StatusOr<RangeSelector> from_skip_count(std::uint64_t skip, std::optional<std::uint64_t> count);

  /// Parses "2,5-7", "0", "3-": comma-separated numbers and inclusive spans,
  /// in any order (overlaps merge). Errors are kInvalidArgument with
  /// "<option> '<text>': <problem> at column <c>; <hint>" (c 1-based, as editors
  /// count; `error_column`, when given, gets the 0-based offset c - 1).
  static StatusOr<RangeSelector> parse_list(std::string_view text, std::string_view option = "ranges",
                                            std::size_t* error_column = nullptr);

  /// The selector of `spans` (any order; overlaps merge), as read back from
  /// the configuration. Errors: kInvalidArgument when there is no span or a
  /// span's last is below its first; the message names the span by its index.
  static StatusOr<RangeSelector> from_spans(std::vector<Span> spans);

  /// Whether the `match_index`-th matched range (from 0) is profiled.
  bool selects(std::uint64_t match_index) const;
  /// Whether no match after `match_index` can be selected (stop matching).
  bool exhausted_after(std::uint64_t match_index) const;
  /// The largest selected index, or nullopt when unbounded.
  std::optional<std::uint64_t> last() const;
  /// Canonical list form: "0-" (all), "2,5-7", "3-".
  std::string to_string() const;
  /// The selected spans: sorted, disjoint, not adjacent.
  const std::vector<Span>& spans() const { return spans_; }

  friend bool operator==(const RangeSelector&, const RangeSelector&) = default;

 private:
  explicit RangeSelector(std::vector<Span> spans);  // sorts and merges
  std::vector<Span> spans_;                         // sorted, disjoint, non-adjacent
};

}  // namespace rangereplay::range
