// NVTX include/exclude expressions in Nsight Compute's syntax: the parser to
// an AST and the matcher that tests an AST against the NVTX state.
//
// Users already know `ncu --nvtx-include/--nvtx-exclude`; rangereplay accepts
// the same expressions (Nsight Compute CLI guide, "NVTX Filtering"):
//
//   push/pop ranges (a '/' or a stack anchor makes an expression push/pop)
//     A/            range A anywhere on the thread's stack
//     A/B           B pushed directly inside A (A right below B)
//     A/+/B         exactly one range between A and B
//     A/*/B         zero or more ranges between A and B
//     [A  [A/B      A at the bottom of the stack
//     B]  A/*/B]    B at the top of the stack
//   start/end ranges (no '/')
//     A             start/end range A is open
//     A,B           both A and B are open (any order)
//   Domain@...      ranges of NVTX domain "Domain" (none: the default domain);
//                   one domain per expression
//   regex:...       domain and range names are regular expressions in RE2
//                   syntax (linear-time: no backreferences, no lookaround),
//                   matched anywhere in the name (anchor with ^ and $, like
//                   ncu --kernel-name regex:) and only against the first
//                   NameMatcher::kMaxMatchedNameBytes bytes of a longer
//                   name. In regex mode '[' / ']' are
//                   stack anchors only as the first / last character of the
//                   range part; write "/[" or "/]" there for a literal
//                   bracket of the regex (regex:/[0-9]+/ ).
//   \c              the character c taken literally (\[ \] \/ \, \@ \* \+ \\).
//                   In regex mode \c is passed to the regex, except that \@,
//                   \, and \/ become the plain characters.
//
// Stricter than ncu where ncu is ambiguous: an unescaped '[', ']', '*' or '+'
// inside a plain range name, '*' or '+' as the first or last element, and an
// empty name are errors, reported with the 1-based column in the text as
// given (editor convention), e.g.
//   nvtx-include 'A//B': empty range name at column 3; write A/B
//
// Thread-safety: an NvtxExpression is immutable after parsing; matching is
// const and safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace rangereplay::range {

/// Why a regex name does not compile, in the user's terms: `problem` names
/// the construct ("backreference '\1' ..."), `hint` the fix.
struct RegexProblem {
  std::string problem;
  std::string hint;
};

/// One domain or range name of an expression: exact text or a regex.
class NameMatcher {
 public:
  /// A regex is matched against at most this many leading bytes of a name
  /// (cut back to a whole UTF-8 character): a longer name matches when its
  /// first 4096 bytes do, and '$' matches at the cut. Exact names compare
  /// whole.
  static constexpr std::size_t kMaxMatchedNameBytes = 4096;
  /// Memory bound of one compiled regex (RE2's max_mem: its program and
  /// matching caches), bytes. A pattern whose program does not fit is an
  /// error when it is compiled; matching never needs more.
  static constexpr std::int64_t kRegexMaxMemBytes = std::int64_t{8} << 20;

  static NameMatcher exact(std::string text);
  /// A regex matcher of `pattern` (RE2 syntax, UTF-8, no capturing). On a
  /// pattern RE2 rejects (bad syntax, a construct RE2 does not have such as
  /// a backreference or lookaround, a program over kRegexMaxMemBytes)
  /// returns kInvalidArgument with the message "<problem>; <hint>" and, when
  /// `problem` is given, the two parts there. Never throws but std::bad_alloc.
  static StatusOr<NameMatcher> compile(std::string pattern, RegexProblem* problem = nullptr);

  /// Exact: equality. Regex: a match anywhere in the first
  /// kMaxMatchedNameBytes bytes of `name`; time linear in those bytes.
  /// Never throws but std::bad_alloc.
  bool matches(std::string_view name) const;
  bool is_regex() const { return regex_ != nullptr; }
  /// The name (exact) or the pattern handed to RE2 (regex).
  const std::string& text() const { return text_; }

  /// Same text and same kind (exact or regex).
  friend bool operator==(const NameMatcher& a, const NameMatcher& b) {
    return a.text_ == b.text_ && a.is_regex() == b.is_regex();
  }

 private:
  std::string text_;
  std::shared_ptr<const re2::RE2> regex_;  // immutable, shared by copies; RE2 matches from any thread
};

/// One element of a push/pop pattern, bottom to top.
struct NvtxElement {
  enum class Kind { kName, kAnyOne /* + */, kAnyMany /* * */ };
  Kind kind = Kind::kName;
  std::optional<NameMatcher> name;  // set for kName
  friend bool operator==(const NvtxElement&, const NvtxElement&) = default;
};

enum class NvtxRangeKind { kPushPop, kStartEnd };

/// A push/pop stack of one domain on one thread, names bottom to top.
using NvtxStack = std::vector<std::string>;

/// A parsed --nvtx-include / --nvtx-exclude expression.
struct NvtxExpression {
  std::string text;  // as the user wrote it
  NvtxRangeKind kind = NvtxRangeKind::kPushPop;
  std::optional<NameMatcher> domain;  // nullopt: the default domain
  bool bottom_anchored = false;       // '[': first element at the stack bottom
  bool top_anchored = false;          // ']': last element at the stack top
  // Push/pop: the pattern, bottom to top (first and last are kName).
  // Start/end: the names that must all be open (all kName).
  std::vector<NvtxElement> elements;

  /// Whether ranges of `domain` ("" is the default domain) are addressed.
  /// A domain-less expression addresses only the default domain; a regex
  /// domain never matches the default domain.
  bool matches_domain(std::string_view domain) const;

  /// Push/pop: whether `stack` (one domain, bottom to top) contains the
  /// pattern as a contiguous run, honouring wildcards and anchors. Does not
  /// look at the domain. False for start/end expressions.
  bool matches_stack(std::span<const std::string> stack) const;

  /// Start/end: whether every name matches at least one of `open_names` (the
  /// start/end ranges open in one domain). False for push/pop expressions.
  bool matches_open_ranges(std::span<const std::string> open_names) const;

  friend bool operator==(const NvtxExpression&, const NvtxExpression&) = default;
};

/// Parses one expression. `option` names the flag in error messages
/// ("nvtx-include"). On error returns kInvalidArgument with the one-line
/// message "<option> '<text>': <problem> at column <c>; <hint>" (c 1-based,
/// as editors count) and, when `error_column` is given, stores the 0-based
/// offset c - 1 (in `text`) there for a caret.
StatusOr<NvtxExpression> parse_nvtx_expression(std::string_view text, std::string_view option = "nvtx-include",
                                               std::size_t* error_column = nullptr);

}  // namespace rangereplay::range
