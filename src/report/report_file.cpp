// Atomic report-file output and whole-file input (report_file.h).
#include "report/report_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/base/ascii.h"
#include "report/report_csv.h"
#include "report/report_json.h"

namespace rangereplay::report {
namespace {

// Writes all of `content` to `fd` and closes it (also on error).
Status write_fd(int fd, std::string_view content, const std::filesystem::path& named_in_errors) {
  Status written = write_all(fd, content, named_in_errors);
  if (::close(fd) != 0 && written.ok()) return errno_status(errno, "cannot write", named_in_errors);
  return written;
}

// Writes all of `content` to the existing non-regular file `path` (a
// terminal, a FIFO, /dev/stdout), truncating nothing and creating nothing.
// Opened non-blocking, so a FIFO no process reads is an error (ENXIO) rather
// than a wait for a reader that may never come; then written blocking.
Status write_in_place(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO) {
      return failed_precondition("cannot write '" + path.string() +
                                 "': it is a FIFO that no process reads; start its reader first, or write a file");
    }
    return errno_status(errno, "cannot write", path);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int error = errno;
    ::close(fd);
    return errno_status(error, "cannot write", path);
  }
  return write_fd(fd, content, path);
}

// A name for a temporary file beside `path`: "<path>.tmp.<12 random letters>".
// Not "report.<pid>.json", so a reader of a folder of reports
// (process_report_files) never takes one for a report.
std::filesystem::path temporary_name(const std::filesystem::path& path) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[12];
  if (::getrandom(bytes, sizeof(bytes), GRND_NONBLOCK) != static_cast<ssize_t>(sizeof(bytes))) {
    // No entropy yet (early boot): the clock still makes a fresh name, and
    // O_EXCL makes a taken one harmless.
    std::uint64_t x = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                      (static_cast<std::uint64_t>(::getpid()) << 40);
    for (unsigned char& b : bytes) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      b = static_cast<unsigned char>(x >> 56);
    }
  }
  std::string suffix = ".tmp.";
  for (unsigned char b : bytes) suffix += kLetters[b % (sizeof(kLetters) - 1)];
  std::filesystem::path out = path;
  out += suffix;
  return out;
}

// Creates a new temporary file beside `path` (never an existing name, never
// through a symbolic link: O_EXCL|O_NOFOLLOW), mode 0644 less the umask.
// Returns its descriptor and sets `created` to its name.
StatusOr<int> create_temporary(const std::filesystem::path& path, std::filesystem::path& created) {
  for (int attempt = 0;; ++attempt) {
    created = temporary_name(path);
    const int fd = ::open(created.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST || attempt >= 100) return errno_status(errno, "cannot write", path);
  }
}

bool has_csv_extension(const std::filesystem::path& path) { return ascii_lower(path.extension().string()) == ".csv"; }

}  // namespace

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

Status write_all(int fd, std::string_view content, const std::filesystem::path& named_in_errors) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return errno_status(n < 0 ? errno : EIO, "cannot write", named_in_errors);
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return ok_status();
}

StatusOr<std::string> read_text_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  // Opened without waiting: a FIFO with no writer would block open() for
  // ever. Reads then block as usual (a FIFO with no writer reads as empty).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return errno_status(errno, "cannot read", path);
  if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  const auto too_large = [&] {
    ::close(fd);
    return resource_exhausted("cannot read '" + path.string() + "': larger than the " + std::to_string(max_bytes) +
                              "-byte cap of a file the profiler reads; is it the right file?");
  };
  // A regular file's size says up front whether it fits; a device or FIFO
  // (/dev/zero) is read up to the cap.
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return too_large();
  }
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return errno_status(error, "cannot read", path);
    }
    if (n == 0) break;
    if (content.size() + static_cast<std::size_t>(n) > max_bytes) return too_large();
    content.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return content;
}

Status write_text_file(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    return write_in_place(path, content);  // e.g. /dev/stdout: cannot be renamed over
  }
  std::filesystem::path temporary;
  StatusOr<int> fd = create_temporary(path, temporary);
  if (!fd.ok()) return fd.status();
  Status written = write_fd(*fd, content, path);
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
