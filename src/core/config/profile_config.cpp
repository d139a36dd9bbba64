// JSON (de)serialization of ProfileConfig (see profile_config.h).
#include "core/config/profile_config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/base/environment.h"
#include "core/base/json_field.h"
#include "core/range/range_json.h"

namespace rangereplay {

namespace {

using nlohmann::json;

json expressions_json(const std::vector<range::NvtxExpression>& expressions) {
  json j = json::array();
  for (const range::NvtxExpression& e : expressions) j.push_back(range::nvtx_expression_json(e));
  return j;
}

Status read_expressions(const json& config, const char* name, std::vector<range::NvtxExpression>& out) {
  const auto it = config.find(name);
  if (it == config.end() || it->is_null()) return ok_status();
  RR_RETURN_IF_ERROR(json_field::require_array(*it, name));
  for (std::size_t i = 0; i < it->size(); ++i) {
    RR_ASSIGN_OR_RETURN(range::NvtxExpression e,
                        range::nvtx_expression_from_json((*it)[i], json_field::element(name, i)));
    out.push_back(std::move(e));
  }
  return ok_status();
}

json config_json(const ProfileConfig& c) {
  json j = json::object();
  j["nvtx_include"] = expressions_json(c.nvtx_include);
  j["nvtx_exclude"] = expressions_json(c.nvtx_exclude);
  j["profiler_api"] = c.profiler_api;
  j["kernel_windows"] = c.kernel_windows ? range::kernel_windows_json(*c.kernel_windows) : json(nullptr);
  j["ranges"] = range::range_selector_json(c.ranges);
  j["range_count"] = c.range_count;
  j["metrics"] = c.metrics;
  j["metric_set"] = c.metric_set;
  j["range_metrics"] = name_of(kRangeMetricsNames, c.range_metrics);
  j["verify"] = c.verify;
  j["restore"] = name_of(kRestoreModeNames, c.restore);
  j["snapshot_device_limit"] = c.snapshot_device_limit;
  j["snapshot_host_limit"] = c.snapshot_host_limit;
  j["cache_control"] = name_of(kCacheControlNames, c.cache_control);
  j["collectives"] = name_of(kCollectivesModeNames, c.collectives);
  j["rendezvous"] = c.rendezvous;
  j["rendezvous_token"] = c.rendezvous_token;
  j["batch_ranges"] = c.batch_ranges;
  if (c.app_range) {
    j["app_range"] = json{{"pass", c.app_range->pass},
                          {"state_dir", c.app_range->state_dir},
                          {"every_range", c.app_range->every_range},
                          {"ranges", c.app_range->ranges}};
  } else {
    j["app_range"] = nullptr;
  }
  j["report_path"] = c.report_path;
  j["report_environment"] = c.report_environment;
  j["quiet"] = c.quiet;
  j["command"] = c.command;
  return j;
}

StatusOr<ProfileConfig> config_from_json(const json& j) {
  using json_field::read;
  RR_RETURN_IF_ERROR(json_field::require_object(j, ""));
  ProfileConfig c;
  RR_RETURN_IF_ERROR(read_expressions(j, "nvtx_include", c.nvtx_include));
  RR_RETURN_IF_ERROR(read_expressions(j, "nvtx_exclude", c.nvtx_exclude));
  RR_RETURN_IF_ERROR(read(j, "profiler_api", "", c.profiler_api));
  if (const auto it = j.find("kernel_windows"); it != j.end() && !it->is_null()) {
    RR_ASSIGN_OR_RETURN(range::KernelWindows windows, range::kernel_windows_from_json(*it, "kernel_windows"));
    c.kernel_windows = std::move(windows);
  }
  if (const auto it = j.find("ranges"); it != j.end() && !it->is_null()) {
    RR_ASSIGN_OR_RETURN(c.ranges, range::range_selector_from_json(*it, "ranges"));
  }
  RR_RETURN_IF_ERROR(read(j, "range_count", "", c.range_count));
  RR_RETURN_IF_ERROR(read(j, "metrics", "", c.metrics));
  RR_RETURN_IF_ERROR(read(j, "metric_set", "", c.metric_set));
  RR_RETURN_IF_ERROR(json_field::read_enum(j, "range_metrics", "", kRangeMetricsNames, c.range_metrics));
  RR_RETURN_IF_ERROR(read(j, "verify", "", c.verify));
  RR_RETURN_IF_ERROR(json_field::read_enum(j, "restore", "", kRestoreModeNames, c.restore));
  RR_RETURN_IF_ERROR(read(j, "snapshot_device_limit", "", c.snapshot_device_limit));
  RR_RETURN_IF_ERROR(read(j, "snapshot_host_limit", "", c.snapshot_host_limit));
  RR_RETURN_IF_ERROR(json_field::read_enum(j, "cache_control", "", kCacheControlNames, c.cache_control));
  RR_RETURN_IF_ERROR(json_field::read_enum(j, "collectives", "", kCollectivesModeNames, c.collectives));
  RR_RETURN_IF_ERROR(read(j, "rendezvous", "", c.rendezvous));
  RR_RETURN_IF_ERROR(read(j, "rendezvous_token", "", c.rendezvous_token));
  RR_RETURN_IF_ERROR(read(j, "batch_ranges", "", c.batch_ranges));
  if (c.batch_ranges == 1) {
    return invalid_argument("batch_ranges: 1 is no batch; give 0 (off) or a whole number from 2");
  }
  if (const auto it = j.find("app_range"); it != j.end() && !it->is_null()) {
    RR_RETURN_IF_ERROR(json_field::require_object(*it, "app_range"));
    AppRangeRun run;
    RR_RETURN_IF_ERROR(read(*it, "pass", "app_range", run.pass));
    RR_RETURN_IF_ERROR(read(*it, "state_dir", "app_range", run.state_dir));
    RR_RETURN_IF_ERROR(read(*it, "every_range", "app_range", run.every_range));
    RR_RETURN_IF_ERROR(read(*it, "ranges", "app_range", run.ranges));
    if (run.state_dir.empty()) return invalid_argument("app_range.state_dir: empty; the launcher names a folder");
    c.app_range = std::move(run);
  }
  RR_RETURN_IF_ERROR(read(j, "report_path", "", c.report_path));
  RR_RETURN_IF_ERROR(read(j, "report_environment", "", c.report_environment));
  RR_RETURN_IF_ERROR(read(j, "quiet", "", c.quiet));
  RR_RETURN_IF_ERROR(read(j, "command", "", c.command));
  return c;
}

}  // namespace

bool AppRangeRun::collects(std::uint32_t index) const {
  return every_range || std::find(ranges.begin(), ranges.end(), index) != ranges.end();
}

std::string report_path_for_process(const ProfileConfig& config, long pid) {
  const std::string id = std::to_string(pid);
  std::string out;
  const std::string& pattern = config.report_path;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.compare(i, 2, "%p") == 0) {
      out += id;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

Status write_profile_config(const ProfileConfig& config, const std::string& path) {
  // Readable by its owner only: it may hold the rendezvous token.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return failed_precondition("cannot write the configuration file " + path + " (" + std::strerror(errno) + ")");
  }
  const std::string text = config_json(config).dump(2) + "\n";
  bool ok = ::fchmod(fd, 0600) == 0;
  for (std::size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  const int err = errno;
  if (::close(fd) != 0) ok = false;
  if (!ok) {
    return failed_precondition("cannot write the configuration file " + path + " (" + std::strerror(err) + ")");
  }
  return ok_status();
}

StatusOr<ProfileConfig> read_profile_config(const std::string& path) {
  // O_NONBLOCK: a FIFO without a writer is refused below, not waited on.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return not_found("cannot read the configuration file " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return invalid_argument("configuration file " + path + " is " +
                            (S_ISDIR(st.st_mode) ? "a folder" : "not a regular file") + "; " + environment::kConfig +
                            " must name the file `rangereplay profile` writes");
  }
  if (static_cast<std::uint64_t>(st.st_size) > kMaxConfigBytes) {
    ::close(fd);
    return invalid_argument("configuration file " + path + " is larger than the " + std::to_string(kMaxConfigBytes) +
                            "-byte cap; " + environment::kConfig + " must name the file `rangereplay profile` writes");
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return not_found("cannot read the configuration file " + path + ": " + std::strerror(error));
    }
    if (n == 0 || text.size() + static_cast<std::size_t>(n) > kMaxConfigBytes) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return invalid_argument("configuration file " + path + " is not valid JSON");
  StatusOr<ProfileConfig> config = config_from_json(j);
  if (!config.ok()) return invalid_argument("configuration file " + path + ": " + config.status().message());
  return config;
}

}  // namespace rangereplay
