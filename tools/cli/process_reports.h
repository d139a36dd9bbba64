// The reports of one profiled run. Every process of the application that
// initializes CUDA is injected and writes its own report into the launch's
// folder as report.<pid>.json (ProfileConfig::report_path "report.%p.json"):
// one for a plain program, one per rank for torchrun, mpirun or srun jobs.
// These functions find them, order them by rank, name each process, and give
// each its --output path.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/output_path.h"
#include "core/base/status.h"
#include "report/report_model.h"

namespace rangereplay::cli {

/// The file name pattern the injection writes under (see ProfileConfig).
inline constexpr const char* kProcessReportPattern = "report.%p.json";

/// The report files in `folder`: names "report.<decimal pid>.json" only (a
/// half-written temporary file is not one), and for a process that left a
/// journal but no report (it was killed before its exit handler),
/// "report.<pid>.journal" (report/report_journal.h; load_report reads both);
/// sorted by pid. An unreadable folder gives none. Thread-safe.
std::vector<std::string> process_report_files(const std::string& folder);

/// The process's rank in its job: the first of core's kRankVariables with a
/// decimal value in `report.environment`; nullopt when none has. Pure.
std::optional<long> rank_of(const report::Report& report);

/// Orders `reports` by rank (processes without one after those with one),
/// then by process id. Stable; pure.
void order_by_rank(std::vector<report::Report>& reports);

/// How the terminal names the process: "rank 1 (pid 4242)" or "pid 4242"
/// ("process" when the pid is unknown). Pure.
std::string process_label(const report::Report& report);

/// The variables `pattern` names with %q{VAR}, in order, each once, as
/// expand_output_path reads them (up to its first error in a malformed
/// pattern, which it reports). Pure.
std::vector<std::string> output_variables(const std::string& pattern);

/// Where each report is saved for --output `pattern`: expand_output_path
/// with the report's own process id (`fallback_pid` where it is 0), its host
/// name (`fallback_host` where empty) and its recorded environment (then
/// `env`, the launcher's, for a variable the report does not record). Two
/// reports that would share a path get ".<pid>" before the extension of
/// every path but the first ("run.json" -> "run.4243.json"), and `warnings`
/// gets one line saying so and how to name them apart. An entry is an error
/// (expand_output_path's) where the pattern cannot be expanded for that
/// report, e.g. %q{RANK} with RANK unset in its process. Thread-safe if
/// `env` is.
std::vector<StatusOr<std::string>> output_paths(const std::string& pattern, const std::vector<report::Report>& reports,
                                                long fallback_pid, const std::string& fallback_host,
                                                const EnvLookup& env, std::vector<std::string>& warnings);

}  // namespace rangereplay::cli
