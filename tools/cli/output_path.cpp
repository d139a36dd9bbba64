// --output name expansion and format choice (see output_path.h).
#include "cli/output_path.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

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
          return invalid_argument("output name '" + pattern + "': %q{ has no closing '}'");
        }
        std::string name = pattern.substr(i + 2, close - (i + 2));
        if (name.empty()) {
          return invalid_argument("output name '" + pattern + "': %q{} names no variable, e.g. %q{RANK}");
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
        return invalid_argument("output name '" + pattern + "' has an unknown placeholder '%" +
                                std::string(1, kind) + "'" + hint);
    }
  }
  return out;
}

StatusOr<OutputFormat> output_format_of(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".json") return OutputFormat::kJson;
  if (ext == ".csv") return OutputFormat::kCsv;
  return invalid_argument("output '" + path + "' must end in .json or .csv (the extension picks the format)");
}

}  // namespace rangereplay::cli
