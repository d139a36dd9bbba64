// Edit distance and "closest:" suggestions for mistyped names.
#include "core/base/closest_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rangereplay {
namespace {

TEST(EditDistance, counts_each_insertion_deletion_and_substitution_once) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("a", "a"), 0u);
  EXPECT_EQ(edit_distance("a", "b"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("dram__byte_read.sum", "dram__bytes_read.sum"), 1u);
}

TEST(EditDistance, adjacent_transposition_costs_one) {
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
  EXPECT_EQ(edit_distance("dram__bytse_read.sum", "dram__bytes_read.sum"), 1u);
  // Optimal string alignment: a substring is not edited twice.
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
}

TEST(EditDistance, is_symmetric) {
  EXPECT_EQ(edit_distance("sm__throughput", "smsp__thruput"), edit_distance("smsp__thruput", "sm__throughput"));
}

TEST(BoundedEditDistance, returns_bound_plus_one_when_farther) {
  EXPECT_EQ(bounded_edit_distance("kitten", "sitting", 3), 3u);
  EXPECT_EQ(bounded_edit_distance("kitten", "sitting", 2), 3u);
  EXPECT_EQ(bounded_edit_distance("kitten", "sitting", 0), 1u);
  EXPECT_EQ(bounded_edit_distance("abc", "abc", 0), 0u);
  EXPECT_EQ(bounded_edit_distance("", "abcdefgh", 4), 5u);
}

TEST(BoundedEditDistance, agrees_with_the_unbounded_distance_within_the_bound) {
  const std::vector<std::string> words = {"",
                                          "a",
                                          "ab",
                                          "ba",
                                          "abc",
                                          "lts__t_sectors.sum",
                                          "lts__t_sector.sum",
                                          "l1tex__t_sectors.sum",
                                          "gpu__time_duration.sum",
                                          "gpu__time_active.sum"};
  for (const auto& a : words) {
    for (const auto& b : words) {
      const std::size_t exact = edit_distance(a, b);
      for (std::size_t bound = 0; bound < 25; ++bound) {
        const std::size_t got = bounded_edit_distance(a, b, bound);
        if (exact <= bound) {
          EXPECT_EQ(got, exact) << a << " / " << b << " bound " << bound;
        } else {
          EXPECT_EQ(got, bound + 1) << a << " / " << b << " bound " << bound;
        }
      }
    }
  }
}

TEST(EditDistance, handles_long_names) {
  const std::string a(1000, 'x');
  std::string b = a;
  b[500] = 'y';
  EXPECT_EQ(edit_distance(a, b), 1u);
  EXPECT_EQ(edit_distance(a, a + "abc"), 3u);
  EXPECT_EQ(bounded_edit_distance(a, std::string(1000, 'z'), 10), 11u);
}

const std::vector<std::string> kMetrics = {
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__bytes_read.avg",
    "dram__sectors_read.sum",
    "lts__t_sectors.sum",
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
};

TEST(ClosestNames, returns_the_nearest_three_nearest_first) {
  const auto got = closest_names("dram__byte_read.sum", kMetrics);
  const std::vector<std::string> want = {"dram__bytes_read.sum", "dram__bytes_read.avg", "dram__bytes_write.sum"};
  EXPECT_EQ(got, want);
}

TEST(ClosestNames, breaks_ties_by_candidate_order) {
  const std::vector<std::string> candidates = {"abd", "abe", "abc", "abf"};
  const std::vector<std::string> want = {"abc", "abd", "abe"};
  EXPECT_EQ(closest_names("abc", candidates), want);
  const std::vector<std::string> want_x = {"abd", "abe", "abc"};
  EXPECT_EQ(closest_names("abx", candidates), want_x);
}

TEST(ClosestNames, honours_count_and_max_distance) {
  EXPECT_TRUE(closest_names("dram__byte_read.sum", kMetrics, 0).empty());
  const std::vector<std::string> one = {"dram__bytes_read.sum"};
  EXPECT_EQ(closest_names("dram__byte_read.sum", kMetrics, 1), one);
  EXPECT_EQ(closest_names("dram__byte_read.sum", kMetrics, 3, 1), one);
  EXPECT_TRUE(closest_names("zzzzzzzz", kMetrics, 3, 3).empty());
}

TEST(ClosestNames, returns_fewer_when_there_are_fewer_candidates) {
  EXPECT_TRUE(closest_names("abc", std::vector<std::string>{}).empty());
  const std::vector<std::string> single = {"x"};
  EXPECT_EQ(closest_names("abc", single), single);
}

TEST(ClosestNames, lists_a_duplicated_candidate_once) {
  const std::vector<std::string> candidates = {"abc", "abc", "abd", "abd", "xyz"};
  const std::vector<std::string> want = {"abc", "abd", "xyz"};
  EXPECT_EQ(closest_names("abc", candidates), want);
}

TEST(ClosestNames, searches_a_large_candidate_list) {
  std::vector<std::string> candidates;
  for (int i = 0; i < 150000; ++i) candidates.push_back("unit__metric_" + std::to_string(i) + ".sum");
  const std::vector<std::string> want = {"unit__metric_123456.sum"};
  EXPECT_EQ(closest_names("unit__metirc_123456.sum", candidates, 1), want);
}

TEST(PlausibleTypoDistance, is_a_third_of_the_length_and_at_least_three) {
  EXPECT_EQ(plausible_typo_distance(0), 3u);
  EXPECT_EQ(plausible_typo_distance(1), 3u);
  EXPECT_EQ(plausible_typo_distance(11), 3u);
  EXPECT_EQ(plausible_typo_distance(12), 4u);
  EXPECT_EQ(plausible_typo_distance(19), 6u);
}

TEST(ClosestNamesIgnoringCase, upper_case_typing_finds_the_lower_case_name) {
  const std::vector<std::string> names = {"dram__bytes_read.sum", "dram__bytes_write.sum", "sm__cycles_elapsed.avg"};
  // Case-sensitive, every letter differs: nothing plausible.
  EXPECT_TRUE(closest_names("DRAM__BYTES_READ.SUM", names, 3, plausible_typo_distance(20)).empty());
  EXPECT_EQ(closest_names_ignoring_case("DRAM__BYTES_READ.SUM", names, 3, plausible_typo_distance(20)),
            (std::vector<std::string>{"dram__bytes_read.sum", "dram__bytes_write.sum"}));
  EXPECT_EQ(closest_names_ignoring_case("Dram__Bytes_Raed.sum", names, 1, 1),
            (std::vector<std::string>{"dram__bytes_read.sum"}));  // a transposition, case ignored
  EXPECT_TRUE(closest_names_ignoring_case("", names, 3, 0).empty());
  EXPECT_TRUE(closest_names_ignoring_case("X", names, 0).empty());
  // Only ASCII letters fold: digits and punctuation compare as they are.
  EXPECT_EQ(closest_names_ignoring_case("A_1", std::vector<std::string>{"a-1", "a_1"}, 1, 0),
            (std::vector<std::string>{"a_1"}));
}

TEST(LowerCaseMatch, a_known_name_typed_in_capitals_gives_its_lower_case_spelling) {
  const std::vector<std::string> sets{"single-pass", "full"};
  EXPECT_EQ(lower_case_match("FULL", sets), std::optional<std::string>("full"));
  EXPECT_EQ(lower_case_match("Single-Pass", sets), std::optional<std::string>("single-pass"));
}

TEST(LowerCaseMatch, a_known_name_an_unknown_name_and_no_candidates_give_nothing) {
  const std::vector<std::string> sets{"single-pass", "full", "Mixed"};
  EXPECT_EQ(lower_case_match("full", sets), std::nullopt);   // already known
  EXPECT_EQ(lower_case_match("Mixed", sets), std::nullopt);  // known as typed
  EXPECT_EQ(lower_case_match("MIXED", sets), std::nullopt);  // its lower case is not a candidate
  EXPECT_EQ(lower_case_match("FUL", sets), std::nullopt);
  EXPECT_EQ(lower_case_match("FULL", {}), std::nullopt);
}

}  // namespace
}  // namespace rangereplay
