// The counters' once-per-process set-up as the tool calls it
// (RangeCounters::ensure_counters): set_up_counters, defined over CUPTI's
// Range Profiler in cupti_counters.cpp (the object library
// rangereplay_tool_cupti), and by the CPU tests of the tool over a fake
// backend (tests/tool/fakes/fake_counters.cpp). Kept apart from
// cupti_counters.h so that the tool's other objects see no CUPTI backend
// type (an optimizing compiler may inline its methods where it is visible).
//
// Thread-safety: set_up_counters on the range's thread only (the tool's
// lock); warm_up_metric_host from any thread.
#pragma once

#include <cuda.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "tool/logic/counter_session.h"

namespace rangereplay::tool {

/// Where the set-up is (the tool lock's stage names) and what it found
/// (debug lines); either may be empty.
struct CounterSetupHooks {
  std::function<void(const char* stage)> stage;
  std::function<void(const std::string& line)> debug;
};

struct CounterSetup {
  std::unique_ptr<CounterSession> session;
  std::string chip;
  std::string backend;  // the report's counter_backend ("range_profiler")
  CUdevice device = 0;
  std::vector<std::string> metrics;  // collected, in the chip's spelling
  std::vector<std::string> missing;  // roles of the set the chip has under no name
};

/// Sets the counters up in `ctx` (current) for `metrics` (as typed) and the
/// roles of set `metric_set` ("" for none) resolved on the device's chip;
/// `options`' pass_count is the metric list's. Errors carry the decline they establish
/// where it is known (cupti_status.h, metric_catalog.h): insufficient
/// privileges, unknown metrics.
StatusOr<CounterSetup> set_up_counters(CUcontext ctx, const std::vector<std::string>& metrics,
                                       const std::string& metric_set, CounterSessionOptions options,
                                       const CounterSetupHooks& hooks);

/// Starts CUPTI's profiler host library (its one-time initialization: about
/// 0.3 s of one CPU core on the first call in a process, well under a
/// millisecond afterwards), so that set_up_counters' metric evaluator finds
/// it started. Host-only: no CUDA or device call, no context needed, no
/// lock of the tool taken (the host API's own mutex is). set_up_counters
/// waits for it to end before its first device-side CUPTI call, which fails
/// while the host API initializes on another thread. Failures are ignored:
/// the set-up then pays the cost itself. Never throws. Thread-safe.
void warm_up_metric_host() noexcept;

}  // namespace rangereplay::tool
