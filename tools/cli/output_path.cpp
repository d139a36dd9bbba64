// --output name expansion and format choice (see output_path.h).
#include "cli/output_path.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/base/ascii.h"

namespace rangereplay::cli {

std::optional<std::string> process_env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

StatusOr<std::string> expand_output_path(const std::string& pattern, long pid, const std::string& host,
                                         const EnvLookup& env) {
  const std::string hint = "; use %p (pid), %q{VAR} (environment variable), %h (host) or %% in --output";
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (i + 1 == pattern.size()) {
      return invalid_argument("output name '" + pattern + "' ends with a lone '%'" + hint);
    }
    char kind = pattern[++i];
    switch (kind) {
      case '%': out += '%'; break;
      case 'p': out += std::to_string(pid); break;
      case 'h': out += host; break;
      case 'q': {
        if (i + 1 >= pattern.size() || pattern[i + 1] != '{') {
          return invalid_argument("output name '" + pattern + "': %q needs a variable name in braces, e.g. %q{RANK}");
        }
        std::size_t close = pattern.find('}', i + 2);
        if (close == std::string::npos) {
          return invalid_argument("output name '" + pattern + "': %q{ has no closing '}'; write %q{VAR}");
        }
        std::string name = pattern.substr(i + 2, close - (i + 2));
        if (name.empty()) {
          return invalid_argument("output name '" + pattern + "': %q{} names no variable, e.g. %q{RANK}");
        }
        const bool word = std::all_of(name.begin(), name.end(), [](char c) {
          return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        });
        if (!word || (name[0] >= '0' && name[0] <= '9')) {
          return invalid_argument("output name '" + pattern + "': '" + name +
                                  "' in %q{...} is not a variable name (letters, digits and '_', not starting "
                                  "with a digit)");
        }
        std::optional<std::string> value = env(name);
        if (!value) {
          return invalid_argument("output name '" + pattern + "' uses %q{" + name + "} but " + name +
                                  " is not set; set it or drop it from --output");
        }
        out += *value;
        i = close;
        break;
      }
      default:
        return invalid_argument("output name '" + pattern + "' has an unknown placeholder '%" + std::string(1, kind) +
                                "'" + hint);
    }
  }
  return out;
}

EnvLookup with_stand_ins(EnvLookup env, std::vector<std::string>* unset) {
  return [env = std::move(env), unset](const std::string& name) -> std::optional<std::string> {
    if (std::optional<std::string> value = env(name)) return value;
    if (unset != nullptr && std::find(unset->begin(), unset->end(), name) == unset->end()) unset->push_back(name);
    return std::string("0");
  };
}

StatusOr<OutputFormat> output_format_of(const std::string& path) {
  const std::string name = ascii_lower(std::filesystem::path(path).filename().string());
  if (name == ".json" || name == ".csv" || name == ".html")
    return invalid_argument("output '" + path + "' has no file name before '" + name + "'; name the file, e.g. report" +
                            name);
  const std::string ext = ascii_lower(std::filesystem::path(path).extension().string());
  if (ext == ".json") return OutputFormat::kJson;
  if (ext == ".csv") return OutputFormat::kCsv;
  if (ext == ".html") return OutputFormat::kHtml;
  return invalid_argument("output '" + path + "' must end in .json, .csv or .html (the extension picks the format)");
}

StatusOr<CsvPage> parse_csv_page(const std::string& name, OutputFormat format) {
  if (name.empty()) return CsvPage::kOwn;
  if (format != OutputFormat::kCsv) return invalid_argument("--csv-page needs an output ending in .csv");
  if (name == "details") return CsvPage::kDetails;
  if (name == "raw") return CsvPage::kRaw;
  return invalid_argument("--csv-page must be details or raw (ncu's --page layouts), not '" + name + "'");
}

namespace {

Status cannot_write(const std::string& what, int err) {
  const std::string why = std::strerror(err);
  const std::string fix = "; give --output a path in a writable folder";
  if (err == ENOENT) return not_found(what + " cannot be created: " + why + fix);
  return permission_denied(what + " cannot be written: " + why + fix);
}

// The folder a file at `path` goes into ("." for a bare name).
std::filesystem::path folder_of(const std::string& path) {
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  return folder.empty() ? std::filesystem::path(".") : folder;
}

}  // namespace

Status check_output_folder(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path folder = folder_of(path);
  std::error_code ec;
  if (fs::is_directory(folder, ec)) return ok_status();
  if (fs::exists(folder, ec))
    return invalid_argument("output folder '" + folder.string() +
                            "' is a file, not a folder; give --output a path in a folder");
  return not_found("output folder '" + folder.string() + "' does not exist; create it first");
}

Status check_output_writable(const std::string& pattern, const std::string& host, const EnvLookup& env) {
  namespace fs = std::filesystem;
  std::vector<std::string> unset;
  RR_ASSIGN_OR_RETURN(std::string path, expand_output_path(pattern, 12345, host, with_stand_ins(env, &unset)));
  const std::string pattern_folder = fs::path(pattern).parent_path().string();
  std::vector<std::string> folder_unset;
  (void)expand_output_path(pattern_folder, 12345, host, with_stand_ins(env, &folder_unset));
  // A folder named by the pid or by a variable each process sets itself.
  if (pattern_folder.find("%p") != std::string::npos || !folder_unset.empty()) return ok_status();
  RR_RETURN_IF_ERROR(check_output_folder(path));
  const fs::path folder = folder_of(path);
  std::error_code ec;
  if (pattern.find("%p") == std::string::npos && unset.empty()) {
    if (fs::is_directory(path, ec)) {
      const std::string ext = fs::path(path).extension().string();
      return invalid_argument("output '" + path + "' is a folder; give --output a file name, e.g. '" +
                              (fs::path(path) / ("report" + ext)).string() + "'");
    }
    // The final path: create it (and remove it again), or open an existing
    // report for appending, which neither truncates nor writes it.
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      ::unlink(path.c_str());
      return ok_status();
    }
    if (errno != EEXIST) return cannot_write("output '" + path + "'", errno);
    // Without waiting: a FIFO nobody reads would block open() for ever.
    fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENXIO)
      return failed_precondition("output '" + path +
                                 "' is a FIFO that nothing reads; start its reader first, or give --output a file");
    if (fd < 0) return cannot_write("output '" + path + "'", errno);
    ::close(fd);
    return ok_status();
  }
  // Each process writes its own name: check the folder with a probe file.
  std::string probe = (folder / ".rangereplay-probe-XXXXXX").string();
  int fd = ::mkstemp(probe.data());
  if (fd < 0) return cannot_write("a file in output folder '" + folder.string() + "'", errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return ok_status();
}

}  // namespace rangereplay::cli
