// The --output file name: its format (from the extension) and the expansion of
// Nsight Compute's placeholders, so that every process of a multi-process job
// (MPI, torchrun) can write its own file:
//   %p        process id of the application
//   %q{NAME}  value of environment variable NAME (e.g. %q{RANK})
//   %h        host name
//   %%        a literal '%'
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace rangereplay::cli {

enum class OutputFormat { kJson, kCsv, kHtml };

/// The layout of a CSV report: rangereplay's own (report/report_csv.h, with
/// its .ranges.csv and .budget.csv beside it) or ncu's --page details / raw
/// (report/report_ncu_csv.h, one file).
enum class CsvPage { kOwn, kDetails, kRaw };

/// `--csv-page NAME` ("details" or "raw") for an output in `format`. Errors
/// (invalid_argument): another name, or an output that is not CSV.
StatusOr<CsvPage> parse_csv_page(const std::string& name, OutputFormat format);

/// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

/// The process environment (getenv).
std::optional<std::string> process_env(const std::string& name);

/// Expands the placeholders above in `pattern`. `pid` is the application's
/// process id; `host` the host name. Errors (invalid_argument, one line): an
/// unknown placeholder ('%x'), a '%' at the end, an unterminated or empty
/// %q{...}, or %q{NAME} with NAME unset. Thread-safe if `env` is.
StatusOr<std::string> expand_output_path(const std::string& pattern, long pid, const std::string& host,
                                         const EnvLookup& env);

/// `env`, with a stand-in value ("0") for each variable it does not set: a
/// multi-process job's launcher (torchrun, mpirun, srun) sets RANK and the
/// like in each process, not where rangereplay starts, so a check made there
/// expands an unset %q{NAME} with this. Each unset name looked up is appended
/// to `*unset`, once, when `unset` is not null (which must outlive the lookup).
/// Thread-safe if `env` is and `unset` is null.
EnvLookup with_stand_ins(EnvLookup env, std::vector<std::string>* unset = nullptr);

/// Format chosen by the file's extension, case-insensitive: ".json" -> JSON,
/// ".csv" -> CSV, ".html" -> HTML. Errors (invalid_argument): any other or no
/// extension.
StatusOr<OutputFormat> output_format_of(const std::string& path);

/// Checks, before the application starts, that a report can be written where
/// --output `pattern` points, without touching an existing report: `pattern`
/// is expanded with `host`, `env` and a stand-in pid (and a stand-in value
/// for each variable `env` does not set, see with_stand_ins), then
///   - without %p or an unset variable (the final path is known): the path is
///     opened for writing, created if missing (O_CREAT|O_EXCL, then removed
///     again) or opened in append mode if it exists (O_APPEND, nothing
///     truncated or written);
///   - otherwise: a probe file is created in the folder (mkstemp) and removed.
/// A folder name that itself uses %p or an unset variable is not checked. Errors (one line):
/// not_found when the folder does not exist, permission_denied when the path
/// or folder cannot be written (the errno text names why), invalid_argument
/// for a malformed pattern (see expand_output_path). Thread-safe if `env` is.
Status check_output_writable(const std::string& pattern, const std::string& host, const EnvLookup& env);

/// Checks that the folder of `path` (a literal path: `report -o`, `merge -o`)
/// exists and is a folder, so that a command that reads and renders reports
/// first fails before its work with the fix, not after it with the errno
/// text alone. Errors (one line): not_found when the folder does not exist,
/// invalid_argument when it is a file. Thread-safe.
Status check_output_folder(const std::string& path);

}  // namespace rangereplay::cli
