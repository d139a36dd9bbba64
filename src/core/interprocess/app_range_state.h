// The counter data of one range between application range replay's runs.
//
// Each run of --replay-mode/--fallback app-range collects one counter pass of
// a range in the application's own execution; CUPTI keeps what the passes
// collected in the range's counter data image, so the image (and the pass
// CUPTI asks for next) is carried from one run to the next in a file of the
// launcher's folder:
//
//   const std::string path = app_range_state_path(dir, /*range_index=*/2);  // <dir>/range_2.counters
//   RR_ASSIGN_OR_RETURN(std::optional<AppRangeCounterState> before, read_app_range_state(path));
//   ... SetConfig(passIndex = before->next_pass, image = before->counter_data), Start, push, pop, Stop ...
//   RR_RETURN_IF_ERROR(write_app_range_state(path, after));
//
// File layout (host byte order; the runs of one profile share a machine):
// the 8 bytes "RRAPPRG1", then u32 flags (bit 0: every pass submitted), u32
// runs, u64 next_pass, u64 target_nesting_level, u64 image size, the image.
// Plain values and files; thread-safety: none needed (one thread of one
// process writes a file at a time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace rangereplay {

struct AppRangeCounterState {
  std::uint64_t next_pass = 0;             // CUPTI's pass index after the last stop (cuptiRangeProfilerStop's)
  std::uint64_t target_nesting_level = 1;  // and its nesting level
  bool all_passes_submitted = false;       // CUPTI had every pass after the last stop
  std::uint32_t runs = 0;                  // application runs that collected a pass into the image
  std::vector<std::uint8_t> counter_data;  // the counter data image, as CUPTI left it
  friend bool operator==(const AppRangeCounterState&, const AppRangeCounterState&) = default;
};

/// Claims application run `pass` of the state folder `dir` for process
/// `pid`: creates `<dir>/run_<pass>.owner` holding the pid, or finds it
/// holding `pid` already. Application range replay measures one process: a
/// second process of the same run (a multi-process job) must not read and
/// write the same ranges' counter data. Errors: failed_precondition naming
/// the other process ("process 123 of this application run already
/// collects its ranges; ..."), or the file that cannot be created.
Status claim_app_range_run(const std::string& dir, std::uint32_t pass, long pid);

/// `<dir>/range_<range_index>.counters`. Thread-safe (pure).
std::string app_range_state_path(const std::string& dir, std::uint32_t range_index);

/// Writes `state` to `path` through a file beside it, renamed over `path`,
/// so a run killed while writing leaves the previous state whole. Errors:
/// failed_precondition naming the path when it cannot be written.
Status write_app_range_state(const std::string& path, const AppRangeCounterState& state);

/// The state at `path`, or nullopt when there is no such file (the range's
/// first pass). Errors: invalid_argument naming the path for a file that is not a
/// state file or is cut short.
StatusOr<std::optional<AppRangeCounterState>> read_app_range_state(const std::string& path);

}  // namespace rangereplay
