// Parser and matcher of NVTX include/exclude expressions (see
// nvtx_expression.h for the syntax, which follows the Nsight Compute CLI
// guide's "NVTX Filtering" section).
#include "core/range/nvtx_expression.h"

#include <re2/re2.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/range/parse_error.h"

namespace rangereplay::range {
namespace {

constexpr std::string_view kRegexPrefix = "regex:";

// One character of the expression after escape processing.
struct Tok {
  char c = 0;
  bool escaped = false;  // written as \c
  bool raw = false;      // regex mode: a '[' or ']' written as "/[" or "/]"
  std::size_t col = 0;   // column of the character (of its '\' when escaped)
};

bool is_plain(const Tok& t, char c) { return !t.escaped && !t.raw && t.c == c; }

struct ParseError {
  std::size_t col;
  std::string problem;
  std::string hint;
};

std::string quoted(char c) { return std::string("'") + c + "'"; }

// Our wording for what RE2 rejects: RE2's own text ("invalid perl operator:
// (?=") names its parser, not the user's construct, and says nothing of the
// fix. `arg` is the part of the pattern RE2 names (RE2::error_arg()).
RegexProblem regex_problem(re2::RE2::ErrorCode code, std::string_view arg) {
  const std::string literal = ", or write \\";  // then "(": the hint reads \(
  const std::string re2_syntax = " (rangereplay's regex: names use RE2 syntax, which has no ";
  switch (code) {
    case re2::RE2::ErrorMissingParen:
    case re2::RE2::ErrorUnexpectedParen:
      return {"unbalanced parentheses", "close each '(' with ')'" + literal + "( for a literal '('"};
    case re2::RE2::ErrorMissingBracket:
      return {"unbalanced square brackets", "close each '[' with ']'" + literal + "[ for a literal '['"};
    case re2::RE2::ErrorRepeatArgument: {
      const char c = arg.empty() ? '*' : arg.front();
      return {"repeat '*', '+', '?' or '{' with nothing to repeat",
              "put it after a character" + literal + c + " for a literal " + quoted(c)};
    }
    case re2::RE2::ErrorRepeatSize:
      return {"invalid repeat count " + std::string(arg),
              "write {N}, {N,} or {N,M} with N <= M <= 1000 (RE2's largest count, also for nested repeats)"};
    case re2::RE2::ErrorRepeatOp:
      return {"repeat operator '" + std::string(arg) + "'" + re2_syntax + "possessive or doubled repeats)",
              "write one of *, +, ?, {N,M}, each optionally followed by ? (lazy)"};
    case re2::RE2::ErrorBadCharRange:
      if (arg.starts_with("[:")) {
        return {"unknown character class '" + std::string(arg) + "'", "use a class such as [[:digit:]] or [[:alpha:]]"};
      }
      return {"invalid character range '" + std::string(arg) + "'", "write ranges low to high, e.g. [a-z]"};
    case re2::RE2::ErrorBadCharClass:
      return {"invalid character class '" + std::string(arg) + "'", "use a class such as [[:digit:]] or \\d"};
    case re2::RE2::ErrorBadEscape:
      if (arg.size() == 2 && arg[1] >= '1' && arg[1] <= '9') {
        return {"backreference '" + std::string(arg) + "'" + re2_syntax + "backreferences)",
                "repeat the group's text instead, e.g. (ab)ab for (ab)\\1"};
      }
      if (arg == "\\k") {
        return {"named backreference '\\k'" + re2_syntax + "backreferences)", "repeat the group's text instead"};
      }
      if (arg == "\\u" || arg == "\\c") {
        return {"escape '" + std::string(arg) + "'" + re2_syntax + "\\uXXXX or \\cX)",
                "write the character as \\x{XXXX}"};
      }
      return {"invalid escape '" + std::string(arg) + "'", "write \\\\ for a literal backslash"};
    case re2::RE2::ErrorTrailingBackslash: return {"trailing backslash", "write \\\\ for a literal backslash"};
    case re2::RE2::ErrorBadPerlOp:
      if (arg == "(?=" || arg == "(?!") {
        return {"lookahead '" + std::string(arg) + "'" + re2_syntax + "lookaround)",
                "match the text itself, or leave it to an --nvtx-exclude"};
      }
      if (arg == "(?<") {
        return {"lookbehind or named group '(?<'" + re2_syntax + "lookaround)",
                "match the text itself; name a group (?P<name>...)"};
      }
      if (arg == "(?>") {
        return {"atomic group '(?>'" + re2_syntax + "atomic groups)", "write a plain group (?:...)"};
      }
      return {"unknown group flag or operator '" + std::string(arg) + "'",
              "write (?:...) for a group, or flags such as (?i)"};
    case re2::RE2::ErrorBadNamedCapture:
      return {"invalid group name '" + std::string(arg) + "'", "write (?P<name>...) with a name of letters and digits"};
    case re2::RE2::ErrorBadUTF8: return {"invalid UTF-8", "write the pattern as UTF-8 text, a code point as \\x{HHHH}"};
    case re2::RE2::ErrorPatternTooLarge:
      return {
          "pattern too large (its program needs over " + std::to_string(NameMatcher::kRegexMaxMemBytes >> 20) + " MiB)",
          "shorten it or lower its repeat counts"};
    default: return {"invalid pattern", "fix the pattern, or write \\c for a literal character c"};
  }
}

// The options of every regex name: UTF-8, no capturing groups (only whether
// a name matches counts), bounded memory, and no logging (RE2 would write to
// the application's stderr).
re2::RE2::Options regex_options() {
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_never_capture(true);
  options.set_max_mem(NameMatcher::kRegexMaxMemBytes);
  return options;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view option) : text_(text), option_(option) {}

  StatusOr<NvtxExpression> run(std::size_t* error_column) {
    std::optional<ParseError> err = parse();
    if (!err) return std::move(expr_);
    return column_parse_error(option_, text_, err->col, err->problem, err->hint, error_column);
  }

 private:
  std::optional<ParseError> parse() {
    expr_.text = std::string(text_);
    std::size_t pos = 0;
    if (text_.starts_with(kRegexPrefix)) {
      regex_ = true;
      pos = kRegexPrefix.size();
    }
    std::vector<Tok> toks;
    for (std::size_t i = pos; i < text_.size(); ++i) {
      if (text_[i] == '\\') {
        if (i + 1 == text_.size()) return ParseError{i, "dangling '\\'", "write \\\\ for a backslash"};
        toks.push_back(Tok{text_[i + 1], true, false, i});
        ++i;
      } else {
        toks.push_back(Tok{text_[i], false, false, i});
      }
    }
    if (toks.empty()) {
      return ParseError{pos, "empty expression",
                        "write a range name, e.g. step/ (push/pop range) or step (start/end range)"};
    }

    // Domain: everything before the first unescaped '@'.
    std::size_t at = toks.size();
    for (std::size_t i = 0; i < toks.size(); ++i) {
      if (!is_plain(toks[i], '@')) continue;
      if (at != toks.size()) {
        return ParseError{toks[i].col, "second domain '@'",
                          "an expression names one domain; use one --" + std::string(option_) + " per domain"};
      }
      at = i;
    }
    std::vector<Tok> body;
    if (at != toks.size()) {
      std::vector<Tok> domain(toks.begin(), toks.begin() + static_cast<std::ptrdiff_t>(at));
      if (domain.empty()) {
        return ParseError{toks[at].col, "empty domain name", "leave out '@' for the default domain"};
      }
      if (!regex_) {
        for (const Tok& t : domain) {
          if (!t.escaped && std::string_view("/,[]*+").find(t.c) != std::string_view::npos) {
            return ParseError{t.col, "unescaped " + quoted(t.c) + " in the domain name",
                              std::string("write \\") + t.c + " for a literal " + quoted(t.c)};
          }
        }
      }
      auto matcher = make_name(domain, "domain");
      if (!matcher) return matcher_error_;
      expr_.domain = std::move(*matcher);
      body.assign(toks.begin() + static_cast<std::ptrdiff_t>(at) + 1, toks.end());
      if (body.empty()) {
        return ParseError{text_.size(), "empty range name",
                          "name a range after '@', e.g. " + std::string(text_) + "step/"};
      }
    } else {
      body = std::move(toks);
    }
    return parse_body(std::move(body));
  }

  std::optional<ParseError> parse_body(std::vector<Tok> body) {
    std::optional<std::size_t> bottom_col, top_col;  // columns of the '[' / ']' anchors
    // Bottom anchor, or regex mode's "/[" literal bracket.
    if (regex_ && body.size() >= 2 && is_plain(body[0], '/') && is_plain(body[1], '[')) {
      body.erase(body.begin());
      body[0].raw = true;
    } else if (is_plain(body[0], '[')) {
      expr_.bottom_anchored = true;
      bottom_col = body[0].col;
      body.erase(body.begin());
    }
    // Top anchor, or regex mode's "/]" literal bracket.
    const std::size_t n = body.size();
    if (regex_ && n >= 2 && is_plain(body[n - 2], '/') && is_plain(body[n - 1], ']')) {
      body.erase(body.begin() + static_cast<std::ptrdiff_t>(n - 2));
      body.back().raw = true;
    } else if (n >= 1 && is_plain(body[n - 1], ']')) {
      expr_.top_anchored = true;
      top_col = body[n - 1].col;
      if (n >= 2 && is_plain(body[n - 2], '/')) {
        std::string fixed(text_);
        fixed.erase(body[n - 2].col, 1);
        return ParseError{body[n - 2].col, "'/' before the top-of-stack ']'", "write " + fixed};
      }
      body.pop_back();
    }
    const std::optional<std::size_t> anchor_col = bottom_col ? bottom_col : top_col;

    // Split into elements at unescaped '/' and ','.
    struct Element {
      std::vector<Tok> toks;
      std::size_t col;
    };
    std::vector<Element> elements;
    std::size_t start_col = text_.size();
    if (!body.empty()) {
      start_col = body[0].col;
    } else if (bottom_col) {
      start_col = *bottom_col + 1;
    } else if (top_col) {
      start_col = *top_col;
    }
    elements.push_back(Element{{}, start_col});
    std::optional<std::size_t> first_slash, first_comma;
    bool trailing_slash = false;
    for (std::size_t i = 0; i < body.size(); ++i) {
      const Tok& t = body[i];
      if (is_plain(t, '/') || is_plain(t, ',')) {
        auto& first = t.c == '/' ? first_slash : first_comma;
        auto& other = t.c == '/' ? first_comma : first_slash;
        if (other) {
          return ParseError{t.col,
                            t.c == '/' ? "'/' (push/pop ranges) mixed with ',' (start/end ranges)"
                                       : "',' (start/end ranges) mixed with '/' (push/pop ranges)",
                            "use one --" + std::string(option_) + " per range kind"};
        }
        if (!first) first = t.col;
        const std::size_t next_col = i + 1 < body.size() ? body[i + 1].col : t.col + 1;
        elements.push_back(Element{{}, next_col});
        trailing_slash = t.c == '/' && i + 1 == body.size();
        continue;
      }
      elements.back().toks.push_back(t);
    }
    if (first_comma && anchor_col) {
      return ParseError{*anchor_col, "stack anchor " + quoted(text_[*anchor_col]) + " in a start/end (',') expression",
                        "anchors apply to push/pop ranges; drop it or use '/' between names"};
    }
    expr_.kind = (first_slash || anchor_col) ? NvtxRangeKind::kPushPop : NvtxRangeKind::kStartEnd;
    if (trailing_slash && elements.size() >= 2 && elements.back().toks.empty()) elements.pop_back();

    for (const Element& e : elements) {
      if (e.toks.empty()) return ParseError{e.col, "empty range name", "write " + fix_empty(e.col)};
    }
    for (std::size_t i = 0; i < elements.size(); ++i) {
      const std::vector<Tok>& et = elements[i].toks;
      // A lone '*' or '+' is a wildcard element, except among regex
      // start/end names, which have no wildcards: there it is a regex (and
      // reported as one: nothing to repeat).
      const bool wildcard_possible = !(regex_ && expr_.kind == NvtxRangeKind::kStartEnd);
      if (wildcard_possible && et.size() == 1 && (is_plain(et[0], '*') || is_plain(et[0], '+'))) {
        const char w = et[0].c;
        if (expr_.kind == NvtxRangeKind::kStartEnd) {
          return ParseError{et[0].col, "wildcard " + quoted(w) + " in a start/end expression",
                            std::string("write \\") + w + " for a range named " + quoted(w)};
        }
        if (i == 0 || i + 1 == elements.size()) {
          return ParseError{et[0].col, "wildcard " + quoted(w) + " without a range name on both sides",
                            std::string("write it between two names, e.g. A/") + w + "/B"};
        }
        expr_.elements.push_back(
            NvtxElement{w == '*' ? NvtxElement::Kind::kAnyMany : NvtxElement::Kind::kAnyOne, std::nullopt});
        continue;
      }
      if (!regex_) {
        for (const Tok& t : et) {
          if (t.escaped) continue;
          if (t.c == '*' || t.c == '+') {
            return ParseError{t.col, "unescaped " + quoted(t.c) + " inside a range name",
                              std::string("a wildcard is a whole element (A/") + t.c + "/B); write \\" + t.c +
                                  " for a literal " + quoted(t.c)};
          }
          if (t.c == '[' || t.c == ']') {
            return ParseError{t.col, "unescaped " + quoted(t.c) + " inside a range name",
                              std::string(t.c == '[' ? "'[' marks the stack bottom only as the first character"
                                                     : "']' marks the stack top only as the last character") +
                                  "; write \\" + t.c + " for a literal " + quoted(t.c)};
          }
        }
      }
      auto matcher = make_name(et, "range");
      if (!matcher) return matcher_error_;
      expr_.elements.push_back(NvtxElement{NvtxElement::Kind::kName, std::move(*matcher)});
    }
    return std::nullopt;
  }

  // The text with the delimiter next to an empty name removed (the usual
  // fix), and push/pop kept push/pop by a trailing '/'.
  std::string fix_empty(std::size_t col) const {
    std::string fixed(text_);
    auto is_delim = [&](std::size_t i) { return fixed[i] == '/' || fixed[i] == ','; };
    if (col < fixed.size() && is_delim(col)) {
      fixed.erase(col, 1);
    } else if (col > 0 && col - 1 < fixed.size() && is_delim(col - 1)) {
      fixed.erase(col - 1, 1);
    } else if ((col < fixed.size() && fixed[col] == ']') ||
               (col > 0 && col - 1 < fixed.size() && fixed[col - 1] == '[')) {
      fixed.insert(col, "step");
    }
    std::size_t names = fixed.starts_with(kRegexPrefix) ? kRegexPrefix.size() : 0;
    if (const auto at = fixed.find('@', names); at != std::string::npos) names = at + 1;
    // The other empty names go the same way, so that the fix parses: a
    // doubled delimiter is written once, and none leads the names (after a
    // '[' anchor either), and none ends them. Not in a regex or where a
    // backslash may escape a delimiter (the fix would change the names);
    // there a fix that does not parse gives way to the example below.
    if (fixed.find('\\') == std::string::npos && !fixed.starts_with(kRegexPrefix)) {
      for (const char* doubled : {"//", ",,"})
        for (std::size_t at = fixed.find(doubled, names); at != std::string::npos; at = fixed.find(doubled, names))
          fixed.erase(at, 1);
      const std::size_t first = names < fixed.size() && fixed[names] == '[' ? names + 1 : names;  // after an anchor
      while (first < fixed.size() && is_delim(first)) fixed.erase(first, 1);
      while (fixed.size() > first && fixed.back() == ',') fixed.pop_back();
    }
    const std::string example = "a range name, e.g. " + fixed.substr(0, names) + "step/";
    std::string_view body = std::string_view(fixed).substr(names);
    if (body.empty()) return example;
    const bool push_pop_marked = body.find('/') != std::string_view::npos || body.front() == '[' || body.back() == ']';
    if (expr_.kind == NvtxRangeKind::kPushPop && !push_pop_marked) fixed.push_back('/');
    // A fix is only offered when it parses itself (checked without
    // suggestions of its own, so the check ends).
    if (!suggest_) return fixed;
    Parser check(fixed, option_);
    check.suggest_ = false;
    return check.run(nullptr).ok() ? fixed : example;
  }

  // Builds a name from tokens: exact text, or a compiled regex.
  std::optional<NameMatcher> make_name(const std::vector<Tok>& toks, std::string_view what) {
    std::string s;
    if (!regex_) {
      for (const Tok& t : toks) s.push_back(t.c);
      return NameMatcher::exact(std::move(s));
    }
    for (const Tok& t : toks) {
      if (t.escaped && std::string_view("@,/").find(t.c) == std::string_view::npos) s.push_back('\\');
      s.push_back(t.c);
    }
    RegexProblem problem;
    StatusOr<NameMatcher> matcher = NameMatcher::compile(s, &problem);
    if (matcher.ok()) return std::move(*matcher);
    matcher_error_ = ParseError{toks.front().col,
                                "regex: " + problem.problem + " in the " + std::string(what) + " pattern '" + s + "'",
                                std::move(problem.hint)};
    return std::nullopt;
  }

  std::string_view text_;
  std::string_view option_;
  bool suggest_ = true;  // false: checking a suggested fix (fix_empty)
  bool regex_ = false;
  NvtxExpression expr_;
  ParseError matcher_error_{0, "", ""};
};

}  // namespace

NameMatcher NameMatcher::exact(std::string text) {
  NameMatcher m;
  m.text_ = std::move(text);
  return m;
}

StatusOr<NameMatcher> NameMatcher::compile(std::string pattern, RegexProblem* problem) {
  auto regex = std::make_shared<const re2::RE2>(pattern, regex_options());
  if (!regex->ok()) {
    RegexProblem p = regex_problem(regex->error_code(), regex->error_arg());
    std::string message = p.problem + "; " + p.hint;
    if (problem) *problem = std::move(p);
    return invalid_argument(std::move(message));
  }
  NameMatcher m;
  m.text_ = std::move(pattern);
  m.regex_ = std::move(regex);
  return m;
}

bool NameMatcher::matches(std::string_view name) const {
  if (!regex_) return name == text_;
  if (name.size() > kMaxMatchedNameBytes) {
    // Cut before a UTF-8 continuation byte, so that the last character is
    // whole (at most 3 steps back: a character has at most 4 bytes).
    std::size_t cut = kMaxMatchedNameBytes;
    for (int step = 0; step < 3 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80; ++step) --cut;
    name = name.substr(0, cut);
  }
  return re2::RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *regex_);
}

bool NvtxExpression::matches_domain(std::string_view name) const {
  if (!domain) return name.empty();
  if (name.empty()) return false;
  return domain->matches(name);
}

bool NvtxExpression::matches_stack(std::span<const std::string> stack) const {
  if (kind != NvtxRangeKind::kPushPop || elements.empty()) return false;
  const std::size_t n = stack.size();
  // reach[j]: the elements so far can end just below stack position j.
  std::vector<char> reach(n + 1, 0), next(n + 1, 0);
  if (bottom_anchored) {
    reach[0] = 1;
  } else {
    std::fill(reach.begin(), reach.end(), 1);
  }
  for (const NvtxElement& e : elements) {
    std::fill(next.begin(), next.end(), 0);
    bool any = false;
    if (e.kind == NvtxElement::Kind::kAnyMany) {
      const auto first = std::find(reach.begin(), reach.end(), 1);
      for (auto it = first; it != reach.end(); ++it) next[static_cast<std::size_t>(it - reach.begin())] = 1;
      any = first != reach.end();
    } else {
      for (std::size_t j = 0; j < n; ++j) {
        if (!reach[j]) continue;
        if (e.kind == NvtxElement::Kind::kAnyOne || e.name->matches(stack[j])) {
          next[j + 1] = 1;
          any = true;
        }
      }
    }
    if (!any) return false;
    std::swap(reach, next);
  }
  if (top_anchored) return reach[n] != 0;
  return true;  // some position was reached (checked per element)
}

bool NvtxExpression::matches_open_ranges(std::span<const std::string> open_names) const {
  if (kind != NvtxRangeKind::kStartEnd || elements.empty()) return false;
  for (const NvtxElement& e : elements) {
    const bool open = std::any_of(open_names.begin(), open_names.end(),
                                  [&](const std::string& name) { return e.name->matches(name); });
    if (!open) return false;
  }
  return true;
}

StatusOr<NvtxExpression> parse_nvtx_expression(std::string_view text, std::string_view option,
                                               std::size_t* error_column) {
  return Parser(text, option).run(error_column);
}

}  // namespace rangereplay::range
