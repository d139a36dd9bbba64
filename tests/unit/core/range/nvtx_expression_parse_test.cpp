// Parser tests of NVTX include/exclude expressions: every form of Nsight
// Compute's syntax parses to the expected AST, and malformed expressions are
// rejected with the exact message and 0-based column.
#include <gtest/gtest.h>

#include <regex>
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

TEST(NvtxExpressionParse, regex_errors_are_in_our_words_not_the_standard_library_s) {
  // Each std::regex_error code the patterns below raise (libstdc++), with the
  // message the user sees: no "NFA states" or "_GLIBCXX_REGEX_STATE_LIMIT".
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
      {"regex:a{2",
       "nvtx-include 'regex:a{2': regex: unbalanced braces in the range pattern 'a{2' at column 7; "
       "close each '{' with '}', or write \\{ for a literal '{'"},
      // "\\," is a plain ',' in regex mode (a bare ',' separates start/end names).
      {"regex:a{3\\,2}/",
       "nvtx-include 'regex:a{3\\,2}/': regex: invalid repeat count in {} in the range pattern "
       "'a{3,2}' at column 7; write {N}, {N,} or {N,M} with N <= M"},
      {"regex:a{99999999999}",
       "nvtx-include 'regex:a{99999999999}': regex: repeat count too large or pattern too "
       "complex in the range pattern 'a{99999999999}' at column 7; shorten it"},
      // A last ']' would be the top-of-stack anchor: the patterns go on after theirs.
      {"regex:x/[z-a]b",
       "nvtx-include 'regex:x/[z-a]b': regex: invalid character range in the range pattern "
       "'[z-a]b' at column 9; write ranges low to high, e.g. [a-z]"},
      {"regex:\\c",
       "nvtx-include 'regex:\\c': regex: invalid escape in the range pattern '\\c' at column 7; "
       "write \\\\ for a literal backslash"},
      {"regex:(a)\\2",
       "nvtx-include 'regex:(a)\\2': regex: back reference to a group that does not exist in the "
       "range pattern '(a)\\2' at column 7; number groups from \\1 in order"},
      {"regex:x/[[:foo:]]b",
       "nvtx-include 'regex:x/[[:foo:]]b': regex: unknown name in [[. .]] or [[: :]] in the "
       "range pattern '[[:foo:]]b' at column 9; use a class such as [[:digit:]] or [[:alpha:]]"},
      // Start/end names have no wildcards: a lone '*' or '+' there is a regex.
      {"regex:*",
       "nvtx-include 'regex:*': regex: repeat '*', '+', '?' or '{' with nothing to repeat in the range "
       "pattern '*' at column 7; put it after a character, or write \\* for a literal '*'"},
      {"regex:A,+",
       "nvtx-include 'regex:A,+': regex: repeat '*', '+', '?' or '{' with nothing to repeat in the "
       "range pattern '+' at column 9; put it after a character, or write \\+ for a literal '+'"},
      // libstdc++ reports these as error_paren, yet no parenthesis is open.
      {"regex:a|?",
       "nvtx-include 'regex:a|?': regex: repeat '*', '+', '?' or '{' with nothing to repeat in the "
       "range pattern 'a|?' at column 7; put it after a character, or write \\? for a literal '?'"},
      {"regex:x/[(*]|(?:y)(",
       "nvtx-include 'regex:x/[(*]|(?:y)(': regex: unbalanced parentheses in the range "
       "pattern '[(*]|(?:y)(' at column 9; close each '(' with ')', or write \\( for a "
       "literal '('"},
  };
  for (const auto& [text, message] : cases) {
    StatusOr<NvtxExpression> e = parse_nvtx_expression(text, "nvtx-include");
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_EQ(e.status().message(), message) << text;
  }
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
