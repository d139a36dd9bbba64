// "Did you mean" suggestions for mistyped names (metric sets, subcommands).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rangereplay::cli {

/// Up to `max_count` of `candidates` closest to `name` by case-insensitive
/// edit distance, nearest first (ties in candidate order), leaving out those
/// further than max(2, name.size() / 2) edits. Thread-safe (pure).
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t max_count);

}  // namespace rangereplay::cli
