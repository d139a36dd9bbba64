// Parser tests of NVTX include/exclude expressions: every form of Nsight
// Compute's syntax parses to the expected AST, and malformed expressions are
// rejected with the exact message and 0-based column.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "core/range/nvtx_expression.h"

namespace rangereplay::range {
namespace {

std::string describe_name(const NameMatcher& m) { return (m.is_regex() ? "re\"" : "\"") + m.text() + "\""; }

// Compact form of an AST: kind, domain@, '[', elements, ']'.
std::string describe(const NvtxExpression& e) {
  std::string out = e.kind == NvtxRangeKind::kPushPop ? "pp " : "se ";
  if (e.domain) out += describe_name(*e.domain) + "@";
  if (e.bottom_anchored) out += "[";
  for (std::size_t i = 0; i < e.elements.size(); ++i) {
    if (i) out += e.kind == NvtxRangeKind::kPushPop ? "/" : ",";
    const NvtxElement& el = e.elements[i];
    if (el.kind == NvtxElement::Kind::kAnyOne) {
      out += "+";
    } else if (el.kind == NvtxElement::Kind::kAnyMany) {
      out += "*";
    } else {
      out += describe_name(*el.name);
    }
  }
  if (e.top_anchored) out += "]";
  return out;
}

std::string parsed(const std::string& text) {
  StatusOr<NvtxExpression> e = parse_nvtx_expression(text);
  if (!e.ok()) return "error: " + e.status().message();
  EXPECT_EQ(e->text, text);
  return describe(*e);
}

struct ValidCase {
  const char* text;
  const char* ast;
};

TEST(NvtxExpressionParse, every_documented_form_parses_to_its_ast) {
  const ValidCase cases[] = {
      // push/pop
      {"A/", R"(pp "A")"},
      {"A/B", R"(pp "A"/"B")"},
      {"A/B/", R"(pp "A"/"B")"},
      {"[A", R"(pp ["A")"},
      {"[A/B", R"(pp ["A"/"B")"},
      {"A]", R"(pp "A"])"},
      {"A/B]", R"(pp "A"/"B"])"},
      {"[A]", R"(pp ["A"])"},
      {"A/+/C", R"(pp "A"/+/"C")"},
      {"A/*/C", R"(pp "A"/*/"C")"},
      {"A/+/+/D", R"(pp "A"/+/+/"D")"},
      {"[A_range/+/Range Z", R"(pp ["A_range"/+/"Range Z")"},
      {"Range C/*/Range Z]", R"(pp "Range C"/*/"Range Z"])"},
      {"Domain-A@A_range/", R"(pp "Domain-A"@"A_range")"},
      {"Domain B@A_range/*/Range Z]", R"(pp "Domain B"@"A_range"/*/"Range Z"])"},
      {" A /", R"(pp " A ")"},
      // start/end
      {"A", R"(se "A")"},
      {"A,B", R"(se "A","B")"},
      {"B range,A_range,Range C", R"(se "B range","A_range","Range C")"},
      {"Domain-A@A_range", R"(se "Domain-A"@"A_range")"},
      // escapes
      {R"(A_range\[i\])", R"(se "A_range[i]")"},
      {R"(a\/b/)", R"(pp "a/b")"},
      {R"(c\+\+/)", R"(pp "c++")"},
      {R"(A\\/)", R"(pp "A\")"},
      {R"(a@b\@c/)", R"(pp "a"@"b@c")"},
      {R"(x\,y)", R"(se "x,y")"},
      {R"(\*)", R"(se "*")"},
      // regex
      {"regex:iter_[0-9]+/", R"(pp re"iter_[0-9]+")"},
      {"regex:Domain[A-Z]@Range[0-9]/", R"(pp re"Domain[A-Z]"@re"Range[0-9]")"},
      {"regex:[0-9]domainA@/[0-9]rangeA,RangeC[0-9/]", R"(se re"[0-9]domainA"@re"[0-9]rangeA",re"RangeC[0-9]")"},
      {"regex:^step$/", R"(pp re"^step$")"},
      {R"(regex:a\,b)", R"(se re"a,b")"},
      {R"(regex:a\.b/)", R"(pp re"a\.b")"},
      {R"(regex:\d+\/x/)", R"(pp re"\d+/x")"},
      {"regex:[A", R"(pp [re"A")"},
      {"regex:A/*/B]", R"(pp re"A"/*/re"B"])"},
      {"regex:/[ab]/", R"(pp re"[ab]")"},
  };
  for (const ValidCase& c : cases) {
    EXPECT_EQ(parsed(c.text), c.ast) << "expression: " << c.text;
  }
}

struct InvalidCase {
  const char* text;
  std::size_t column;
  const char* message;
};

TEST(NvtxExpressionParse, malformed_expressions_name_the_problem_and_its_column) {
  const InvalidCase cases[] = {
      {"", 0,
       "nvtx-include '': empty expression at column 1; write a range name, e.g. step/ (push/pop range) or step "
       "(start/end range)"},
      {"regex:", 6,
       "nvtx-include 'regex:': empty expression at column 7; write a range name, e.g. step/ (push/pop range) or "
       "step (start/end range)"},
      {"A//B", 2, "nvtx-include 'A//B': empty range name at column 3; write A/B"},
      {"A//", 2, "nvtx-include 'A//': empty range name at column 3; write A/"},
      {"/A", 0, "nvtx-include '/A': empty range name at column 1; write A/"},
      {"/", 0, "nvtx-include '/': empty range name at column 1; write a range name, e.g. step/"},
      {"//", 0, "nvtx-include '//': empty range name at column 1; write a range name, e.g. step/"},
      {"//A", 0, "nvtx-include '//A': empty range name at column 1; write A/"},
      {"A///B", 2, "nvtx-include 'A///B': empty range name at column 3; write A/B"},
      {"A,,", 2, "nvtx-include 'A,,': empty range name at column 3; write A"},
      {"D@/", 2, "nvtx-include 'D@/': empty range name at column 3; write a range name, e.g. D@step/"},
      {"[//A", 1, "nvtx-include '[//A': empty range name at column 2; write [A"},
      {"A\\//B//C", 6, "nvtx-include 'A\\//B//C': empty range name at column 7; write A\\//B/C"},
      {"A,", 2, "nvtx-include 'A,': empty range name at column 3; write A"},
      {",A", 0, "nvtx-include ',A': empty range name at column 1; write A"},
      {"A,,B", 2, "nvtx-include 'A,,B': empty range name at column 3; write A,B"},
      {"[/A", 1, "nvtx-include '[/A': empty range name at column 2; write [A"},
      {"[", 1, "nvtx-include '[': empty range name at column 2; write [step"},
      {"]", 0, "nvtx-include ']': empty range name at column 1; write step]"},
      {"D@/A", 2, "nvtx-include 'D@/A': empty range name at column 3; write D@A/"},
      {"A/]", 1, "nvtx-include 'A/]': '/' before the top-of-stack ']' at column 2; write A]"},
      {"A,B/C", 3,
       "nvtx-include 'A,B/C': '/' (push/pop ranges) mixed with ',' (start/end ranges) at column 4; use one "
       "--nvtx-include per range kind"},
      {"A/B,C", 3,
       "nvtx-include 'A/B,C': ',' (start/end ranges) mixed with '/' (push/pop ranges) at column 4; use one "
       "--nvtx-include per range kind"},
      {"[A,B", 0,
       "nvtx-include '[A,B': stack anchor '[' in a start/end (',') expression at column 1; anchors apply to "
       "push/pop ranges; drop it or use '/' between names"},
      {"A,B]", 3,
       "nvtx-include 'A,B]': stack anchor ']' in a start/end (',') expression at column 4; anchors apply to "
       "push/pop ranges; drop it or use '/' between names"},
      {"D1@A,D2@B", 7,
       "nvtx-include 'D1@A,D2@B': second domain '@' at column 8; an expression names one domain; use one "
       "--nvtx-include per domain"},
      {"@A/", 0, "nvtx-include '@A/': empty domain name at column 1; leave out '@' for the default domain"},
      {"D@", 2, "nvtx-include 'D@': empty range name at column 3; name a range after '@', e.g. D@step/"},
      {"*/A", 0,
       "nvtx-include '*/A': wildcard '*' without a range name on both sides at column 1; write it between two "
       "names, e.g. A/*/B"},
      {"A/+", 2,
       "nvtx-include 'A/+': wildcard '+' without a range name on both sides at column 3; write it between two "
       "names, e.g. A/+/B"},
      {"A/*/", 2,
       "nvtx-include 'A/*/': wildcard '*' without a range name on both sides at column 3; write it between two "
       "names, e.g. A/*/B"},
      {"A,*", 2,
       "nvtx-include 'A,*': wildcard '*' in a start/end expression at column 3; write \\* for a range "
       "named '*'"},
      {"A*B/", 1,
       "nvtx-include 'A*B/': unescaped '*' inside a range name at column 2; a wildcard is a whole element "
       "(A/*/B); write \\* for a literal '*'"},
      {"c++/", 1,
       "nvtx-include 'c++/': unescaped '+' inside a range name at column 2; a wildcard is a whole element "
       "(A/+/B); write \\+ for a literal '+'"},
      {"layer[3]/", 5,
       "nvtx-include 'layer[3]/': unescaped '[' inside a range name at column 6; '[' marks the stack bottom "
       "only as the first character; write \\[ for a literal '['"},
      {"A]/B", 1,
       "nvtx-include 'A]/B': unescaped ']' inside a range name at column 2; ']' marks the stack top only as the "
       "last character; write \\] for a literal ']'"},
      {"A\\", 1, "nvtx-include 'A\\': dangling '\\' at column 2; write \\\\ for a backslash"},
      {"D/x@A/", 1,
       "nvtx-include 'D/x@A/': unescaped '/' in the domain name at column 2; write \\/ for a "
       "literal '/'"},
  };
  for (const InvalidCase& c : cases) {
    std::size_t column = 999;
    StatusOr<NvtxExpression> e = parse_nvtx_expression(c.text, "nvtx-include", &column);
    ASSERT_FALSE(e.ok()) << "expression: " << c.text;
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(e.status().message(), c.message) << "expression: " << c.text;
    EXPECT_EQ(column, c.column) << "expression: " << c.text;
  }
}

TEST(NvtxExpressionParse, an_invalid_regex_is_reported_at_the_start_of_its_name) {
  std::size_t column = 0;
  StatusOr<NvtxExpression> e = parse_nvtx_expression("regex:ok/A(", "nvtx-include", &column);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(column, 9u);
  EXPECT_EQ(e.status().message(),
            "nvtx-include 'regex:ok/A(': regex: unbalanced parentheses in the range pattern 'A(' at column 10; "
            "close each '(' with ')', or write \\( for a literal '('");
}

TEST(NvtxExpressionParse, an_invalid_domain_regex_is_reported_at_the_domain) {
  std::size_t column = 0;
  StatusOr<NvtxExpression> e = parse_nvtx_expression("regex:D(@A/", "nvtx-exclude", &column);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(column, 6u);
  EXPECT_EQ(e.status().message(),
            "nvtx-exclude 'regex:D(@A/': regex: unbalanced parentheses in the domain pattern 'D(' at column 7; "
            "close each '(' with ')', or write \\( for a literal '('");
}

TEST(NvtxExpressionParse, regex_errors_are_in_our_words_not_re2_s) {
  // Each RE2 error code the patterns below raise, with the message the user
  // sees: no "invalid perl operator" or "bad repetition operator".
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"regex:(",
       "nvtx-include 'regex:(': regex: unbalanced parentheses in the range pattern '(' at column 7; "
       "close each '(' with ')', or write \\( for a literal '('"},
      {"regex:a)/",
       "nvtx-include 'regex:a)/': regex: unbalanced parentheses in the range pattern 'a)' at column 7; "
       "close each '(' with ')', or write \\( for a literal '('"},
      {"regex:x/[ab",
       "nvtx-include 'regex:x/[ab': regex: unbalanced square brackets in the range pattern '[ab' at "
       "column 9; close each '[' with ']', or write \\[ for a literal '['"},
      // "\\," is a plain ',' in regex mode (a bare ',' separates start/end names).
      {"regex:a{3\\,2}/",
       "nvtx-include 'regex:a{3\\,2}/': regex: invalid repeat count {3,2} in the range pattern "
       "'a{3,2}' at column 7; write {N}, {N,} or {N,M} with N <= M <= 1000 (RE2's largest count, also for "
       "nested repeats)"},
      {"regex:a{1001}",
       "nvtx-include 'regex:a{1001}': regex: invalid repeat count {1001} in the range pattern 'a{1001}' at "
       "column 7; write {N}, {N,} or {N,M} with N <= M <= 1000 (RE2's largest count, also for nested repeats)"},
      // A last ']' would be the top-of-stack anchor: the patterns go on after theirs.
      {"regex:x/[z-a]b",
       "nvtx-include 'regex:x/[z-a]b': regex: invalid character range 'z-a' in the range pattern "
       "'[z-a]b' at column 9; write ranges low to high, e.g. [a-z]"},
      {"regex:\\q",
       "nvtx-include 'regex:\\q': regex: invalid escape '\\q' in the range pattern '\\q' at column 7; "
       "write \\\\ for a literal backslash"},
      {"regex:x/[[:foo:]]b",
       "nvtx-include 'regex:x/[[:foo:]]b': regex: unknown character class '[:foo:]' in the "
       "range pattern '[[:foo:]]b' at column 9; use a class such as [[:digit:]] or [[:alpha:]]"},
      // Start/end names have no wildcards: a lone '*' or '+' there is a regex.
      {"regex:*",
       "nvtx-include 'regex:*': regex: repeat '*', '+', '?' or '{' with nothing to repeat in the range "
       "pattern '*' at column 7; put it after a character, or write \\* for a literal '*'"},
      {"regex:A,+",
       "nvtx-include 'regex:A,+': regex: repeat '*', '+', '?' or '{' with nothing to repeat in the "
       "range pattern '+' at column 9; put it after a character, or write \\+ for a literal '+'"},
      {"regex:a|?",
       "nvtx-include 'regex:a|?': regex: repeat '*', '+', '?' or '{' with nothing to repeat in the "
       "range pattern 'a|?' at column 7; put it after a character, or write \\? for a literal '?'"},
      {"regex:x/[(*]|(?:y)(",
       "nvtx-include 'regex:x/[(*]|(?:y)(': regex: unbalanced parentheses in the range "
       "pattern '[(*]|(?:y)(' at column 9; close each '(' with ')', or write \\( for a "
       "literal '('"},
      {"regex:\xff/",
       "nvtx-include 'regex:\xff/': regex: invalid UTF-8 in the range pattern '\xff' at column 7; write the "
       "pattern as UTF-8 text, a code point as \\x{HHHH}"},
  };
  for (const auto& [text, message] : cases) {
    StatusOr<NvtxExpression> e = parse_nvtx_expression(text, "nvtx-include");
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_EQ(e.status().message(), message) << text;
  }
}

TEST(NvtxExpressionParse, constructs_re2_lacks_are_named_with_the_syntax_rangereplay_uses) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"regex:(a)\\1/",
       "nvtx-include 'regex:(a)\\1/': regex: backreference '\\1' (rangereplay's regex: names use RE2 syntax, "
       "which has no backreferences) in the range pattern '(a)\\1' at column 7; repeat the group's text "
       "instead, e.g. (ab)ab for (ab)\\1"},
      {"regex:(?<n>a)\\k<n>/",
       "nvtx-include 'regex:(?<n>a)\\k<n>/': regex: lookbehind or named group '(?<' (rangereplay's regex: "
       "names use RE2 syntax, which has no lookaround) in the range pattern '(?<n>a)\\k<n>' at column 7; "
       "match the text itself; name a group (?P<name>...)"},
      {"regex:a\\k<n>/",
       "nvtx-include 'regex:a\\k<n>/': regex: named backreference '\\k' (rangereplay's regex: names use RE2 "
       "syntax, which has no backreferences) in the range pattern 'a\\k<n>' at column 7; repeat the group's "
       "text instead"},
      {"regex:fwd(?=_mm)/",
       "nvtx-include 'regex:fwd(?=_mm)/': regex: lookahead '(?=' (rangereplay's regex: names use RE2 syntax, "
       "which has no lookaround) in the range pattern 'fwd(?=_mm)' at column 7; match the text itself, or "
       "leave it to an --nvtx-exclude"},
      {"regex:fwd(?!_mm)/",
       "nvtx-include 'regex:fwd(?!_mm)/': regex: lookahead '(?!' (rangereplay's regex: names use RE2 syntax, "
       "which has no lookaround) in the range pattern 'fwd(?!_mm)' at column 7; match the text itself, or "
       "leave it to an --nvtx-exclude"},
      {"regex:(?<!x)mm/",
       "nvtx-include 'regex:(?<!x)mm/': regex: lookbehind or named group '(?<' (rangereplay's regex: names "
       "use RE2 syntax, which has no lookaround) in the range pattern '(?<!x)mm' at column 7; match the text "
       "itself; name a group (?P<name>...)"},
      {"regex:(?>a+)b/",
       "nvtx-include 'regex:(?>a+)b/': regex: atomic group '(?>' (rangereplay's regex: names use RE2 syntax, "
       "which has no atomic groups) in the range pattern '(?>a+)b' at column 7; write a plain group (?:...)"},
      {"regex:a*+/",
       "nvtx-include 'regex:a*+/': regex: repeat operator '*+' (rangereplay's regex: names use RE2 syntax, "
       "which has no possessive or doubled repeats) in the range pattern 'a*+' at column 7; write one of *, +, "
       "?, {N,M}, each optionally followed by ? (lazy)"},
      {"regex:\\u0041/",
       "nvtx-include 'regex:\\u0041/': regex: escape '\\u' (rangereplay's regex: names use RE2 syntax, which "
       "has no \\uXXXX or \\cX) in the range pattern '\\u0041' at column 7; write the character as \\x{XXXX}"},
  };
  for (const auto& [text, message] : cases) {
    StatusOr<NvtxExpression> e = parse_nvtx_expression(text, "nvtx-include");
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_EQ(e.status().message(), message) << text;
    EXPECT_EQ(e.status().message().find('\n'), std::string::npos) << text;
  }
}

TEST(NvtxExpressionParse, a_30000_deep_nested_regex_compiles_without_recursion) {
  // A recursive regex compiler (std::regex) overflows its stack (SIGSEGV) here.
  const auto start = std::chrono::steady_clock::now();
  const std::string deep = std::string(30000, '(') + "a" + std::string(30000, ')');
  StatusOr<NvtxExpression> e = parse_nvtx_expression("regex:" + deep + "/");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_TRUE(e->matches_stack(std::vector<std::string>{"xay"}));
  EXPECT_FALSE(e->matches_stack(std::vector<std::string>{"xy"}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(NvtxExpressionParse, a_pattern_over_the_memory_bound_is_a_one_line_error) {
  // 2,000 repeats of 1,000 character classes: a program of millions of
  // instructions, past NameMatcher::kRegexMaxMemBytes.
  std::string huge = "x";
  for (int i = 0; i < 2000; ++i) huge += "[a-z]{1000}";
  const auto start = std::chrono::steady_clock::now();
  StatusOr<NvtxExpression> e = parse_nvtx_expression("regex:" + huge + "/");
  ASSERT_FALSE(e.ok());
  const std::string m = e.status().message();
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_NE(m.find("regex: pattern too large (its program needs over 8 MiB) in the range pattern 'x[a-z]{1000}"),
            std::string::npos)
      << m.substr(0, 200);
  EXPECT_TRUE(m.ends_with("at column 7; shorten it or lower its repeat counts")) << m.substr(m.size() - 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(NvtxExpressionParse, the_option_name_leads_the_message) {
  StatusOr<NvtxExpression> e = parse_nvtx_expression("A//B", "nvtx-exclude");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "nvtx-exclude 'A//B': empty range name at column 3; write A/B");
}

TEST(NvtxExpressionParse, an_error_column_is_left_alone_on_success) {
  std::size_t column = 42;
  ASSERT_TRUE(parse_nvtx_expression("A/B", "nvtx-include", &column).ok());
  EXPECT_EQ(column, 42u);
}

TEST(NvtxExpressionParse, a_long_name_of_unusual_characters_is_kept_verbatim) {
  const std::string name(4096, 'x');
  const std::string text = name + " \t.:;-_#$%&()=?!~\"'<>|{}/";
  StatusOr<NvtxExpression> e = parse_nvtx_expression(text);
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_EQ(e->elements.size(), 1u);
  EXPECT_EQ(e->elements[0].name->text(), name + " \t.:;-_#$%&()=?!~\"'<>|{}");
}

}  // namespace
}  // namespace rangereplay::range
