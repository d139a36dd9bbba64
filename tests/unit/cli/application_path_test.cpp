// resolve_application: execvp-style lookup, with its errors before launch.
#include "cli/application_path.h"

#include <gtest/gtest.h>

#include "temp_tree.h"

namespace rangereplay::cli {
namespace {

using testing::TempTree;

TEST(ApplicationPath, a_name_with_a_slash_is_used_as_given) {
  TempTree t;
  std::string app = t.file("bin/app", 0755);
  auto found = resolve_application(app, std::string("/nonexistent"));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, app);
}

TEST(ApplicationPath, a_missing_path_says_check_the_path) {
  auto found = resolve_application("./surely_not_here_x", std::string("/bin"));
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(found.status().message(), "application './surely_not_here_x' not found; check the path");
}

TEST(ApplicationPath, a_file_without_execute_permission_is_reported) {
  TempTree t;
  std::string app = t.file("data.txt", 0644);
  auto found = resolve_application(app, std::nullopt);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(found.status().message(),
            "application '" + app + "' is not executable; run chmod +x '" + app + "' or check the path");
}

TEST(ApplicationPath, a_folder_is_not_a_program) {
  TempTree t;
  auto found = resolve_application(t.folder("dir"), std::nullopt);
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("is a folder, not a program"), std::string::npos);
}

TEST(ApplicationPath, path_is_searched_in_order) {
  TempTree t;
  t.folder("a");
  std::string b = t.file("b/tool", 0755);
  t.file("c/tool", 0755);
  auto found = resolve_application("tool", t.path("a") + ":" + t.path("b") + ":" + t.path("c"));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, b);
}

TEST(ApplicationPath, non_executable_matches_are_skipped_like_execvp) {
  TempTree t;
  t.file("a/tool", 0644);
  t.folder("b/tool");
  std::string c = t.file("c/tool", 0700);
  auto found = resolve_application("tool", t.path("a") + ":" + t.path("b") + ":" + t.path("c"));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, c);
}

TEST(ApplicationPath, only_non_executable_matches_report_the_first) {
  TempTree t;
  std::string a = t.file("a/tool", 0644);
  auto found = resolve_application("tool", t.path("a"));
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(found.status().message().find("'" + a + "' is not executable"), std::string::npos);
}

TEST(ApplicationPath, a_bare_name_not_in_path_suggests_a_path) {
  TempTree t;
  auto found = resolve_application("nope", t.path("x") + ":" + t.path("y"));
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(),
            "application 'nope' not found in PATH; give its path (e.g. ./nope) or add its folder to PATH");
}

TEST(ApplicationPath, an_option_where_the_application_goes_is_named_as_one) {
  TempTree t;
  auto found = resolve_application("--", t.path("x"));
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(),
            "application '--' looks like an option, not a program: after '--' comes the application, e.g. "
            "'rangereplay profile [options] -- ./app args'");
}

TEST(ApplicationPath, unset_path_uses_bin_and_usr_bin) {
  auto found = resolve_application("sh", std::nullopt);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, "/bin/sh");
}

TEST(ApplicationPath, empty_name_is_an_error) {
  EXPECT_EQ(resolve_application("", std::nullopt).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(resolve_application("", std::nullopt).status().message(),
            "the application name is empty; write 'rangereplay profile [options] -- <app> [args]'");
}

}  // namespace
}  // namespace rangereplay::cli
