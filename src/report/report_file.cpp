// Atomic report-file output and whole-file input (report_file.h).
#include "report/report_file.h"

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/ascii.h"
#include "report/report_csv.h"
#include "report/report_json.h"

namespace rangereplay::report {
namespace {

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

Status errno_status(int error, const std::string& what, const std::filesystem::path& path) {
  std::string message = what + " '" + path.string() + "': " + std::strerror(error);
  switch (error) {
    case ENOENT:
    case ENOTDIR: return not_found(std::move(message));
    case EACCES:
    case EPERM:
    case EROFS: return permission_denied(std::move(message));
    case ENOSPC:
    case EDQUOT: return resource_exhausted(std::move(message));
    default: return internal_error(std::move(message));
  }
}

// Writes all of `content` to `path` (truncating it) and closes the file.
Status write_whole(const std::filesystem::path& path, std::string_view content,
                   const std::filesystem::path& named_in_errors) {
  std::FILE* raw = std::fopen(path.c_str(), "wb");
  if (raw == nullptr) return errno_status(errno, "cannot write", named_in_errors);
  FilePtr file(raw, &std::fclose);
  if (!content.empty() && std::fwrite(content.data(), 1, content.size(), file.get()) != content.size()) {
    return errno_status(errno, "cannot write", named_in_errors);
  }
  if (std::fflush(file.get()) != 0) return errno_status(errno, "cannot write", named_in_errors);
  if (std::fclose(file.release()) != 0) return errno_status(errno, "cannot write", named_in_errors);
  return ok_status();
}

bool has_csv_extension(const std::filesystem::path& path) { return ascii_lower(path.extension().string()) == ".csv"; }

}  // namespace

StatusOr<std::string> read_text_file(const std::filesystem::path& path) {
  std::FILE* raw = std::fopen(path.c_str(), "rb");
  if (raw == nullptr) return errno_status(errno, "cannot read", path);
  FilePtr file(raw, &std::fclose);
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buffer, 1, sizeof(buffer), file.get());
    content.append(buffer, n);
    if (n < sizeof(buffer)) break;
  }
  if (std::ferror(file.get())) return errno_status(errno, "cannot read", path);
  return content;
}

Status write_text_file(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    return write_whole(path, content, path);  // e.g. /dev/stdout: cannot be renamed over
  }
  std::filesystem::path temporary = path;
  temporary += ".tmp." + std::to_string(::getpid());
  Status written = write_whole(temporary, content, path);
  if (!written.ok()) {
    std::filesystem::remove(temporary, ec);
    return written;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::filesystem::remove(temporary, ec);
    return errno_status(error, "cannot write", path);
  }
  return ok_status();
}

Status write_report_file(const Report& report, const std::filesystem::path& path) {
  if (has_csv_extension(path)) return write_report_csv(report, path);
  return write_report_json(report, path);
}

}  // namespace rangereplay::report
