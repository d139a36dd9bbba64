// "Did you mean ...?" for names the user typed: the nearest candidates by edit
// distance. Used when a metric name or a metric set name is unknown, so the
// error message can say
//
//   unknown metric 'dram__byte_read.sum'; closest: dram__bytes_read.sum, ...
//
// The distance is the optimal string alignment distance (restricted
// Damerau-Levenshtein: insertions, deletions, substitutions and transpositions
// of two adjacent characters each cost 1), the usual measure for typos.
// A GH100 metric catalog has about 150,000 full names, so the search keeps the
// current k-th best distance as a bound and abandons a candidate as soon as
// its length difference, or the minimum of a dynamic-programming row, exceeds
// it.
//
// Thread-safety: pure functions; no shared state.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rangereplay {

/// Optimal string alignment distance between `a` and `b` (bytes, case
/// sensitive). edit_distance("ab", "ba") == 1, edit_distance("", "abc") == 3.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// As edit_distance, but returns `bound + 1` as soon as the distance is known
/// to exceed `bound` (cheaper for far-apart strings).
std::size_t bounded_edit_distance(std::string_view a, std::string_view b, std::size_t bound);

/// Up to `count` candidates nearest to `query`, nearest first; candidates at
/// equal distance keep their order in `candidates`. Candidates farther than
/// `max_distance` are never returned, so the result may be shorter than
/// `count` (empty when nothing is close). Duplicate candidates are returned
/// once. count == 0 returns an empty list.
std::vector<std::string> closest_names(std::string_view query, std::span<const std::string> candidates,
                                       std::size_t count = 3,
                                       std::size_t max_distance = std::numeric_limits<std::size_t>::max());

/// As closest_names, but ASCII letters compare equal regardless of case
/// ("DRAM__BYTES_READ.SUM" is at distance 0 from "dram__bytes_read.sum");
/// returns the candidates as spelled in `candidates`. For names the user may
/// type in the wrong case (metric names are lower case).
std::vector<std::string> closest_names_ignoring_case(
    std::string_view query, std::span<const std::string> candidates, std::size_t count = 3,
    std::size_t max_distance = std::numeric_limits<std::size_t>::max());

/// The lower-case spelling of `query` when `query` is not itself one of
/// `candidates` but that spelling is ("FULL" -> "full"): a known lower-case
/// name typed in capitals, to be told so rather than offered near names.
/// nullopt otherwise. Pure.
std::optional<std::string> lower_case_match(std::string_view query, std::span<const std::string> candidates);

/// A distance limit that keeps suggestions plausible for a typed name of
/// `length` bytes: a third of its length, at least 3 (so short names still get
/// suggestions for one or two typos, and long garbage gets none).
std::size_t plausible_typo_distance(std::size_t length);

}  // namespace rangereplay
