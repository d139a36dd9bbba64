// Which modules loaded inside a range decline it (module_load_decision.h).
#include "core/record/module_load_decision.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rangereplay {
namespace {

CubinSymbols module_with(std::vector<CubinGlobal> globals) {
  CubinSymbols s;
  s.kernels = {"k_kernel"};
  s.writable_globals = std::move(globals);
  return s;
}

TEST(ModuleLoadDecision, a_module_without_variables_does_not_decline) {
  EXPECT_EQ(module_load_decline(module_with({})), std::nullopt);
  CubinSymbols empty;  // no kernels either
  EXPECT_EQ(module_load_decline(empty), std::nullopt);
}

TEST(ModuleLoadDecision, a_module_with_variables_declines_naming_them) {
  EXPECT_EQ(module_load_decline(module_with({{"g_x", 4}})),
            "module with writable variable g_x loaded inside the range");
  EXPECT_EQ(module_load_decline(module_with({{"g_x", 4}, {"g_y", 1024}})),
            "module with writable variables g_x, g_y loaded inside the range");
}

TEST(ModuleLoadDecision, an_absent_or_unreadable_cubin_declines) {
  EXPECT_EQ(module_load_decline(invalid_argument("no cubin")),
            "module loaded inside the range whose variables are unknown (no cubin)");
  EXPECT_EQ(module_load_decline(read_cubin_symbols({})),
            "module loaded inside the range whose variables are unknown (malformed cubin: no ELF header)");
}

TEST(GlobalNames, joins_names_and_cuts_after_80_characters) {
  EXPECT_EQ(global_names({}), "");
  const std::vector<CubinGlobal> one{{"g_a", 4}};
  EXPECT_EQ(global_names(one), "g_a");
  // 9 names of 9 characters: "n0_______" then ", n1_______" ... ; after 8 names
  // the text is 9 + 7 * 11 = 86 characters, past 80, so the 9th is cut.
  std::vector<CubinGlobal> many;
  std::string first_eight;
  for (int i = 0; i < 9; ++i) {
    many.push_back({"n" + std::to_string(i) + "_______", 4});
    if (i < 8) first_eight += (i == 0 ? "" : ", ") + many.back().name;
  }
  ASSERT_EQ(first_eight.size(), 86u);
  EXPECT_EQ(global_names(many), first_eight + ", ...");
  // Exactly 80 characters is not past the limit: the next name is kept.
  std::vector<CubinGlobal> at_limit{{std::string(80, 'a'), 4}, {"b", 4}};
  EXPECT_EQ(global_names(at_limit), std::string(80, 'a') + ", b");
}

}  // namespace
}  // namespace rangereplay
