// A temporary folder tree for the launcher's file-system tests, removed on
// destruction.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace rangereplay::cli::testing {

class TempTree {
 public:
  TempTree() {
    std::string templ = (std::filesystem::path(::testing::TempDir()) / "rr_cli_XXXXXX").string();
    EXPECT_NE(::mkdtemp(templ.data()), nullptr);
    root_ = std::filesystem::canonical(templ).string();
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::string& root() const { return root_; }
  std::string path(const std::string& rel) const { return root_ + "/" + rel; }

  /// Creates file `rel` (and its folders) with permission bits `mode`.
  std::string file(const std::string& rel, unsigned mode = 0644, const std::string& content = "x") const {
    std::string p = path(rel);
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p) << content;
    ::chmod(p.c_str(), mode);
    return p;
  }
  std::string folder(const std::string& rel) const {
    std::filesystem::create_directories(path(rel));
    return path(rel);
  }

 private:
  std::string root_;
};

}  // namespace rangereplay::cli::testing
