// Finding, ordering and naming the reports of one run (see process_reports.h).
#include "cli/process_reports.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <system_error>

#include "core/config/profile_config.h"

namespace rangereplay::cli {

namespace {

// The pid of a file named "report.<pid><suffix>"; nullopt for any other name.
std::optional<long> pid_of_report_name(const std::string& name, std::string_view suffix) {
  constexpr std::string_view kPrefix = "report.";
  if (name.size() <= kPrefix.size() + suffix.size() || !name.starts_with(kPrefix) || !name.ends_with(suffix))
    return std::nullopt;
  const std::string_view digits(name.data() + kPrefix.size(), name.size() - kPrefix.size() - suffix.size());
  long pid = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (ec != std::errc() || end != digits.data() + digits.size() || pid <= 0) return std::nullopt;
  return pid;
}

std::optional<long> decimal(const std::string& text) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "dir/run.json" -> "dir/run.<pid>.json".
std::string with_pid(const std::string& path, long pid) {
  const std::filesystem::path p(path);
  std::filesystem::path out = p.parent_path() / p.stem();
  out += "." + std::to_string(pid) + p.extension().string();
  return out.string();
}

}  // namespace

std::vector<std::string> process_report_files(const std::string& folder) {
  // By pid: the report, else the journal of a process that wrote none.
  std::map<long, std::string> reports, journals;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (std::optional<long> pid = pid_of_report_name(name, ".json")) reports[*pid] = it->path().string();
    if (std::optional<long> pid = pid_of_report_name(name, ".journal")) journals[*pid] = it->path().string();
  }
  for (auto& [pid, path] : journals) reports.try_emplace(pid, std::move(path));
  std::vector<std::string> out;
  out.reserve(reports.size());
  for (auto& [pid, path] : reports) out.push_back(std::move(path));
  return out;
}

std::optional<long> rank_of(const report::Report& report) {
  // Global ranks first: a local rank alone still orders one node's processes.
  if (!report.environment) return std::nullopt;
  for (const char* name : kRankVariables) {
    const auto it = report.environment->find(name);
    if (it == report.environment->end()) continue;
    if (std::optional<long> rank = decimal(it->second)) return rank;
  }
  return std::nullopt;
}

void order_by_rank(std::vector<report::Report>& reports) {
  std::stable_sort(reports.begin(), reports.end(), [](const report::Report& a, const report::Report& b) {
    const std::optional<long> ra = rank_of(a), rb = rank_of(b);
    if (ra.has_value() != rb.has_value()) return ra.has_value();
    if (ra && *ra != *rb) return *ra < *rb;
    return a.process_id < b.process_id;
  });
}

std::string process_label(const report::Report& report) {
  const std::string pid = report.process_id ? "pid " + std::to_string(report.process_id) : "process";
  if (std::optional<long> rank = rank_of(report)) return "rank " + std::to_string(*rank) + " (" + pid + ")";
  return pid;
}

std::vector<std::string> output_variables(const std::string& pattern) {
  // expand_output_path's own parser, with a lookup that sets nothing and
  // notes each name.
  std::vector<std::string> names;
  (void)expand_output_path(pattern, 0, "",
                           with_stand_ins([](const std::string&) { return std::optional<std::string>(); }, &names));
  return names;
}

std::vector<StatusOr<std::string>> output_paths(const std::string& pattern, const std::vector<report::Report>& reports,
                                                long fallback_pid, const std::string& fallback_host,
                                                const EnvLookup& env, std::vector<std::string>& warnings) {
  std::vector<StatusOr<std::string>> out;
  std::map<std::string, std::size_t> taken;  // path -> reports that expanded to it
  std::size_t renamed = 0;
  for (const report::Report& r : reports) {
    const long pid = r.process_id ? static_cast<long>(r.process_id) : fallback_pid;
    const EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
      if (r.environment)
        if (auto it = r.environment->find(name); it != r.environment->end()) return it->second;
      return env(name);
    };
    StatusOr<std::string> path =
        expand_output_path(pattern, pid, r.host_name.value_or("").empty() ? fallback_host : *r.host_name, lookup);
    if (path.ok() && taken[*path]++ > 0) {
      path = with_pid(*path, pid);
      ++renamed;
    }
    out.push_back(std::move(path));
  }
  if (renamed > 0) {
    warnings.push_back(std::to_string(reports.size()) + " processes wrote reports and --output '" + pattern +
                       "' names fewer files: " + std::to_string(renamed) +
                       " were saved with their pid before the extension; put %p or %q{RANK} in --output");
  }
  return out;
}

}  // namespace rangereplay::cli
