// DeferredRanges: the range controller's batch queue (--batch-ranges N).
// A multi-pass range whose pass 0 only recorded, and that can wait (no graph
// launches, no pinned host buffers restored with it, no write-set snapshot),
// is deferred at its end: its record is reserved in the report and it keeps
// its entry snapshot (in a batch storage of the entry snapshots) until its
// batch is replayed. The batch is replayed in one ReplayWindow
// (tool/logic/replay_window.h), each member in its own counter ranges, when
// it is full, when the counter image would not hold one more range, and at
// the flush points: a free, unmap or access change, a teardown, a write into
// memory no deferred range's snapshot holds, a capture begin, a snapshot
// that does not fit beside theirs. Per-kernel values come from CUPTI's
// automatic ranges (the counter ranges of the tool's restore and flush
// kernels between members are left out, counted at their launch), or from a
// user range pushed around each kernel: without a flush buffer, with
// RANGEREPLAY_KERNEL_RANGES=user, when the automatic ranges' image would not
// hold the batch, or after a range alone missed a kernel in them. A batch
// whose automatic ranges do not add up, or fail, is replayed again with user
// ranges; one whose user ranges do not match is replayed again member by
// member, as immediate ranges. A flush due while
// a capture is open or beginning declines the batch instead (no call a
// capture forbids is made); nothing is replayed at exit.
//
// The range controller (range_controller.h) owns it, decides when a range
// is deferred, and lends it the counters (range_counters.h: the session,
// the tool's stream, the profiled context and the counting steps a batch
// shares with an immediate range), the entry snapshots, the parked ranges,
// and the services of BatchServices, which it implements.
//
// Thread-safety: every member but has_pending() is called with the tool's
// lock held and inside an InToolScope (flush_pending enters its own); a
// batch's replay window holds the inventory's lock. has_pending() is read
// without the lock (an atomic): a capture begin on another thread that sees
// it waits for the tool's lock before its capture exists.
#pragma once

#include <cuda.h>

#include <atomic>
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
#include "core/record/allocation_inventory.h"
#include "core/record/capture_state.h"
#include "report/report_model.h"
#include "tool/active_range.h"
#include "tool/entry_snapshots.h"
#include "tool/logic/counter_session.h"
#include "tool/logic/range_report.h"
#include "tool/logic/tool_mutex.h"
#include "tool/range_counters.h"

namespace rangereplay::tool {

/// What the deferred ranges use of the range controller, which implements
/// it: the immediate path's window, for a batch member replayed on its own,
/// and the facts a batch's window needs. Called with the tool's lock held.
struct WindowMember;  // controller_helpers.h

class BatchServices {
 public:
  /// Whether another thread has unloaded a module since `range` ended.
  virtual bool unloaded_since_end(const ActiveRange& range) const = 0;
  /// `range`'s own replay window; the caller holds the inventory's lock.
  /// nullopt when every pass ran, or the range's decline.
  virtual std::optional<Decline> replay_window_locked(ActiveRange& range) = 0;

 protected:
  ~BatchServices() = default;
};

/// What the deferred ranges use of the tool around them; every reference
/// outlives them.
struct DeferredRangesParts {
  /// The configuration (--batch-ranges, --range-metrics, --quiet; read when
  /// used: it is loaded after the controller is built).
  const ProfileConfig& config;
  /// Stream captures: a flush due while one is open or beginning declines.
  const CaptureState& captures;
  /// Its lock is held for a batch's whole replay window.
  AllocationInventory& inventory;
  /// The process's report: the deferred ranges' reserved records.
  report::Report& report;
  /// The tool's lock, held by every caller; a batch names its stage.
  ToolMutex& mutex;
  /// The entry snapshots: the members' restore globals, the batch storages.
  EntrySnapshots& snapshots;
  /// The controller's counters: their session (null before its set-up),
  /// the tool's stream, the profiled context, and the steps a batch shares
  /// with an immediate range (the pass count, the cache-flush hook, the
  /// counter image sized to a recorded pass 0, the evaluation, the kernel
  /// records).
  RangeCounters& counting;
  /// The controller's parked ranges: declined members whose GPU objects
  /// cannot be freed now.
  std::vector<std::unique_ptr<ActiveRange>>& parked;
  /// The controller's services.
  BatchServices& controller;
};

class DeferredRanges {
 public:
  explicit DeferredRanges(DeferredRangesParts parts)
      : parts_{parts.config, parts.captures, parts.inventory, parts.report, parts.mutex},
        snapshots_(parts.snapshots),
        counting_(parts.counting),
        counters_(parts.counting.session()),
        tool_stream_(parts.counting.tool_stream()),
        counters_context_(parts.counting.context()),
        parked_(parts.parked),
        controller_(parts.controller) {}
  DeferredRanges(const DeferredRanges&) = delete;
  DeferredRanges& operator=(const DeferredRanges&) = delete;

  /// Ranges are deferred; read without the lock.
  bool has_pending() const { return has_pending_.load(std::memory_order_seq_cst); }
  /// The deferred ranges, in the order they ended.
  const std::vector<std::unique_ptr<ActiveRange>>& pending() const { return pending_; }
  /// --batch-ranges: the most ranges deferred together; nullopt: off (each
  /// range replayed at its end). Read from the configuration when asked: it
  /// is loaded after the controller is built.
  std::optional<std::size_t> batch_size() const {
    if (parts_.config.batch_ranges < 2) return std::nullopt;
    return parts_.config.batch_ranges;
  }
  /// Whether an ended range whose replay could be deferred can wait: no
  /// graph launches (the application may destroy the executable graph), no
  /// pinned host buffers restored with it (host threads write them) and no
  /// write-set snapshot (its write set is proven at the range's end, before
  /// the replay, from digests of the memory as pass 0 left it), and counter
  /// ranges that fit one counter data image by themselves in user ranges (one that does not
  /// takes the immediate path, which declines it counters_unavailable at its
  /// end and frees its snapshot then).
  bool can_wait(const ActiveRange& range) const;

  /// Defers `range` (ended, pass 0 recorded, replay not run; batching on):
  /// its record is reserved in the report, and the batch is flushed first
  /// when the counter image would not hold it, and after it when full.
  void defer(std::unique_ptr<ActiveRange> range);
  /// Replays the deferred ranges together now (their window), `why` naming
  /// the cause in their notes, with the profiled context made current;
  /// with a capture open or beginning, or that context not current-able,
  /// they are declined instead (no call a capture forbids is made). Nothing
  /// without any.
  void flush_pending(const char* why);
  /// A free, unmap or access change (`call`) is about to run: the deferred
  /// ranges are replayed first, while their memory is as they used it.
  void before_free(const char* call);
  /// `call` is about to write device memory no deferred range's snapshot
  /// holds: the deferred ranges are replayed first.
  void before_untracked_write(const char* call);
  /// A capture begin call `call` of this thread is about to run (counted in
  /// the captures' beginning()): the deferred ranges are replayed before the
  /// capture exists.
  void flush_before_capture(const char* call);
  /// At process exit: the deferred ranges are declined (replay_failed:
  /// nothing is replayed at exit), their GPU objects parked, never freed.
  void decline_at_exit();

 private:
  // The parts that are not the controller's, under the names the members
  // read them by.
  struct Parts {
    const ProfileConfig& config;
    const CaptureState& captures;
    AllocationInventory& inventory;
    report::Report& report;
    ToolMutex& mutex;
  };

  // Counter ranges a batch's image is sized with for `range`, in the
  // configured batch layout (tool::batch_counter_ranges).
  std::size_t batch_counter_ranges(const ActiveRange& range) const;
  // The same summed over `ranges`.
  std::size_t batch_counter_ranges(const std::vector<std::unique_ptr<ActiveRange>>& ranges) const;
  // Whether another thread has unloaded a module since any range of `batch`
  // ended.
  bool any_unloaded(const std::vector<std::unique_ptr<ActiveRange>>& batch) const;
  // The layout `batch`'s window counts it in: the configured batch layout
  // (RangeCounters::batch_layout), or a user range per kernel (or per range) after `tried_alone`
  // (CUPTI's automatic ranges missed a kernel of the range alone) or when
  // the automatic ranges' image, with the tool's kernels, would not hold
  // the batch.
  CounterLayout batch_window_layout(const std::vector<std::unique_ptr<ActiveRange>>& batch, bool tried_alone) const;
  // Declines every range of `batch` with `reason` and `detail`, fills their
  // reserved records; their GPU state is freed (or parked while a capture is
  // open).
  // `keep_gpu_objects`: parked, never freed (a capture may be open or
  // beginning, or the process is exiting and the context may be gone).
  void decline_batch(std::vector<std::unique_ptr<ActiveRange>>& batch, DeclineReason reason, const std::string& detail,
                     bool keep_gpu_objects = false);
  // Replays `batch` (its members not declined) and fills their records.
  void replay_batch(std::vector<std::unique_ptr<ActiveRange>>& batch, const char* why);
  // replay_batch's window in `layout`: each member's window parts (into `parts`, which
  // the caller keeps until the batch's records are filled) with its own
  // counter ranges (first_row: each member's first row in the values), the
  // counters set to CUPTI's automatic ranges or to user ranges and sized to
  // them, the passes, the
  // values decoded into `values`; the configured counter mode is set again. Returns the
  // window's failure (a member's parts, the counters, a pass); a values
  // failure is in `values`. (defer() and can_wait() keep a batch within one
  // counter data image.)
  Status run_batch_window(std::vector<std::unique_ptr<ActiveRange>>& batch, const CounterLayout& layout,
                          std::vector<std::unique_ptr<WindowMember>>& parts, std::vector<std::size_t>& first_row,
                          StatusOr<std::vector<std::vector<double>>>& values);
  // run_batch_window in `layout`; when that is CUPTI's automatic ranges and
  // its window or its values failed (rows that did not add up, or a CUPTI
  // error over the tool's own kernels), once more with a user range per kernel (or per range), from the
  // records in `before` (as pass 0 left them, in batch order), noting the
  // first failure. Not again when a member's module was unloaded since its
  // range ended. Returns the last window's failure; a values failure is in
  // `values`.
  Status run_batch_windows(std::vector<std::unique_ptr<ActiveRange>>& batch,
                           const std::vector<report::RangeRecord>& before, const CounterLayout& layout,
                           std::vector<std::unique_ptr<WindowMember>>& parts, std::vector<std::size_t>& first_row,
                           StatusOr<std::vector<std::vector<double>>>& values);
  // Each member's first row in the `returned` rows a batch counted in
  // CUPTI's automatic ranges decoded, past the rows of the tool's kernels
  // that ran before it (`tool_kernels`, the window's count; nullopt when its
  // passes counted differently). Errors: counter_ranges_mismatch (naming
  // `dropped`, the decode's) when the rows do not add up.
  StatusOr<std::vector<std::size_t>> automatic_first_rows(const std::vector<std::unique_ptr<ActiveRange>>& batch,
                                                          const std::optional<std::vector<std::size_t>>& tool_kernels,
                                                          std::size_t returned, std::size_t dropped) const;
  // After replay_batch's window and values succeeded: each member's kernel
  // records from its rows of `values`, its counter ranges, restore (from its
  // window member in `parts`) and notes, and its reserved record filled (the
  // window's time, since `start`, shared out).
  void record_batch(std::vector<std::unique_ptr<ActiveRange>>& batch,
                    const std::vector<std::unique_ptr<WindowMember>>& parts,
                    const StatusOr<std::vector<std::vector<double>>>& values, const std::vector<std::size_t>& first_row,
                    std::chrono::steady_clock::time_point start, const char* why);
  // After `batch`'s window returned fewer counter ranges than it opened
  // (`because`, the note's reason, with counter_ranges_mismatch's detail):
  // replays each member in a window of its own, with its counters sized to
  // its kernels as an immediate range's, and fills its reserved record
  // (values, or the decline of its own window), starting again from `before`
  // (each member's record as pass 0 left it, in batch order; moved from) and
  // noting the batch's `batch_ms`. Call with the inventory's lock held.
  void replay_alone(std::vector<std::unique_ptr<ActiveRange>>& batch, std::vector<report::RangeRecord>& before,
                    const std::string& because, double batch_ms, const char* why);
  // `range` in a window of its own, as an immediate range: its counters
  // sized to its kernels in its own layout, the passes, the evaluation; the
  // configured counter mode is set again. nullopt when it has its values,
  // or its decline. Call with the inventory's lock held.
  std::optional<Decline> replay_on_its_own(ActiveRange& range);
  // Whether a batch of `range` alone replays in a window of its own: its
  // own layout is CUPTI's automatic per-kernel ranges, whose counted time is
  // each kernel's (a user range pushed from the host around each kernel
  // counts the host's launch path too), with the lead-in flush, whose extra
  // counter range shows a kernel the automatic ranges missed, and its
  // counter ranges fit one counter data image. Alone, its restore runs
  // before the pass starts: one kernel of the tool's in each pass (the
  // lead-in) where the batch's window would count its restore and flush.
  // (Ranges that end in lockstep with other ranks are never deferred.)
  bool replays_on_its_own(const ActiveRange& range) const;
  // A batch of one (replays_on_its_own): replayed on its own, its reserved
  // record filled, noted with `why`. False when CUPTI's automatic ranges
  // missed a kernel: its record is `before` again (as pass 0 left it), for
  // the batch's window to replay it next with a user range per kernel.
  bool replay_single(ActiveRange& range, const report::RangeRecord& before, const char* why);

  Parts parts_;
  EntrySnapshots& snapshots_;
  RangeCounters& counting_;
  const std::unique_ptr<CounterSession>& counters_;
  const CUstream& tool_stream_;
  const CUcontext& counters_context_;
  std::vector<std::unique_ptr<ActiveRange>>& parked_;
  BatchServices& controller_;
  // Deferred ranges, in the order they ended, and whether there are any.
  std::vector<std::unique_ptr<ActiveRange>> pending_;
  std::atomic<bool> has_pending_{false};
  // flush_before_capture is running: this thread's own capture begin is in
  // the captures' beginning() count.
  bool capture_begin_here_ = false;
  // A batch whose members restored by the copy engines got more counter
  // ranges from CUPTI's automatic ranges than it had kernels (the copies were
  // counted), or its window failed: later batches restore as --restore says
  // (under the tool's lock, as every member here).
  bool copy_engine_restores_counted_ = false;
  // Counter ranges the last batch window in automatic ranges got beyond its
  // kernels and the tool's own (0 when they matched or were fewer).
  std::size_t automatic_rows_over_ = 0;
};

}  // namespace rangereplay::tool
