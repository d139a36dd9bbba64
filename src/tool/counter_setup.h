// The counters' once-per-process set-up as the tool calls it
// (RangeCounters::ensure_counters): set_up_counters, defined over CUPTI's
// Range Profiler in cupti_counters.cpp (the object library
// rangereplay_tool_cupti), and by the CPU tests of the tool over a fake
// backend (tests/tool/fakes/fake_counters.cpp). Kept apart from
// cupti_counters.h so that the tool's other objects see no CUPTI backend
// type (an optimizing compiler may inline its methods where it is visible).
//
// Thread-safety: metric_host_ready and set_up_counters on the range's thread
// only (the tool's lock); warm_up_metric_host from any thread.
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
  /// Calls `stage` / `debug` where set.
  void say_stage(const char* s) const {
    if (stage) stage(s);
  }
  void say_debug(const std::string& line) const {
    if (debug) debug(line);
  }
};

struct CounterSetup {
  std::unique_ptr<CounterSession> session;
  std::string chip;
  std::string backend;  // the report's counter_backend ("range_profiler" or "pm_sampling")
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
/// lock of the tool taken (the host API's own mutex and its start's leaf
/// lock are). The counter set-up waits for it (metric_host_ready) before its
/// first device-side CUPTI call. Failures are ignored:
/// the set-up then pays the cost itself. Never throws. Thread-safe.
void warm_up_metric_host() noexcept;

/// Waits until a warm_up_metric_host run on another thread has ended (at
/// most 10 s), or runs the host API's initialization on this thread when
/// none has started. set_up_counters' first device-side CUPTI call must come
/// after it: cuptiProfilerInitialize failed with CUPTI_ERROR_UNKNOWN while
/// the host API initialized on another thread (H100, driver 580.159.04).
/// Errors: kUnavailable when the other thread's run goes on past the wait;
/// a failure of the host API itself is not one (the set-up then initializes
/// it). Takes the host API start's leaf lock, and the host API's lock when it
/// runs the initialization itself; waits only for the warm-up thread, never
/// for an application thread. Never throws. Thread-safe.
Status metric_host_ready() noexcept;

}  // namespace rangereplay::tool
