// Finds the application to launch the way execvp(3) would, so that a missing
// or non-executable program is reported before anything starts (exit 2),
// instead of as a failed exec after the profiler is set up.
#pragma once

#include <optional>
#include <string>

#include "core/base/status.h"

namespace rangereplay::cli {

/// Resolves `name` to the file to execute.
///   - A name containing '/' is used as given (relative to the current folder).
///   - Otherwise each folder of `path_env` (colon separated; an empty entry is
///     the current folder; unset PATH means "/bin:/usr/bin", as glibc does) is
///     tried in order; the first executable regular file wins. A match that is
///     not executable is skipped, and reported only when nothing else matches.
/// Errors (one line naming the cause and the fix): not_found (no such file),
/// permission_denied (exists but is not executable, or is a folder),
/// invalid_argument (empty name: kEmptyApplicationName). Thread-safe (reads
/// the file system only).
/// The error for `-- ""`: the name after '--' is empty.
inline constexpr const char* kEmptyApplicationName =
    "the application name is empty; write 'rangereplay profile [options] -- <app> [args]'";

StatusOr<std::string> resolve_application(const std::string& name, const std::optional<std::string>& path_env);

}  // namespace rangereplay::cli
