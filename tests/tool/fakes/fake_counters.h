// A fake CounterBackend (tool/logic/counter_session.h) for the CPU tests of
// src/tool, and the harness's set_up_counters (tool/counter_setup.h): the
// test executable links this definition in place of cupti_counters.cpp's
// (which sets CUPTI's Range Profiler up), so RangeCounters gets a
// CounterSession over the fake backend without any change to the tool.
//
// The backend counts counter ranges as CUPTI makes them: per kernel (one
// per kernel the fake driver ran between a pass's start and end, the tool's
// copy, digest and L2 flush kernels included), whole range (one per pass),
// user ranges (one per push), plus the lead-in range of a whole-range pass
// that has one (as cupti::RangeProfilerSession makes them). Ranges past the
// image's size (resize) are dropped, and decode() reports how many. A range's passes end
// with "all submitted" after `pass_count` passes since begin_range. Its
// values are fake: row r (0-based, in the decoded pass), metric m has
// counter_value(r, m).
//
// Thread-safety: the range's thread only, as the real backend.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "core/base/status.h"
#include "tool/logic/counter_session.h"

namespace rangereplay::fake {

/// What the next set_up_counters call sets up.
struct CounterOptions {
  std::uint32_t pass_count = 3;  // passes the metric list needs
  /// When not ok: set_up_counters fails with this status (the counters
  /// cannot be set up: the tool declines its ranges counters_unavailable).
  Status setup_error = ok_status();
  /// Counter ranges one counter data image holds (CounterBackend::most_ranges);
  /// resize() past it fails resource_exhausted, as the Range Profiler session's.
  std::size_t most_ranges = 100000;
  /// Every pass under CUPTI's automatic per-kernel ranges decodes one
  /// counter range fewer than it opened (counter_ranges_mismatch).
  bool auto_ranges_drop_one = false;
  /// Every cuMemcpyAsync or cuMemcpyBatchAsync call inside a pass under
  /// CUPTI's automatic per-kernel ranges is a counter range of its own, as
  /// CUPTI made of each cuMemcpyBatchAsync call on an H100.
  bool auto_ranges_count_copies = false;
  /// Every pass under CUPTI's automatic per-kernel ranges opens one counter
  /// range more than it ran kernels (a full image drops the last).
  bool auto_ranges_add_one = false;
  /// When above 0: a pass under CUPTI's automatic per-kernel ranges in
  /// which more of the tool's kernels ran than this fails at its end, as a
  /// CUPTI error would.
  std::size_t auto_pass_fails_over_tool_kernels = 0;
  /// When not ok: metric_host_ready returns this status (the metric host
  /// warm-up ran past its wait) instead of waiting.
  Status host_ready_error = ok_status();
  /// How long each of set_up_counters' three steps takes (each announced
  /// through its stage hook first, as the real set-up's are).
  std::chrono::milliseconds setup_step_time{0};
};

/// The value row `row`, metric `metric` of every evaluation: 1000 * (row + 1) + metric.
constexpr double counter_value(std::size_t row, std::size_t metric) {
  return 1000.0 * static_cast<double>(row + 1) + static_cast<double>(metric);
}

/// Configures the next set_up_counters; resets what counters() reports.
void configure_counters(const CounterOptions& options);

/// What the backend set up last has seen (zeros before any set-up).
struct CounterLog {
  bool set_up = false;
  std::size_t passes = 0;            // end_pass calls
  std::size_t ranges_begun = 0;      // begin_range calls
  std::size_t evaluations = 0;       // evaluate calls
  std::size_t rows_left_out = 0;     // rows evaluate_rows was asked to leave out
  std::vector<std::string> started;  // start_pass names, in order
  // set_up_counters began while a warm_up_metric_host call ran (the tool
  // must wait for it: metric_host_ready).
  bool set_up_during_metric_host_warm_up = false;
  std::size_t set_ups = 0;        // set_up_counters calls that returned a session
  std::thread::id set_up_thread;  // the thread of the last one
};
CounterLog counters();

/// The steps of set_up_counters begun since the last configure_counters
/// (read from any thread, while a set-up runs).
std::size_t setup_steps_begun();
/// Whether a step of set_up_counters is running now.
bool setup_step_in_flight();

/// The calls of warm_up_metric_host (counter_setup.h) that have returned
/// since the process started (the harness never resets them), and the thread
/// of the last one.
std::size_t metric_host_warm_ups();
std::thread::id last_metric_host_warm_up_thread();
/// How long each later warm_up_metric_host call takes (0 at the start).
void set_metric_host_warm_up_time(std::chrono::milliseconds time);
/// The warm_up_metric_host calls begun since the process started, and
/// whether more than `begun` have begun within `limit`.
std::size_t metric_host_warm_ups_begun();
bool metric_host_warm_ups_begun_over(std::size_t begun, std::chrono::milliseconds limit);

}  // namespace rangereplay::fake
