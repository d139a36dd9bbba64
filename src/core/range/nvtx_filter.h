// The set of --nvtx-include and --nvtx-exclude expressions, and the decision
// "does a range begin here?" made against the NVTX state.
//
// Semantics (Nsight Compute's NVTX filtering, applied to ranges):
//   - repeated includes are alternatives (OR); any exclude that matches
//     vetoes (an exclude match removes the range);
//   - a push/pop range begins at a push when a push/pop include of the pushed
//     domain matches that domain's stack after the push, and no exclude
//     matches the calling thread's state;
//   - a start/end range begins at a start when a start/end include of the
//     started domain matches the open start/end ranges, and no exclude
//     matches; it lasts while any start/end include still matches;
//   - excludes are evaluated when a range begins only: a range cannot be cut
//     in two, so an exclude that starts matching inside it has no effect.
// At least one include is required: a range needs a begin marker.
//
// Thread-safety: immutable after parse; const methods are safe from any thread.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/range/nvtx_expression.h"

namespace rangereplay::range {

/// One thread's push/pop stacks, by domain name ("" = default domain).
using NvtxStacks = std::map<std::string, NvtxStack, std::less<>>;
/// Names of the start/end ranges open in the process, by domain name; a name
/// appears once per open instance.
using NvtxOpenRanges = std::map<std::string, std::vector<std::string>, std::less<>>;

/// The NVTX state as one thread sees it.
struct NvtxState {
  const NvtxStacks& thread_stacks;
  const NvtxOpenRanges& open_ranges;
};

/// Whether `e` matches `state`: a push/pop expression matches one of the
/// thread's stacks of a domain it addresses; a start/end expression matches
/// the open ranges of one domain it addresses.
bool expression_matches(const NvtxExpression& e, const NvtxState& state);

class NvtxFilter {
 public:
  /// Parses every expression; the first error is returned as is (its
  /// message names the option and the column). kInvalidArgument when
  /// `includes` is empty.
  static StatusOr<NvtxFilter> parse(std::span<const std::string> includes, std::span<const std::string> excludes);
  /// The filter of expressions parsed already (the launcher's, read from the
  /// configuration). kInvalidArgument when `includes` is empty, with parse()'s
  /// message.
  static StatusOr<NvtxFilter> create(std::vector<NvtxExpression> includes, std::vector<NvtxExpression> excludes);

  NvtxFilter(std::vector<NvtxExpression> includes, std::vector<NvtxExpression> excludes);

  /// A push in `domain` just happened (`state` already contains it): does a
  /// push/pop range begin?
  bool begins_at_push(const NvtxState& state, std::string_view domain) const;
  /// A start in `domain` just happened (`state` contains it): does a
  /// start/end range begin?
  bool begins_at_start(const NvtxState& state, std::string_view domain) const;
  /// Whether any start/end include matches (an open start/end range lasts
  /// while this holds).
  bool start_end_includes_match(const NvtxState& state) const;
  /// Whether any exclude matches.
  bool excluded(const NvtxState& state) const;

  bool has_push_pop_includes() const;
  bool has_start_end_includes() const;
  const std::vector<NvtxExpression>& includes() const { return includes_; }
  const std::vector<NvtxExpression>& excludes() const { return excludes_; }

 private:
  std::vector<NvtxExpression> includes_;
  std::vector<NvtxExpression> excludes_;
};

}  // namespace rangereplay::range
