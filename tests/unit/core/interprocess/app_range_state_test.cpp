// A range's counter data carried between application runs: written, read
// back equal, absent before the first pass, refused when it is not a state
// file or is cut short.
#include "core/interprocess/app_range_state.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace rangereplay {
namespace {

std::string fresh_dir(const char* name) {
  const std::string dir = ::testing::TempDir() + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(AppRangeState, the_path_names_the_range) {
  EXPECT_EQ(app_range_state_path("/tmp/rr", 7), "/tmp/rr/range_7.counters");
}

TEST(AppRangeState, a_state_round_trips_and_replaces_the_previous_one) {
  const std::string dir = fresh_dir("rr_app_state");
  const std::string path = app_range_state_path(dir, 2);
  AppRangeCounterState state;
  state.next_pass = 5;
  state.target_nesting_level = 1;
  state.runs = 5;
  state.counter_data = {0, 1, 2, 250, 251, 0, 7};
  ASSERT_TRUE(write_app_range_state(path, state).ok());
  StatusOr<std::optional<AppRangeCounterState>> back = read_app_range_state(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ(**back, state);
  state.all_passes_submitted = true;
  state.counter_data.assign(1 << 20, 9);
  ASSERT_TRUE(write_app_range_state(path, state).ok());
  back = read_app_range_state(path);
  ASSERT_TRUE(back.ok() && back->has_value());
  EXPECT_EQ(**back, state);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  std::filesystem::remove_all(dir);
}

TEST(AppRangeState, no_file_is_the_first_pass) {
  const std::string dir = fresh_dir("rr_app_state_none");
  StatusOr<std::optional<AppRangeCounterState>> back = read_app_range_state(app_range_state_path(dir, 0));
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->has_value());
  std::filesystem::remove_all(dir);
}

TEST(AppRangeState, a_foreign_or_cut_file_is_refused_with_its_path) {
  const std::string dir = fresh_dir("rr_app_state_bad");
  const std::string path = app_range_state_path(dir, 1);
  std::ofstream(path) << "not a state file";
  StatusOr<std::optional<AppRangeCounterState>> back = read_app_range_state(path);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find(path), std::string::npos) << back.status().message();
  EXPECT_NE(back.status().message().find("no RRAPPRG1 header"), std::string::npos) << back.status().message();

  AppRangeCounterState state;
  state.counter_data.assign(100, 1);
  ASSERT_TRUE(write_app_range_state(path, state).ok());
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
  back = read_app_range_state(path);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("image size differs"), std::string::npos) << back.status().message();
  std::filesystem::remove_all(dir);
}

TEST(AppRangeState, a_run_is_claimed_by_one_process) {
  const std::string dir = fresh_dir("rr_app_state_claim");
  EXPECT_TRUE(claim_app_range_run(dir, 2, 100).ok());
  EXPECT_TRUE(claim_app_range_run(dir, 2, 100).ok());  // the same process again
  const Status other = claim_app_range_run(dir, 2, 200);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.message(),
            "process 100 of this application run already collects its ranges; application range replay measures one "
            "process's ranges, so profile one process of the job");
  EXPECT_TRUE(claim_app_range_run(dir, 3, 200).ok());  // the next run is another process's
  EXPECT_FALSE(claim_app_range_run("/nonexistent-folder-rr", 0, 1).ok());
  std::filesystem::remove_all(dir);
}

TEST(AppRangeState, an_unwritable_folder_is_a_one_line_error) {
  const Status s = write_app_range_state("/nonexistent-folder-rr/range_0.counters", AppRangeCounterState{});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent-folder-rr/range_0.counters.partial"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace rangereplay
