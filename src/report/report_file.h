// Reading and writing report files. The injection library writes its report
// at process exit while the launcher may be waiting to read it, so a report
// file is replaced atomically (written beside the target, then renamed):
// a reader sees the old file or the whole new one, never half of one.
//
//   RR_RETURN_IF_ERROR(write_report_file(report, "out.csv"));  // CSV by extension
//
// Errors are one line naming the path and the cause (strerror). Thread-safety:
// concurrent writers of the same path leave one writer's whole file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// The most bytes read_text_file reads by default: 1 GiB. Reports are far
/// smaller (about 1 KiB per kernel); a larger file is the wrong file.
inline constexpr std::uint64_t kMaxReadBytes = std::uint64_t{1} << 30;

/// "<what> '<path>': <strerror(error)>" with the status code `error` calls
/// for: kNotFound (ENOENT, ENOTDIR), kPermissionDenied (EACCES, EPERM,
/// EROFS), kResourceExhausted (ENOSPC, EDQUOT), kInternal otherwise. Pure.
Status errno_status(int error, const std::string& what, const std::filesystem::path& path);

/// Writes all of `content` to the open `fd` (short writes and EINTR
/// retried); the fd stays open. Errors: errno_status(errno, "cannot write",
/// named_in_errors).
Status write_all(int fd, std::string_view content, const std::filesystem::path& named_in_errors);

/// The whole content of a file of at most `max_bytes` bytes. A regular file
/// larger than that is refused before it is read; a device or FIFO
/// (/dev/zero) is read until the cap. Errors: kNotFound (no such file),
/// kPermissionDenied, kResourceExhausted (past the cap: one line naming the
/// path and the cap), kInternal (other read errors).
StatusOr<std::string> read_text_file(const std::filesystem::path& path, std::uint64_t max_bytes = kMaxReadBytes);

/// Replaces `path` with `content`: writes a new file beside it,
/// "<path>.tmp.<12 random letters and digits>", created with
/// O_EXCL|O_NOFOLLOW (a file or symbolic link already at that name is never
/// opened; another name is tried), mode 0644 less the umask, then renamed
/// over `path` (a symbolic link at `path` is replaced, not followed). A path
/// that exists and is not a regular file (/dev/stdout, a FIFO) is written in
/// place instead; a FIFO that no process has open for reading is an error
/// (kFailedPrecondition), not a wait. Errors: kNotFound (missing directory),
/// kPermissionDenied, kResourceExhausted (disk full), kInternal; no file is
/// left behind on error.
Status write_text_file(const std::filesystem::path& path, std::string_view content);

/// Writes `report` in the format its extension names: ".csv" (any case) as
/// the per-metric CSV (report_csv.h), anything else as JSON (report_json.h).
Status write_report_file(const Report& report, const std::filesystem::path& path);

}  // namespace rangereplay::report
