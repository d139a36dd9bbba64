// ProfileConfig: what the user asked for, passed from the launcher to the
// injection library as a JSON file named by $RANGEREPLAY_CONFIG. The range
// selection is held parsed (the launcher parses the options once; the
// injection reads the values back, parsing no expression text); its JSON
// forms are in core/range/range_json.h.
//
//   ProfileConfig c;
//   RR_ASSIGN_OR_RETURN(range::NvtxExpression step, range::parse_nvtx_expression("step/"));
//   c.nvtx_include = {step}; c.metrics = {"smsp__inst_executed.sum"};
//   RR_RETURN_IF_ERROR(write_profile_config(c, "/tmp/rr.json"));
//   RR_ASSIGN_OR_RETURN(ProfileConfig back, read_profile_config("/tmp/rr.json"));  // back == c
//
// Plain value; thread-safety: none needed (read once at injection).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/enum_names.h"
#include "core/base/status.h"
#include "core/range/kernel_windows.h"
#include "core/range/nvtx_expression.h"
#include "core/range/range_selector.h"

namespace rangereplay {

/// --range-metrics: counter values per kernel, or one value per range.
enum class RangeMetrics { kPerKernel, kWholeRange };
/// The names of RangeMetrics in the configuration, on the command line and in
/// the report's "range_metrics" field.
inline constexpr EnumNames<RangeMetrics, 2> kRangeMetricsNames{{
    {RangeMetrics::kPerKernel, "kernel"},
    {RangeMetrics::kWholeRange, "whole"},
}};

/// --restore: before each pass, copy back only the snapshot's chunks whose
/// digest differs (differential), or every snapshot byte (full).
enum class RestoreMode { kDifferential, kFull };
/// The names of RestoreMode in the configuration, on the command line and in
/// the report's per-range "restore" field.
inline constexpr EnumNames<RestoreMode, 2> kRestoreModeNames{{
    {RestoreMode::kDifferential, "differential"},
    {RestoreMode::kFull, "full"},
}};

/// The cache state each counted pass starts from, with Nsight Compute's
/// names: kAll flushes the GPU's L2 (writing back its dirty lines and leaving
/// none of the range's data in it) before every counted pass, pass 0
/// included, so every pass starts cold; kNone leaves the cache as the
/// application left it, flushing only after the tool's own writes (a
/// multi-pass range's entry snapshot, each replay's restore).
enum class CacheControl { kNone, kAll };
inline constexpr EnumNames<CacheControl, 2> kCacheControlNames{{
    {CacheControl::kNone, "none"},
    {CacheControl::kAll, "all"},
}};

/// What a range holding a collective kernel (NCCL, NVSHMEM:
/// core/interprocess/collective_kernels.h) does in a multi-pass profile: kDecline declines
/// it (collective_in_range); kReplay has every rank of the job replay each
/// multi-pass range together, pass by pass, after a rendezvous
/// (core/interprocess/rendezvous.h), so the collective meets its peers.
enum class CollectivesMode { kDecline, kReplay };
inline constexpr EnumNames<CollectivesMode, 2> kCollectivesModeNames{{
    {CollectivesMode::kDecline, "decline"},
    {CollectivesMode::kReplay, "replay"},
}};

/// One run of application range replay (--replay-mode app-range, --fallback
/// app-range), as the launcher hands it to the injection: the run neither
/// snapshots nor replays; it collects counter pass `pass` of the matched
/// ranges it names, one CUPTI pass per range in the application's own
/// execution, and leaves every other range alone (no record). Each range's
/// counter data is carried from run to run in a file under `state_dir`
/// (core/interprocess/app_range_state.h).
struct AppRangeRun {
  std::uint32_t pass = 0;             // the counter pass this run collects, from 0
  std::string state_dir;              // an existing folder, the same for every run of a profile
  bool every_range = false;           // --replay-mode app-range: every matched range
  std::vector<std::uint32_t> ranges;  // else: the matched-range indices (RangeRecord::index) it collects
  /// Whether the run collects matched range `index`.
  bool collects(std::uint32_t index) const;
  friend bool operator==(const AppRangeRun&, const AppRangeRun&) = default;
};

/// --batch-ranges when it is left out: the most multi-pass ranges deferred and
/// replayed together (each counter pass one CUPTI start and stop for all of
/// them). 16 holds a ten-iteration loop's ranges in one batch.
inline constexpr std::uint32_t kDefaultBatchRanges = 16;

struct ProfileConfig {
  // Range selection.
  std::vector<range::NvtxExpression> nvtx_include;     // --nvtx-include, parsed (each keeps its text)
  std::vector<range::NvtxExpression> nvtx_exclude;     // --nvtx-exclude, parsed
  bool profiler_api = false;                           // ranges from cu(da)ProfilerStart/Stop
  std::optional<range::KernelWindows> kernel_windows;  // --kernel-range 100:164, nullopt = off
  range::RangeSelector ranges;    // matched ranges to profile (--skip/--range-count or --range-list); default all
  std::uint32_t range_count = 0;  // --range-count as given (0 = not given): the total progress lines show
  // Counters.
  std::vector<std::string> metrics;  // --metrics names, as typed
  std::string metric_set;            // --set name, "" for none: its roles are resolved on the device's chip
                                     // (core/config/metric_sets.h resolve_metric_list) in the profiled process
  RangeMetrics range_metrics = RangeMetrics::kPerKernel;
  // Replay.
  bool verify = false;
  RestoreMode restore = RestoreMode::kDifferential;         // differential: only chunks whose digest differs are copied
  std::uint64_t snapshot_device_limit = 0;                  // bytes, 0 = no cap
  std::uint64_t snapshot_host_limit = 0;                    // bytes, 0 = no cap
  CacheControl cache_control = CacheControl::kAll;          // --cache-control
  CollectivesMode collectives = CollectivesMode::kDecline;  // --collectives
  std::string rendezvous;  // --rendezvous host:port; empty: MASTER_ADDR and MASTER_PORT + 1
  // --batch-ranges: the most multi-pass ranges deferred and replayed together
  // (at least 2), or 0 (off): every multi-pass range is replayed at its own end.
  std::uint32_t batch_ranges = kDefaultBatchRanges;
  // --collectives replay: the job's token every rank gives rank 0 (set by the
  // launcher: core/interprocess/rendezvous_endpoint.h, rendezvous_job_token). A secret
  // when it is random: the file holding it is readable by its owner only.
  std::string rendezvous_token;
  // Application range replay: this run collects one pass by re-running
  // (set by the launcher for its runs of --replay-mode/--fallback app-range).
  std::optional<AppRangeRun> app_range;
  // Output.
  // Where the injection writes the JSON report at exit; "%p" in it is the
  // writing process's id, so each process of a multi-process job (torchrun,
  // mpirun) writes a file of its own.
  std::string report_path;
  // Environment variables whose values the injection records in its report
  // (Report::environment), where set in its process: those --output names
  // with %q{VAR}, and the ranks' variables (RANK, OMPI_COMM_WORLD_RANK, ...).
  std::vector<std::string> report_environment;
  bool quiet = false;                // no progress on stderr
  std::vector<std::string> command;  // the application and its arguments (for the report)

  friend bool operator==(const ProfileConfig&, const ProfileConfig&) = default;
};

/// `config.report_path` for the process `pid`: every "%p" in it replaced by
/// the decimal pid, so the processes of one job write files of their own.
/// Thread-safe (pure).
std::string report_path_for_process(const ProfileConfig& config, long pid);

/// The environment variables that name a process's rank in a multi-process
/// job, as torchrun (RANK, LOCAL_RANK), Open MPI (OMPI_COMM_WORLD_RANK,
/// OMPI_COMM_WORLD_LOCAL_RANK), MPICH/PMI (PMI_RANK) and Slurm (SLURM_PROCID,
/// SLURM_LOCALID) set them, global ranks first.
inline constexpr const char* kRankVariables[] = {"RANK",         "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                                 "SLURM_PROCID", "LOCAL_RANK",           "OMPI_COMM_WORLD_LOCAL_RANK",
                                                 "SLURM_LOCALID"};

/// Serializes `config` as JSON into `path`, mode 0600 (it may hold the
/// rendezvous token); a symbolic link at `path` is not followed. Errors
/// (failed_precondition, with strerror): the file cannot be written.
Status write_profile_config(const ProfileConfig& config, const std::string& path);
/// The largest configuration file read_profile_config reads: 64 MiB (the
/// launcher's are a few KiB; a range list of a million indices is ~8 MiB).
inline constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{64} << 20;

/// Reads a config written by write_profile_config; absent fields keep their
/// defaults. Errors, each one line naming `path`: kNotFound for a missing or
/// unreadable file; kInvalidArgument for a folder or other non-regular file,
/// a file past kMaxConfigBytes, malformed JSON, or a field of the wrong type
/// or an impossible value ("configuration file <path>: nvtx_include[0].kind:
/// unknown kind ...", "batch_ranges: 1 ..."). Never throws except std::bad_alloc.
StatusOr<ProfileConfig> read_profile_config(const std::string& path);

}  // namespace rangereplay
