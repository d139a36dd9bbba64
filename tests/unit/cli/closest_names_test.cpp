// closest_names: the suggestions behind "unknown set 'x' (closest: ...)".
#include "cli/closest_names.h"

#include <gtest/gtest.h>

namespace rangereplay::cli {
namespace {

const std::vector<std::string> kSets = {"basic", "memory", "compute", "full", "launch"};

TEST(ClosestNames, nearest_come_first) {
  EXPECT_EQ(closest_names("fulll", kSets, 3), (std::vector<std::string>{"full"}));
  EXPECT_EQ(closest_names("memroy", kSets, 3), (std::vector<std::string>{"memory"}));
  EXPECT_EQ(closest_names("BASIC", kSets, 3), (std::vector<std::string>{"basic"}));
}

TEST(ClosestNames, ties_keep_candidate_order_and_the_count_is_capped) {
  EXPECT_EQ(closest_names("ab", {"ax", "ay", "az"}, 2), (std::vector<std::string>{"ax", "ay"}));
  EXPECT_EQ(closest_names("ab", {"ax", "ay", "az"}, 0), std::vector<std::string>{});
}

TEST(ClosestNames, far_names_are_left_out) {
  EXPECT_EQ(closest_names("zzzzzzzz", kSets, 3), std::vector<std::string>{});
  EXPECT_EQ(closest_names("", {"a", "abc"}, 3), (std::vector<std::string>{"a"}));
  EXPECT_EQ(closest_names("x", {}, 3), std::vector<std::string>{});
}

}  // namespace
}  // namespace rangereplay::cli
