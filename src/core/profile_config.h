// ProfileConfig: what the user asked for, passed from the launcher to the
// injection library as a JSON file named by $RANGEREPLAY_CONFIG.
//
//   ProfileConfig c; c.nvtx_include = {"step/"}; c.metrics = {"smsp__inst_executed.sum"};
//   RR_RETURN_IF_ERROR(write_profile_config(c, "/tmp/rr.json"));
//   RR_ASSIGN_OR_RETURN(ProfileConfig back, read_profile_config("/tmp/rr.json"));
//
// Plain value; thread-safety: none needed (read once at injection).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace rangereplay {

enum class RangeMetrics { kPerKernel, kWholeRange };
enum class RestoreMode { kDifferential, kFull };

struct ProfileConfig {
  // Range selection.
  std::vector<std::string> nvtx_include;  // Nsight Compute include expressions
  std::vector<std::string> nvtx_exclude;
  bool profiler_api = false;              // ranges from cu(da)ProfilerStart/Stop
  std::string kernel_range;               // "100:164" (launch indices in the process), empty = off
  std::uint32_t skip = 0;                 // skip the first K matched ranges
  std::uint32_t range_count = 0;          // profile at most M ranges (0 = no limit)
  std::string range_list;                 // "2,5-7": matched-range indices to profile, empty = all
  // Counters.
  std::vector<std::string> metrics;       // expanded metric names (launcher expands --set)
  RangeMetrics range_metrics = RangeMetrics::kPerKernel;
  // Replay.
  bool verify = false;
  RestoreMode restore = RestoreMode::kDifferential;  // differential: only chunks whose digest differs are copied
  std::uint64_t snapshot_device_limit = 0;  // bytes, 0 = no cap
  std::uint64_t snapshot_host_limit = 0;    // bytes, 0 = no cap
  // Output.
  std::string report_path;  // where the injection writes the JSON report at exit
  bool quiet = false;       // no progress on stderr
  std::vector<std::string> command;  // the application and its arguments (for the report)
};

/// Serializes `config` as JSON into `path`. Errors: the file cannot be written.
Status write_profile_config(const ProfileConfig& config, const std::string& path);
/// Reads a config written by write_profile_config. Errors: unreadable file,
/// malformed JSON, a field of the wrong type (message names the field).
StatusOr<ProfileConfig> read_profile_config(const std::string& path);

}  // namespace rangereplay
