// Lookup of the injection library, CUPTI and the metric-query module (see
// library_lookup.h).
#include "cli/library_lookup.h"

#include <filesystem>
#include <system_error>

namespace rangereplay::cli {
namespace fs = std::filesystem;

StatusOr<std::string> executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return internal_error("cannot read /proc/self/exe: " + ec.message());
  return exe.parent_path().string();
}

std::optional<std::string> first_existing_file(const std::vector<std::string>& candidates) {
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (c.empty() || !fs::is_regular_file(c, ec)) continue;  // follows links
    fs::path canonical = fs::canonical(c, ec);
    if (ec) continue;
    return canonical.string();
  }
  return std::nullopt;
}

namespace {

std::string join_folders(const std::vector<std::string>& candidates) {
  std::string out;
  for (const std::string& c : candidates) {
    if (!out.empty()) out += ", ";
    out += fs::path(c).parent_path().lexically_normal().string();
  }
  return out;
}

}  // namespace

StatusOr<std::string> find_injection_library(const std::string& exe_dir, const EnvLookup& env) {
  if (std::optional<std::string> forced = env(kInjectLibEnv); forced && !forced->empty()) {
    if (auto found = first_existing_file({*forced})) return *found;
    return invalid_argument(std::string(kInjectLibEnv) + "='" + *forced + "' is not a file; point it at " +
                            kInjectLibName + " or unset it");
  }
  const fs::path dir(exe_dir);
  const std::vector<std::string> candidates = {
      (dir / kInjectLibName).string(),
      (dir / ".." / "lib" / kInjectLibName).string(),
      (dir / ".." / ".." / "src" / kInjectLibName).string(),
  };
  if (auto found = first_existing_file(candidates)) return *found;
  return not_found(std::string("injection library ") + kInjectLibName + " not found (looked in " +
                   join_folders(candidates) + "); build target rangereplay_inject or set " + kInjectLibEnv);
}

StatusOr<std::string> find_metrics_module(const std::string& exe_dir, const std::string& module_name) {
  const fs::path dir(exe_dir);
  const std::vector<std::string> candidates = {
      (dir / module_name).string(),
      (dir / ".." / "lib" / module_name).string(),
  };
  if (auto found = first_existing_file(candidates)) return *found;
  // "librangereplay_cli_metrics.so" is built by target rangereplay_cli_metrics.
  std::string target = module_name;
  if (target.starts_with("lib")) target.erase(0, 3);
  if (target.ends_with(".so")) target.resize(target.size() - 3);
  return not_found("metric-query module " + module_name + " not found (looked in " + join_folders(candidates) +
                   "); build target " + target);
}

std::vector<std::string> default_cupti_dirs() {
  return {"/usr/local/cuda/lib64", "/usr/local/cuda/extras/CUPTI/lib64", "/usr/lib/x86_64-linux-gnu"};
}

StatusOr<std::string> find_cupti_library(const std::optional<std::string>& loaded,
                                         const std::optional<std::string>& ld_library_path,
                                         const std::vector<std::string>& default_dirs) {
  if (loaded) {
    if (auto found = first_existing_file({*loaded})) return *found;
  }
  std::vector<std::string> dirs;
  if (ld_library_path) {
    std::size_t start = 0;
    while (start <= ld_library_path->size()) {
      std::size_t colon = ld_library_path->find(':', start);
      if (colon == std::string::npos) colon = ld_library_path->size();
      std::string d = ld_library_path->substr(start, colon - start);
      if (!d.empty()) dirs.push_back(d);
      start = colon + 1;
    }
  }
  dirs.insert(dirs.end(), default_dirs.begin(), default_dirs.end());
  std::vector<std::string> candidates;
  for (const std::string& d : dirs) {
    candidates.push_back((fs::path(d) / "libcupti.so").string());
    candidates.push_back((fs::path(d) / "libcupti.so.13").string());
  }
  if (auto found = first_existing_file(candidates)) return *found;
  std::string searched;
  for (const std::string& d : dirs) searched += (searched.empty() ? "" : ", ") + d;
  return not_found("libcupti.so not found (looked in " + searched +
                   "); add the CUDA toolkit's lib64 folder to LD_LIBRARY_PATH");
}

}  // namespace rangereplay::cli
