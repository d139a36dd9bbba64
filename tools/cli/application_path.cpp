// execvp-style lookup of the application (see application_path.h).
#include "cli/application_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace rangereplay::cli {
namespace {

enum class Probe { kMissing, kFolder, kNotExecutable, kExecutable };

Probe probe(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Probe::kMissing;
  if (S_ISDIR(st.st_mode)) return Probe::kFolder;
  if (!S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) return Probe::kNotExecutable;
  // root passes access(X_OK) if any execute bit is set; a file with none is
  // still not executable (execve fails with EACCES).
  if ((st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) == 0) return Probe::kNotExecutable;
  return Probe::kExecutable;
}

Status report(Probe p, const std::string& name, const std::string& shown) {
  switch (p) {
    case Probe::kFolder:
      return permission_denied("application '" + shown + "' is a folder, not a program; name the program inside it");
    case Probe::kNotExecutable:
      return permission_denied("application '" + shown + "' is not executable; run chmod +x '" + shown +
                               "' or check the path");
    default: break;
  }
  if (name.find('/') != std::string::npos) {
    return not_found("application '" + name + "' not found; check the path");
  }
  if (name.starts_with("-")) {
    // `profile -- -- ./app`, `profile -- --flag ./app`: a word meant for
    // rangereplay, or a second "--", where the application goes.
    return not_found("application '" + name +
                     "' looks like an option, not a program: after '--' comes the "
                     "application, e.g. 'rangereplay profile [options] -- ./app args'");
  }
  return not_found("application '" + name + "' not found in PATH; give its path (e.g. ./" + name +
                   ") or add its folder to PATH");
}

}  // namespace

StatusOr<std::string> resolve_application(const std::string& name, const std::optional<std::string>& path_env) {
  if (name.empty()) return invalid_argument(kEmptyApplicationName);
  if (name.find('/') != std::string::npos) {
    Probe p = probe(name);
    if (p == Probe::kExecutable) return name;
    return report(p, name, name);
  }
  const std::string path = path_env.value_or("/bin:/usr/bin");
  Probe best = Probe::kMissing;
  std::string best_path;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(start, colon - start);
    std::string candidate = dir.empty() ? "./" + name : dir + "/" + name;
    Probe p = probe(candidate);
    if (p == Probe::kExecutable) return candidate;
    if (p != Probe::kMissing && best == Probe::kMissing) {
      best = p;
      best_path = candidate;
    }
    start = colon + 1;
  }
  return report(best, name, best_path);
}

}  // namespace rangereplay::cli
