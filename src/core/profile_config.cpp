// JSON (de)serialization of ProfileConfig (see profile_config.h).
#include "core/profile_config.h"

#include <fstream>
#include <nlohmann/json.hpp>

namespace rangereplay {

NLOHMANN_JSON_SERIALIZE_ENUM(RangeMetrics, {{RangeMetrics::kPerKernel, "kernel"},
                                            {RangeMetrics::kWholeRange, "whole"}})
NLOHMANN_JSON_SERIALIZE_ENUM(RestoreMode, {{RestoreMode::kDifferential, "differential"},
                                           {RestoreMode::kFull, "full"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProfileConfig, nvtx_include, nvtx_exclude, profiler_api,
                                                kernel_range, skip, range_count, range_list, metrics,
                                                range_metrics, verify, restore, snapshot_device_limit,
                                                snapshot_host_limit, report_path, quiet, command)

Status write_profile_config(const ProfileConfig& config, const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return failed_precondition("cannot write the configuration file " + path);
  out << nlohmann::json(config).dump(2) << '\n';
  if (!out) return failed_precondition("cannot write the configuration file " + path);
  return ok_status();
}

StatusOr<ProfileConfig> read_profile_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) return not_found("cannot read the configuration file " + path);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return invalid_argument("configuration file " + path + " is not valid JSON");
  try {
    return j.get<ProfileConfig>();
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument("configuration file " + path + ": " + e.what());
  }
}

}  // namespace rangereplay
