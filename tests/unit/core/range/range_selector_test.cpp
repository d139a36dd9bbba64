// RangeSelector: skip/count, the list form, early stop, and exact errors.
#include "core/range/range_selector.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace rangereplay::range {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(RangeSelector, by_default_every_match_is_selected) {
  const RangeSelector s;
  EXPECT_TRUE(s.selects(0));
  EXPECT_TRUE(s.selects(1));
  EXPECT_TRUE(s.selects(kMax));
  EXPECT_FALSE(s.last().has_value());
  EXPECT_FALSE(s.exhausted_after(kMax));
  EXPECT_EQ(s.to_string(), "0-");
}

TEST(RangeSelector, skip_then_count_selects_a_contiguous_run) {
  const RangeSelector s = RangeSelector::from_skip_count(2, 3).value();
  EXPECT_FALSE(s.selects(0));
  EXPECT_FALSE(s.selects(1));
  EXPECT_TRUE(s.selects(2));
  EXPECT_TRUE(s.selects(4));
  EXPECT_FALSE(s.selects(5));
  EXPECT_EQ(s.last(), 4u);
  EXPECT_FALSE(s.exhausted_after(3));
  EXPECT_TRUE(s.exhausted_after(4));
  EXPECT_EQ(s.to_string(), "2-4");
  EXPECT_EQ(s, RangeSelector::parse_list("2-4").value());
}

TEST(RangeSelector, skip_without_count_selects_the_rest) {
  const RangeSelector s = RangeSelector::from_skip_count(3, std::nullopt).value();
  EXPECT_FALSE(s.selects(2));
  EXPECT_TRUE(s.selects(3));
  EXPECT_TRUE(s.selects(kMax));
  EXPECT_EQ(s.to_string(), "3-");
  EXPECT_EQ(RangeSelector::from_skip_count(0, 1).value().to_string(), "0");
  EXPECT_EQ(RangeSelector::from_skip_count(kMax, 1).value().to_string(), std::to_string(kMax));
}

TEST(RangeSelector, a_zero_count_or_an_overflowing_run_is_rejected) {
  StatusOr<RangeSelector> s = RangeSelector::from_skip_count(5, 0);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "range-count 0 selects no range; give 1 or more, or leave it out for all");
  s = RangeSelector::from_skip_count(kMax, 2);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "skip 18446744073709551615 plus range-count 2 passes the largest range number");
}

TEST(RangeSelector, a_list_selects_numbers_and_inclusive_spans) {
  const RangeSelector s = RangeSelector::parse_list("2,5-7").value();
  const bool expected[] = {false, false, true, false, false, true, true, true, false, false};
  for (std::uint64_t i = 0; i < 10; ++i) EXPECT_EQ(s.selects(i), expected[i]) << "match " << i;
  EXPECT_EQ(s.last(), 7u);
  EXPECT_FALSE(s.exhausted_after(6));
  EXPECT_TRUE(s.exhausted_after(7));
  EXPECT_EQ(s.to_string(), "2,5-7");
}

TEST(RangeSelector, list_items_in_any_order_merge) {
  EXPECT_EQ(RangeSelector::parse_list("7,2,3-4").value().to_string(), "2-4,7");
  EXPECT_EQ(RangeSelector::parse_list("3-,5").value().to_string(), "3-");
  EXPECT_EQ(RangeSelector::parse_list("1-3,2-6,6").value().to_string(), "1-6");
  EXPECT_EQ(RangeSelector::parse_list("0").value().to_string(), "0");
  EXPECT_EQ(RangeSelector::parse_list("0,0,0").value().to_string(), "0");
  EXPECT_EQ(RangeSelector::parse_list("18446744073709551615").value().last(), kMax);
  EXPECT_EQ(RangeSelector::parse_list("4-,18446744073709551615").value().to_string(), "4-");
}

struct BadList {
  const char* text;
  std::size_t column;
  const char* message;
};

TEST(RangeSelector, malformed_lists_name_the_problem_and_its_column) {
  const BadList cases[] = {
      {"", 0, "ranges '': empty list at column 1; write range numbers from 0 and spans, e.g. 2,5-7"},
      {"2,,5", 2, "ranges '2,,5': empty item at column 3; write 2,5"},
      {"2,", 2, "ranges '2,': empty item at column 3; write 2"},
      {",2", 0, "ranges ',2': empty item at column 1; write 2"},
      {",", 0, "ranges ',': empty item at column 1; write range numbers from 0 and spans, e.g. 2,5-7"},
      {",,", 0, "ranges ',,': empty item at column 1; write range numbers from 0 and spans, e.g. 2,5-7"},
      {"2,,,5", 2, "ranges '2,,,5': empty item at column 3; write 2,5"},
      {"1,,-3", 2, "ranges '1,,-3': empty item at column 3; write range numbers from 0 and spans, e.g. 2,5-7"},
      {"7-5", 0, "ranges '7-5': reversed span at column 1; write 5-7"},
      {"1,7-5", 2, "ranges '1,7-5': reversed span at column 3; write 5-7"},
      {"2,a", 2, "ranges '2,a': unexpected 'a' at column 3; write range numbers from 0 and spans, e.g. 2,5-7"},
      {"2-x", 2, "ranges '2-x': unexpected 'x' at column 3; write range numbers from 0 and spans, e.g. 2,5-7"},
      {"2 ,3", 1, "ranges '2 ,3': unexpected ' ' at column 2; write range numbers from 0 and spans, e.g. 2,5-7"},
      {"-3", 0, "ranges '-3': unexpected '-' at column 1; write range numbers from 0 and spans, e.g. 2,5-7"},
      {"1,18446744073709551616", 2,
       "ranges '1,18446744073709551616': number too large at column 3; write range numbers from 0 and spans, "
       "e.g. 2,5-7"},
      {"1-99999999999999999999", 2,
       "ranges '1-99999999999999999999': number too large at column 3; write range numbers from 0 and spans, "
       "e.g. 2,5-7"},
  };
  for (const BadList& c : cases) {
    std::size_t column = 999;
    StatusOr<RangeSelector> s = RangeSelector::parse_list(c.text, "ranges", &column);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.status().message(), c.message);
    EXPECT_EQ(column, c.column) << c.text;
  }
}

}  // namespace
}  // namespace rangereplay::range
