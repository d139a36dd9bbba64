// Matching tables of NVTX expressions: push/pop patterns against stacks
// (nesting, anchors, wildcards, regex), start/end names against open ranges,
// domains, and the include/exclude decisions of NvtxFilter.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/range/nvtx_expression.h"
#include "core/range/nvtx_filter.h"

namespace rangereplay::range {
namespace {

NvtxExpression expr(const std::string& text) {
  StatusOr<NvtxExpression> e = parse_nvtx_expression(text);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? std::move(e).value() : NvtxExpression{};
}

struct StackCase {
  const char* expression;
  std::vector<std::string> stack;  // bottom to top
  bool matches;
};

TEST(NvtxExpressionMatch, push_pop_patterns_against_stacks) {
  const StackCase cases[] = {
      // A/: A anywhere on the stack
      {"A/", {}, false},
      {"A/", {"A"}, true},
      {"A/", {"X", "A"}, true},
      {"A/", {"A", "X"}, true},
      {"A/", {"X"}, false},
      {"A/", {"A "}, false},
      {"A/", {"a"}, false},
      // A/B: B directly inside A
      {"A/B", {"A", "B"}, true},
      {"A/B", {"X", "A", "B", "Y"}, true},
      {"A/B", {"A", "X", "B"}, false},
      {"A/B", {"B", "A"}, false},
      {"A/B", {"A"}, false},
      // + exactly one between, * zero or more between
      {"A/+/C", {"A", "B", "C"}, true},
      {"A/+/C", {"Z", "A", "Q", "C", "Z"}, true},
      {"A/+/C", {"A", "C"}, false},
      {"A/+/C", {"A", "B", "B2", "C"}, false},
      {"A/+/+/D", {"A", "B", "C", "D"}, true},
      {"A/+/+/D", {"A", "B", "D"}, false},
      {"A/*/C", {"A", "C"}, true},
      {"A/*/C", {"A", "B", "C"}, true},
      {"A/*/C", {"A", "B", "D", "C"}, true},
      {"A/*/C", {"C", "A"}, false},
      {"A/*/C", {"A"}, false},
      {"A/*/B/*/C", {"A", "x", "B", "y", "z", "C"}, true},
      {"A/*/B/*/C", {"A", "C", "B"}, false},
      // [ bottom, ] top
      {"[A", {"A"}, true},
      {"[A", {"A", "B"}, true},
      {"[A", {"X", "A"}, false},
      {"[A/B", {"A", "B", "C"}, true},
      {"[A/B", {"X", "A", "B"}, false},
      {"A]", {"A"}, true},
      {"A]", {"X", "A"}, true},
      {"A]", {"A", "X"}, false},
      {"A/B]", {"X", "A", "B"}, true},
      {"A/B]", {"A", "B", "C"}, false},
      {"[A/*/B]", {"A", "B"}, true},
      {"[A/*/B]", {"A", "x", "y", "B"}, true},
      {"[A/*/B]", {"A", "B", "x"}, false},
      {"[A/*/B]", {"x", "A", "B"}, false},
      {"[A]", {"A"}, true},
      {"[A]", {"A", "A"}, false},
      {"[A/+/Z", {"A", "m", "Z", "q"}, true},
      // escapes and regex
      {R"(A_range\[i\]/)", {"A_range[i]"}, true},
      {"regex:^iter_[0-9]+$/", {"iter_12"}, true},
      {"regex:^iter_[0-9]+$/", {"iter_"}, false},
      {"regex:^iter_[0-9]+$/", {"xiter_1"}, false},
      {"regex:layer/", {"decoder.layer.3"}, true},
      {"regex:/[0-9]+/", {"step 4"}, true},
      {"regex:/[0-9]+/", {"step"}, false},
      {"regex:^fwd$/*/^mm", {"fwd", "linear", "mm_kernel"}, true},
  };
  for (const StackCase& c : cases) {
    std::string shown;
    for (const std::string& s : c.stack) shown += "[" + s + "]";
    EXPECT_EQ(expr(c.expression).matches_stack(c.stack), c.matches)
        << "expression " << c.expression << " against stack " << shown;
  }
}

TEST(NvtxExpressionMatch, a_deep_stack_matches_in_linear_passes) {
  std::vector<std::string> stack(10000, "x");
  stack.front() = "A";
  stack.back() = "B";
  EXPECT_TRUE(expr("[A/*/*/*/B]").matches_stack(stack));
  EXPECT_FALSE(expr("[A/*/*/*/C]").matches_stack(stack));
}

struct OpenCase {
  const char* expression;
  std::vector<std::string> open;
  bool matches;
};

TEST(NvtxExpressionMatch, start_end_names_against_open_ranges) {
  const OpenCase cases[] = {
      {"A", {}, false},
      {"A", {"A"}, true},
      {"A", {"B", "A"}, true},
      {"A,B", {"A"}, false},
      {"A,B", {"A", "B"}, true},
      {"A,B", {"B", "C", "A"}, true},
      {"regex:^step", {"step 3"}, true},
      {"regex:^step", {"warm step"}, false},
  };
  for (const OpenCase& c : cases) {
    EXPECT_EQ(expr(c.expression).matches_open_ranges(c.open), c.matches) << "expression " << c.expression;
  }
}

TEST(NvtxExpressionMatch, each_kind_only_matches_its_own_state) {
  const std::vector<std::string> names = {"A"};
  EXPECT_FALSE(expr("A").matches_stack(names));
  EXPECT_FALSE(expr("A/").matches_open_ranges(names));
}

TEST(NvtxExpressionMatch, domains_select_whose_ranges_are_seen) {
  EXPECT_TRUE(expr("A/").matches_domain(""));
  EXPECT_FALSE(expr("A/").matches_domain("D"));
  EXPECT_TRUE(expr("D@A/").matches_domain("D"));
  EXPECT_FALSE(expr("D@A/").matches_domain(""));
  EXPECT_FALSE(expr("D@A/").matches_domain("D2"));
  EXPECT_TRUE(expr("regex:^Py@A/").matches_domain("PyTorch"));
  EXPECT_FALSE(expr("regex:^Py@A/").matches_domain("NumPy"));
  EXPECT_FALSE(expr("regex:.*@A/").matches_domain(""));
}

NvtxFilter filter(std::vector<std::string> includes, std::vector<std::string> excludes = {}) {
  StatusOr<NvtxFilter> f = NvtxFilter::parse(includes, excludes);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return std::move(f).value();
}

TEST(NvtxFilter, a_push_begins_a_range_when_an_include_of_its_domain_matches) {
  const NvtxOpenRanges none;
  const NvtxStacks stacks = {{"", {"step"}}, {"D", {"step"}}};
  const NvtxState state{stacks, none};
  EXPECT_TRUE(filter({"step/"}).begins_at_push(state, ""));
  EXPECT_FALSE(filter({"step/"}).begins_at_push(state, "D"));
  EXPECT_TRUE(filter({"D@step/"}).begins_at_push(state, "D"));
  EXPECT_FALSE(filter({"other/"}).begins_at_push(state, ""));
  EXPECT_FALSE(filter({"step"}).begins_at_push(state, ""));  // start/end include
}

TEST(NvtxFilter, repeated_includes_are_alternatives) {
  const NvtxOpenRanges none;
  const NvtxStacks stacks = {{"", {"b"}}};
  EXPECT_TRUE(filter({"a/", "b/"}).begins_at_push(NvtxState{stacks, none}, ""));
}

TEST(NvtxFilter, any_matching_exclude_vetoes_a_beginning) {
  const NvtxOpenRanges open = {{"", {"warmup"}}};
  const NvtxOpenRanges none;
  const NvtxStacks stacks = {{"", {"outer", "step"}}};
  EXPECT_FALSE(filter({"step/"}, {"warmup"}).begins_at_push(NvtxState{stacks, open}, ""));
  EXPECT_TRUE(filter({"step/"}, {"warmup"}).begins_at_push(NvtxState{stacks, none}, ""));
  EXPECT_FALSE(filter({"step/"}, {"[outer"}).begins_at_push(NvtxState{stacks, none}, ""));
  EXPECT_TRUE(filter({"step/"}, {"[step"}).begins_at_push(NvtxState{stacks, none}, ""));
  EXPECT_FALSE(filter({"step/"}, {"x/", "outer/"}).begins_at_push(NvtxState{stacks, none}, ""));
}

TEST(NvtxFilter, a_start_begins_a_range_when_a_start_end_include_matches) {
  const NvtxStacks stacks;
  const NvtxOpenRanges open = {{"", {"a", "b"}}, {"D", {"a"}}};
  const NvtxState state{stacks, open};
  EXPECT_TRUE(filter({"a,b"}).begins_at_start(state, ""));
  EXPECT_FALSE(filter({"a,b"}).begins_at_start(state, "D"));
  EXPECT_TRUE(filter({"D@a"}).begins_at_start(state, "D"));
  EXPECT_FALSE(filter({"D@a,b"}).begins_at_start(state, "D"));
  EXPECT_TRUE(filter({"D@a,b"}).start_end_includes_match(NvtxState{stacks, NvtxOpenRanges{{"D", {"b", "a"}}}}));
  EXPECT_FALSE(filter({"a/"}).begins_at_start(state, ""));
}

TEST(NvtxFilter, parse_rejects_excludes_without_includes_and_forwards_parse_errors) {
  StatusOr<NvtxFilter> f = NvtxFilter::parse({}, std::vector<std::string>{"warmup"});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(),
            "nvtx-exclude needs at least one nvtx-include: a range begins at an included range's push or start");
  f = NvtxFilter::parse({}, {});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "no nvtx-include expression given");
  f = NvtxFilter::parse(std::vector<std::string>{"step/"}, std::vector<std::string>{"A//B"});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "nvtx-exclude 'A//B': empty range name at column 3; write A/B");
}

TEST(NvtxFilter, reports_which_range_kinds_it_includes) {
  EXPECT_TRUE(filter({"a/"}).has_push_pop_includes());
  EXPECT_FALSE(filter({"a/"}).has_start_end_includes());
  EXPECT_TRUE(filter({"a/", "b"}).has_start_end_includes());
}

// Each reproduction of a backtracking regex engine's failure runs under a
// time limit: RE2's time is linear in the (capped) name.
constexpr auto kMatchTimeLimit = std::chrono::seconds(2);

TEST(NvtxExpressionMatch, a_regex_against_a_40_kb_name_neither_crashes_nor_backtracks) {
  // A recursive matcher (std::regex) takes a stack frame per character here
  // and overflows the stack (SIGSEGV) inside the application.
  const NvtxExpression e = expr("regex:^.*x/");
  const auto start = std::chrono::steady_clock::now();
  std::string name(40000, 'a');
  EXPECT_FALSE(e.matches_stack(std::vector<std::string>{name + "x"}));  // 'x' past the matched prefix
  name[100] = 'x';
  EXPECT_TRUE(e.matches_stack(std::vector<std::string>{name}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, kMatchTimeLimit);
}

TEST(NvtxExpressionMatch, nested_repeats_take_linear_time) {
  // A backtracking matcher (std::regex) takes 9 s at 28 characters, twice as
  // long with each more.
  const NvtxExpression e = expr("regex:^(a+)+c$/");
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t n : {28u, 40u, 64u, 4095u}) {  // 4095 + "c": all within the matched bytes
    EXPECT_FALSE(e.matches_stack(std::vector<std::string>{std::string(n, 'a')})) << n;
    EXPECT_TRUE(e.matches_stack(std::vector<std::string>{std::string(n, 'a') + "c"})) << n;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, kMatchTimeLimit);
}

TEST(NvtxExpressionMatch, a_regex_sees_the_first_4096_bytes_of_a_name) {
  ASSERT_EQ(NameMatcher::kMaxMatchedNameBytes, 4096u);
  const std::string prefix(4095, 'a');
  // '$' matches at the cut: the 4097th byte and later are not seen.
  EXPECT_TRUE(expr("regex:^a+b$/").matches_stack(std::vector<std::string>{prefix + "b" + "tail"}));
  EXPECT_FALSE(expr("regex:tail/").matches_stack(std::vector<std::string>{prefix + "b" + "tail"}));
  EXPECT_TRUE(expr("regex:tail/").matches_stack(std::vector<std::string>{std::string(4092, 'a') + "tail"}));
  // A character across the cut is left out whole: "é" is 0xC3 0xA9 at bytes 4095 and 4096.
  EXPECT_TRUE(expr("regex:^a+$/").matches_stack(std::vector<std::string>{prefix + "\xC3\xA9"}));
  EXPECT_FALSE(expr("regex:\xC3\xA9/").matches_stack(std::vector<std::string>{prefix + "\xC3\xA9"}));
  EXPECT_TRUE(expr("regex:^a+.$/").matches_stack(std::vector<std::string>{std::string(4094, 'a') + "\xC3\xA9"}));
  // Exact names compare whole.
  EXPECT_TRUE(expr(prefix + "bc/").matches_stack(std::vector<std::string>{prefix + "bc"}));
  EXPECT_FALSE(expr(prefix + "b/").matches_stack(std::vector<std::string>{prefix + "bc"}));
}

TEST(NvtxExpressionMatch, a_regex_matches_characters_not_bytes) {
  EXPECT_TRUE(expr("regex:^caf.$/").matches_stack(std::vector<std::string>{"caf\xC3\xA9"}));
  EXPECT_TRUE(expr("regex:^(?i)STEP$/").matches_stack(std::vector<std::string>{"step"}));
  EXPECT_TRUE(expr("regex:^\\pL+_\\d+$/").matches_stack(std::vector<std::string>{"\xC3\xA9tape_3"}));
}

}  // namespace
}  // namespace rangereplay::range
