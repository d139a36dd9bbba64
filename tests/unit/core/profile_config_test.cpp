#include "core/profile_config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace rangereplay {
namespace {

TEST(ProfileConfig, round_trips_through_a_json_file) {
  ProfileConfig c;
  c.nvtx_include = {"step/", "D@A/B"};
  c.metrics = {"smsp__inst_executed.sum", "dram__bytes_read.sum"};
  c.range_metrics = RangeMetrics::kWholeRange;
  c.restore = RestoreMode::kFull;
  c.skip = 2;
  c.range_count = 5;
  c.snapshot_device_limit = 512ull << 20;
  c.verify = true;
  c.command = {"./app", "--n", "3"};
  std::string path = ::testing::TempDir() + "rr_config_test.json";
  ASSERT_TRUE(write_profile_config(c, path).ok());
  auto back = read_profile_config(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->nvtx_include, c.nvtx_include);
  EXPECT_EQ(back->metrics, c.metrics);
  EXPECT_EQ(back->range_metrics, RangeMetrics::kWholeRange);
  EXPECT_EQ(back->restore, RestoreMode::kFull);
  EXPECT_EQ(back->skip, 2u);
  EXPECT_EQ(back->range_count, 5u);
  EXPECT_EQ(back->snapshot_device_limit, 512ull << 20);
  EXPECT_TRUE(back->verify);
  EXPECT_EQ(back->command, c.command);
  std::remove(path.c_str());
}

TEST(ProfileConfig, restore_defaults_to_differential_in_code_and_in_a_file_without_the_field) {
  EXPECT_EQ(ProfileConfig{}.restore, RestoreMode::kDifferential);
  std::string path = ::testing::TempDir() + "rr_config_no_restore.json";
  std::ofstream(path) << R"({"metrics": ["smsp__inst_executed.sum"]})";
  auto back = read_profile_config(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->restore, RestoreMode::kDifferential);
  std::remove(path.c_str());
}

TEST(ProfileConfig, restore_modes_are_written_by_name_and_read_back) {
  for (RestoreMode mode : {RestoreMode::kDifferential, RestoreMode::kFull}) {
    ProfileConfig c;
    c.restore = mode;
    std::string path = ::testing::TempDir() + "rr_config_restore.json";
    ASSERT_TRUE(write_profile_config(c, path).ok());
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(mode == RestoreMode::kFull ? R"("restore": "full")" : R"("restore": "differential")"),
              std::string::npos)
        << text;
    auto back = read_profile_config(path);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back->restore, mode);
    std::remove(path.c_str());
  }
}

TEST(ProfileConfig, malformed_file_names_the_file) {
  std::string path = ::testing::TempDir() + "rr_config_bad.json";
  std::ofstream(path) << "{not json";
  auto back = read_profile_config(path);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find(path), std::string::npos);
  std::remove(path.c_str());
}

TEST(ProfileConfig, missing_file_is_not_found) {
  EXPECT_EQ(read_profile_config("/nonexistent/rr.json").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace rangereplay
