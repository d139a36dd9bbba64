// The environment table and accessors (core/base/environment.h).
#include "core/base/environment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace rangereplay::environment {
namespace {

TEST(Environment, the_table_names_each_variable_once_and_marks_test_hooks) {
  std::set<std::string_view> names;
  for (const Variable& v : kVariables) {
    EXPECT_TRUE(names.insert(v.name).second) << "duplicate " << v.name;
    EXPECT_FALSE(v.meaning.empty()) << v.name;
    EXPECT_FALSE(v.read_by.empty()) << v.name;
    EXPECT_FALSE(v.default_value.empty()) << v.name;
    EXPECT_EQ(v.set_by == SetBy::kTests, v.name.starts_with("RANGEREPLAY_TEST_")) << v.name;
  }
  for (const char* name : {kDebug, kMaxKernelsPerRange, kStandingPass, kCounterWarmUp, kWholeRangeLeadIn, kKernelRanges,
                           kInjectLib, kConfig, kGate, kCudaInjection, kNvtxInjection, kTestCorruptRestores}) {
    EXPECT_TRUE(names.contains(name)) << name;
  }
}

TEST(Environment, configuration_doc_lists_every_variable) {
  // tests/unit/core/base/ -> repository root.
  const std::filesystem::path doc =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().parent_path().parent_path() / "docs" /
      "configuration.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in.good()) << "cannot read " << doc;
  std::stringstream text;
  text << in.rdbuf();
  for (const Variable& v : kVariables) {
    const std::string row = "| `" + std::string(v.name) + "` |";
    EXPECT_NE(text.str().find(row), std::string::npos) << "docs/configuration.md lacks the row " << row;
  }
}

// Each test runs in its own process under ctest, so the first read happens here.
TEST(Environment, max_kernels_per_range_is_read_once_as_a_number_above_zero) {
  ASSERT_EQ(setenv(kMaxKernelsPerRange, "12kernels", 1), 0);
  EXPECT_EQ(max_kernels_per_range(), std::optional<std::size_t>(12));  // strtol's reading
  ASSERT_EQ(setenv(kMaxKernelsPerRange, "40", 1), 0);
  EXPECT_EQ(max_kernels_per_range(), std::optional<std::size_t>(12));  // read once
  unsetenv(kMaxKernelsPerRange);
}

TEST(Environment, standing_pass_is_off_only_for_exactly_zero) {
  ASSERT_EQ(setenv(kStandingPass, "0", 1), 0);
  EXPECT_TRUE(standing_pass_off());
  unsetenv(kStandingPass);
  EXPECT_TRUE(standing_pass_off());  // read once
}

// Sets `name` to `first` before `flag`'s first read and to `then` after it:
// `flag` is false for `first` and stays so (read once), though `then` would
// turn it on.
void expect_off_and_read_once(const char* name, const char* first, const char* then, bool (*flag)()) {
  ASSERT_EQ(setenv(name, first, 1), 0);
  EXPECT_FALSE(flag()) << name << "=" << first;
  ASSERT_EQ(setenv(name, then, 1), 0);
  EXPECT_FALSE(flag()) << name << " read again";
  unsetenv(name);
}

TEST(Environment, whole_range_lead_in_is_off_only_for_exactly_zero) {
  expect_off_and_read_once(kWholeRangeLeadIn, "no", "0", whole_range_lead_in_off);
}

TEST(Environment, user_kernel_ranges_only_for_exactly_user) {
  expect_off_and_read_once(kKernelRanges, "users", "user", user_kernel_ranges);
}

TEST(Environment, metric_host_warm_up_is_on_unless_exactly_zero) {
  // "no" is not "0": the warm-up stays on, and stays so once read.
  ASSERT_EQ(setenv(kMetricHostWarmUp, "no", 1), 0);
  EXPECT_TRUE(metric_host_warm_up());
  ASSERT_EQ(setenv(kMetricHostWarmUp, "0", 1), 0);
  EXPECT_TRUE(metric_host_warm_up()) << "read again";
  unsetenv(kMetricHostWarmUp);
}

TEST(Environment, config_path_is_the_variable_as_set) {
  ASSERT_EQ(setenv(kConfig, "/tmp/rr/config.json", 1), 0);
  ASSERT_TRUE(config_path().has_value());
  EXPECT_EQ(*config_path(), "/tmp/rr/config.json");
  unsetenv(kConfig);
}

}  // namespace
}  // namespace rangereplay::environment
