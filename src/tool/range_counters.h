// RangeCounters: the counting side of the range controller
// (range_controller.h). It sets up the counters once per process (the
// counter session, tool/logic/counter_session.h, over CUPTI:
// tool/cupti_counters.h) in the first profiled context, with the tool's
// stream and the L2 flush; it starts and stops a range's pass 0 (a pass of
// its own, or the range's counter range in the standing pass), sizes the
// counter image to the kernels a recording pass 0 ran, gives a replay
// window its cache-flush and lead-in hooks, evaluates a range's values into
// its record and flushes the standing pass. The controller decides when
// each step runs; the deferred ranges (deferred_ranges.h) use the same
// steps for a batch and its members.
//
// Thread-safety: called with the tool's lock held (the controller's callers
// hold it) and inside an InToolScope (flush_caches enters its own). It
// waits for CUPTI and the GPU (the set-up, the warm-up pass, flushes on the
// tool's stream, a pass's stop and decode), never for the tool's lock of
// another thread. Nothing here throws: failures are the range's decline, a
// Status for the controller to turn into one, or a line in the report's
// errors.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/decline.h"
#include "core/base/status.h"
#include "core/config/profile_config.h"
#include "report/report_model.h"
#include "tool/active_range.h"
#include "tool/counter_prewarm.h"
#include "tool/logic/counter_session.h"
#include "tool/logic/driver_calls.h"
#include "tool/logic/range_report.h"
#include "tool/logic/tool_mutex.h"
#include "tool/pass_flush.h"

namespace rangereplay::tool {

/// The counter session's options for `config` (the same for the set-up at
/// the first range and the one made on a tool thread before it).
CounterSessionOptions counter_session_options(const ProfileConfig& config);

/// What the counters use of the tool around them; every reference outlives
/// them.
struct RangeCountersParts {
  /// The configuration (metrics, --range-metrics, --cache-control, --quiet;
  /// read when a range begins, not at construction).
  const ProfileConfig& config;
  /// The process's report: device and counter facts, the set-up's errors,
  /// the standing pass's records and times.
  report::Report& report;
  /// The tool's lock, held by every caller; the counters name its stage.
  ToolMutex& mutex;
  /// The set-up made on a tool thread before the first range
  /// (unless RANGEREPLAY_COUNTER_PREWARM=0), adopted at the first range when it was
  /// made in the range's context; null without one.
  CounterPrewarm* prewarm = nullptr;
};

class RangeCounters {
 public:
  explicit RangeCounters(RangeCountersParts parts) : parts_(parts) {}
  RangeCounters(const RangeCounters&) = delete;
  RangeCounters& operator=(const RangeCounters&) = delete;

  /// Why a range in `ctx` (not null) cannot be counted: a second context
  /// (this range only), or the counter set-up's decline, made at the first
  /// range and kept for every later one (its detail also goes into the
  /// report's errors and, unless --quiet, onto stderr); a capture that kept
  /// the set-up on the tool's thread from ending declines this range only
  /// (stream_capture_active). nullopt: the counters are set up in `ctx`.
  std::optional<Decline> admit(CUcontext ctx);
  /// Creates the L2 flush when there is none yet (a one-pass list whose
  /// range will be replayed: its replayed pass starts after a restore);
  /// without a flush when its buffer cannot be made.
  void ensure_cache_flush() { flush_.create().ignore(); }
  /// Starts a counting pass 0 of `range`: pushes the range onto the standing
  /// pass (opening it), or flushes, configures and starts a pass of its own;
  /// adds the time to its counters_ms. Errors: the backend's (no pass is
  /// left open behind them).
  Status start_counting_pass0(ActiveRange& range);
  /// Stops pass 0 of `range` (pops its counter range of the standing pass,
  /// or ends a counting pass 0, or sizes the counters to the
  /// `kernel_count` kernels a recording pass 0 ran when the context
  /// `drained`); a failure declines the range. True when CUPTI has every
  /// pass.
  bool stop_pass0(ActiveRange& range, bool drained, std::size_t kernel_count);
  /// Ends the CUPTI pass `range`'s pass 0 is counted in, when the range
  /// holds its entry state and counts pass 0 in a pass of its own (not the
  /// standing pass), with the range's context made current for it; returns
  /// whether it did. The caller marks the range's pass 0 as stopped (every
  /// counter pass is then a replay). The pass's errors are ignored.
  bool end_counted_pass0(const ActiveRange& range);
  /// After a pass 0 that only recorded: the counter mode for `range` (whole
  /// range with graph launches), the image sized to its `kernel_count`
  /// kernels, the configuration set. `layout`, when given, replaces the one
  /// pass 0's recording and the configuration choose. Errors: the backend's
  /// (resource_exhausted with what to narrow).
  Status size_counters_to_pass0(ActiveRange& range, std::size_t kernel_count,
                                std::optional<CounterLayout> layout = std::nullopt);
  /// The layout a pass 0 that only recorded gives `range` in a window of its
  /// own (layout_after_recording_pass0: the configuration, its graph
  /// launches, RANGEREPLAY_KERNEL_RANGES, the cache flush).
  CounterLayout own_layout(const ActiveRange& range) const;
  /// The layout of a member of a batch of several deferred ranges
  /// (batched_layout: the configuration, RANGEREPLAY_KERNEL_RANGES, the
  /// cache flush).
  CounterLayout batch_layout() const;
  /// After `range`'s window and evaluation: the backend back in the
  /// configured mode for the next range, when size_counters_to_pass0 set
  /// another for its layout (errors ignored: the next set-up reports them).
  void restore_configured_mode(const ActiveRange& range);
  /// What a replayed pass of `range` runs right after its counters start
  /// (PassFlush::after_counters_start over the counter session; the
  /// counters must be set up: admit() let a range in).
  std::function<Status()> after_counters_start(const ActiveRange& range) {
    return flush_.after_counters_start(range, *counters_);
  }
  /// Passes the metric list needs (0 before the counter set-up).
  std::uint32_t pass_count() const { return counters_ ? counters_->pass_count() : 0; }
  /// Decodes and evaluates `range`'s counter values into its record (the
  /// lead-in flush's counter range left out, with a note). Errors: the
  /// backend's, or a lead-in count that does not match.
  Status evaluate(ActiveRange& range);
  /// Kernel records of `range`'s recorded kernels, with their counter
  /// values where `values` (one row per counter range) has them
  /// (tool/logic/range_report.h).
  void record_kernels(ActiveRange& range, const std::vector<std::vector<double>>& values);
  /// The standing pass (tool/logic/standing_pass.h): ends the pass and
  /// writes each pending range's values into its report record, `why`
  /// naming the cause; nothing when none is open. Flushed when the image is
  /// full, at a range's begin after a capture, at a teardown of the
  /// profiled context and at exit.
  void flush_standing_pass(const char* why);
  /// Whether a range may leave pass 0 uncounted and replay every counter
  /// pass: not under the standing pass (one-pass lists counted for whole
  /// ranges in the application's own execution).
  bool can_record_pass0_only() const;
  /// Whether `teardown` may end the profiled context: cuCtxDestroy of it, or
  /// a primary-context call on its device.
  bool ends_profiled_context(const TeardownParams& teardown) const;
  /// At process exit: the standing pass's flushes from now count in the
  /// report's exit time, not in its standing_flushes_ms; the report's time
  /// budget gets the first CUPTI pass start's time.
  void at_exit();

  /// The counter session; null before the set-up. The reference stays
  /// valid as long as this object.
  const std::unique_ptr<CounterSession>& session() const { return counters_; }
  /// The context the counters were set up in; null before.
  const CUcontext& context() const { return counters_context_; }
  /// The tool's own stream (replays, snapshot copies, digests); null before
  /// the set-up.
  const CUstream& tool_stream() const { return tool_stream_; }
  /// The L2 flush of the counted passes (without a flush until the set-up
  /// or ensure_cache_flush makes one).
  PassFlush& flush() { return flush_; }

 private:
  // Sets up the counters once per process (tool/cupti_counters.h) and the
  // tool's stream; a range in another context than the first profiled one,
  // or a failing set-up, is a decline, with the reason the failing step
  // established.
  std::optional<Decline> ensure_counters(CUcontext ctx);
  // The counter set-up in `ctx`: the one made on a tool thread when it was
  // made there (waited for at most kPrewarmWait), else set_up_counters here.
  StatusOr<CounterSetup> make_counter_setup(CUcontext ctx);
  // How long the first range waits for the set-up on the tool's thread
  // (about 0.3 s of work; more only when the application held captures open
  // or the thread waits for a lock CUPTI holds).
  static constexpr std::chrono::milliseconds kPrewarmWait{60000};
  // Pushes the range's counter range into the standing pass (opening it at
  // the first range).
  Status push_standing_range(ActiveRange& range);
  RangeCountersParts parts_;
  // at_exit() has begun: its standing-pass flush counts in the report's exit
  // time, not in its standing_flushes_ms.
  bool exiting_ = false;
  // The counters, set up once per process (ensure_counters): passes, image
  // sizing, the standing pass; and the context they were set up in.
  std::unique_ptr<CounterSession> counters_;
  CUcontext counters_context_ = nullptr;
  CUdevice counters_device_ = 0;  // counters_context_'s device
  // The counter set-up failed once: every later range declines the same way.
  std::optional<Decline> counters_failed_;
  // The tool's own stream (replays, snapshot copies, digests), created with
  // the counters. Held raw on purpose: it lives as long as the process (the
  // tool is never destroyed, and a destroy at exit could race the
  // application's last callbacks).
  CUstream tool_stream_ = nullptr;
  // The L2 flush (created with the counters): before every counted pass
  // under --cache-control all, after the tool's own writes under either;
  // none for a one-pass list under none.
  PassFlush flush_;
};

}  // namespace rangereplay::tool
