// Where the launcher finds librangereplay_inject.so, libcupti and its metric module.
#include "cli/library_lookup.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "temp_tree.h"

namespace rangereplay::cli {
namespace {

using testing::TempTree;

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}
const EnvLookup kNoEnv = env_of({});

TEST(LibraryLookup, environment_variable_wins_over_every_folder) {
  TempTree t;
  std::string forced = t.file("elsewhere/custom_inject.so");
  t.file("build/tools/cli/librangereplay_inject.so");
  auto found = find_injection_library(t.path("build/tools/cli"), env_of({{"RANGEREPLAY_INJECT_LIB", forced}}));
  ASSERT_TRUE(found.ok()) << found.status().to_string();
  EXPECT_EQ(*found, forced);
}

TEST(LibraryLookup, environment_variable_naming_no_file_is_an_error) {
  TempTree t;
  t.file("bin/librangereplay_inject.so");
  auto found = find_injection_library(t.path("bin"), env_of({{"RANGEREPLAY_INJECT_LIB", t.path("nope.so")}}));
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::kInvalidArgument);  // the launcher exits 2
  EXPECT_EQ(found.status().message(), "RANGEREPLAY_INJECT_LIB='" + t.path("nope.so") +
                                          "' is not a file; point it at librangereplay_inject.so or unset it");
}

TEST(LibraryLookup, empty_environment_variable_is_ignored) {
  TempTree t;
  std::string lib = t.file("bin/librangereplay_inject.so");
  auto found = find_injection_library(t.path("bin"), env_of({{"RANGEREPLAY_INJECT_LIB", ""}}));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, lib);
}

TEST(LibraryLookup, same_folder_comes_before_lib_and_the_build_tree) {
  TempTree t;
  std::string same = t.file("a/b/librangereplay_inject.so");
  t.file("a/lib/librangereplay_inject.so");
  t.file("src/librangereplay_inject.so");
  auto found = find_injection_library(t.path("a/b"), kNoEnv);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, same);
}

TEST(LibraryLookup, install_layout_finds_lib_next_to_bin) {
  TempTree t;
  t.folder("prefix/bin");
  std::string lib = t.file("prefix/lib/librangereplay_inject.so");
  t.file("src/librangereplay_inject.so");
  auto found = find_injection_library(t.path("prefix/bin"), kNoEnv);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, lib);  // canonical: no ".." left
}

TEST(LibraryLookup, build_tree_layout_finds_src_two_folders_up) {
  TempTree t;
  t.folder("build/tools/cli");
  std::string lib = t.file("build/src/librangereplay_inject.so");
  auto found = find_injection_library(t.path("build/tools/cli"), kNoEnv);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, lib);
}

TEST(LibraryLookup, a_folder_with_the_library_name_is_not_a_match) {
  TempTree t;
  t.folder("bin/librangereplay_inject.so");
  std::string lib = t.file("lib/librangereplay_inject.so");
  auto found = find_injection_library(t.path("bin"), kNoEnv);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, lib);
}

TEST(LibraryLookup, symlinks_resolve_to_the_real_file) {
  TempTree t;
  std::string real = t.file("real/librangereplay_inject.so");
  t.folder("bin");
  std::filesystem::create_symlink(real, t.path("bin/librangereplay_inject.so"));
  auto found = find_injection_library(t.path("bin"), kNoEnv);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, real);
}

TEST(LibraryLookup, nothing_found_lists_the_folders_and_the_fix) {
  TempTree t;
  t.folder("x/y");
  auto found = find_injection_library(t.path("x/y"), kNoEnv);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(found.status().message(), "injection library librangereplay_inject.so not found (looked in " +
                                          t.path("x/y") + ", " + t.path("x/lib") + ", " + t.root() +
                                          "/src); build target rangereplay_inject or set RANGEREPLAY_INJECT_LIB");
}

TEST(LibraryLookup, metrics_module_is_found_next_to_the_launcher_then_in_lib) {
  TempTree t;
  t.folder("bin");
  std::string in_lib = t.file("lib/librangereplay_cli_metrics.so");
  ASSERT_TRUE(find_metrics_module(t.path("bin")).ok());
  EXPECT_EQ(*find_metrics_module(t.path("bin")), in_lib);
  std::string next = t.file("bin/librangereplay_cli_metrics.so");
  EXPECT_EQ(*find_metrics_module(t.path("bin")), next);
  EXPECT_FALSE(find_metrics_module(t.path("lib/none")).ok());
}

TEST(LibraryLookup, cupti_already_loaded_is_preferred) {
  TempTree t;
  std::string loaded = t.file("cuda/lib64/libcupti.so.13");
  t.file("ld/libcupti.so");
  auto found = find_cupti_library(loaded, t.path("ld"), {t.path("cuda/lib64")});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, loaded);
}

TEST(LibraryLookup, cupti_search_follows_ld_library_path_then_defaults) {
  TempTree t;
  t.folder("empty");
  std::string in_second = t.file("second/libcupti.so.13");
  std::string in_default = t.file("default/libcupti.so");
  auto found = find_cupti_library(std::nullopt, t.path("empty") + "::" + t.path("second"), {t.path("default")});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, in_second);
  found = find_cupti_library(std::nullopt, std::nullopt, {t.path("default")});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, in_default);
  // A stale path from the module falls back to the search.
  found = find_cupti_library(t.path("gone/libcupti.so"), std::nullopt, {t.path("default")});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, in_default);
}

TEST(LibraryLookup, cupti_unversioned_name_comes_first_in_a_folder) {
  TempTree t;
  std::string plain = t.file("d/libcupti.so");
  t.file("d/libcupti.so.13");
  EXPECT_EQ(*find_cupti_library(std::nullopt, std::nullopt, {t.path("d")}), plain);
}

TEST(LibraryLookup, cupti_missing_names_the_folders) {
  TempTree t;
  auto found = find_cupti_library(std::nullopt, t.path("a"), {t.path("b")});
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(), "libcupti.so not found (looked in " + t.path("a") + ", " + t.path("b") +
                                          "); add the CUDA toolkit's lib64 folder to LD_LIBRARY_PATH");
}

TEST(LibraryLookup, executable_dir_is_the_test_binary_folder) {
  auto dir = executable_dir();
  ASSERT_TRUE(dir.ok());
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(*dir) / "rangereplay_unit_tests"));
}

}  // namespace
}  // namespace rangereplay::cli
