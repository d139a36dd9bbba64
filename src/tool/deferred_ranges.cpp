// DeferredRanges (deferred_ranges.h): the batch queue of deferred ranges,
// its flush points and the batch's replay window.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/base/elapsed.h"
#include "core/base/environment.h"
#include "cuda/cu_status.h"
#include "cuda/kernels/launch_count.h"
#include "tool/controller_helpers.h"
#include "tool/deferred_ranges.h"
#include "tool/logic/counter_layout.h"
#include "tool/logic/replay_window.h"
#include "tool/tool_thread.h"

namespace rangereplay::tool {

namespace {
using Clock = std::chrono::steady_clock;

// The batch layout with a user range pushed around each kernel (per-kernel
// values), or one around each range: after CUPTI's automatic ranges missed
// a kernel.
CounterLayout user_layout(const ProfileConfig& config) {
  return batched_layout(config.range_metrics == RangeMetrics::kPerKernel, /*user_kernel_ranges=*/true,
                        /*cache_flush=*/true);
}

// Each member's kernels, in batch order.
std::vector<std::size_t> member_kernels(const std::vector<std::unique_ptr<ActiveRange>>& batch) {
  std::vector<std::size_t> kernels;
  kernels.reserve(batch.size());
  for (const auto& range : batch) kernels.push_back(range->program.kernels().size());
  return kernels;
}

// How many more counter ranges CUPTI opened (`opened`: returned and dropped)
// in a batch's pass of automatic ranges than its kernels and the tool's own
// before them (`tool_kernels`, per member); 0 when not more, or when the
// passes disagreed on the tool's kernels.
std::size_t rows_past_the_kernels(const std::vector<std::unique_ptr<ActiveRange>>& batch,
                                  const std::optional<std::vector<std::size_t>>& tool_kernels, std::size_t opened) {
  if (!tool_kernels) return 0;
  const std::vector<std::size_t> kernels = member_kernels(batch);
  const std::size_t expected = std::accumulate(tool_kernels->begin(), tool_kernels->end(), std::size_t{0}) +
                               std::accumulate(kernels.begin(), kernels.end(), std::size_t{0});
  return opened > expected ? opened - expected : 0;
}
}  // namespace

bool DeferredRanges::can_wait(const ActiveRange& range) const {
  // The fewest counter ranges a batch can count it in: a user range per
  // kernel, or one.
  return range.program.graph_execs().empty() && range.host_captured_bytes == 0 && range.kept_allocation_bytes == 0 &&
         !range.write_set && counters_ &&
         tool::batch_counter_ranges(user_layout(parts_.config), range.program.kernels().size()) <=
             counters_->backend().most_ranges();
}

std::size_t DeferredRanges::batch_counter_ranges(const ActiveRange& range) const {
  return tool::batch_counter_ranges(counting_.batch_layout(), range.program.kernels().size());
}

std::size_t DeferredRanges::batch_counter_ranges(const std::vector<std::unique_ptr<ActiveRange>>& ranges) const {
  std::size_t sum = 0;
  for (const auto& range : ranges) sum += batch_counter_ranges(*range);
  return sum;
}

bool DeferredRanges::any_unloaded(const std::vector<std::unique_ptr<ActiveRange>>& batch) const {
  return std::any_of(batch.begin(), batch.end(),
                     [this](const auto& member) { return controller_.unloaded_since_end(*member); });
}

void DeferredRanges::defer(std::unique_ptr<ActiveRange> range) {
  if (!pending_.empty() &&
      batch_counter_ranges(*range) + batch_counter_ranges(pending_) > counters_->backend().most_ranges())
    flush_pending("the counter image would not hold one more range");
  debug("range '%s' deferred (%ld pending)", range->name, static_cast<long>(pending_.size() + 1));
  // Its place in the report, in the order ranges end; filled by its batch.
  range->record_index = parts_.report.ranges.size();
  parts_.report.ranges.push_back(range->record);
  pending_.push_back(std::move(range));
  has_pending_.store(true, std::memory_order_seq_cst);
  if (pending_.size() >= *batch_size()) flush_pending("as many ranges as --batch-ranges were deferred");
}

void DeferredRanges::before_free(const char* call) {
  if (pending_.empty()) return;
  const std::string why = std::string(call) + " while ranges were deferred";
  flush_pending(why.c_str());
}

void DeferredRanges::flush_pending(const char* why) {
  if (pending_.empty()) return;
  std::vector<std::unique_ptr<ActiveRange>> batch = std::move(pending_);
  pending_.clear();
  InToolScope guard;
  // However the flush ends (an exception included), the flag is cleared.
  struct ClearedAtEnd {
    std::atomic<bool>& flag;
    ~ClearedAtEnd() { flag.store(false, std::memory_order_seq_cst); }
  } cleared_at_end{has_pending_};
  // has_pending_ stays set until the replays are done: a capture begin on
  // another thread either is counted here, or sees the flag and waits for
  // the tool's lock before its capture exists (capture_tracking.cpp).
  const std::size_t own_begin = capture_begin_here_ ? 1 : 0;
  // beginning() first: a capture registers itself before it stops counting
  // as beginning, so one that ends its begin between the two reads is seen.
  const bool beginning = parts_.captures.beginning() > own_begin;
  if (beginning || parts_.captures.open_captures() > 0) {
    decline_batch(batch, DeclineReason::kStreamCaptureActive,
                  parts_.captures.describe_open_or_beginning() + " when the range's deferred replay was due (" + why +
                      "); the tool made no call a capture forbids. Profile with --batch-ranges off",
                  /*keep_gpu_objects=*/true);
  } else {
    // The flush runs on whichever thread caused it: the profiled context is
    // made current for it.
    if (counters_context_ == nullptr || cuCtxPushCurrent(counters_context_) != CUDA_SUCCESS) {
      decline_batch(batch, DeclineReason::kReplayFailed,
                    std::string("the profiled context could not be made current for the deferred replay (") + why + ")",
                    /*keep_gpu_objects=*/true);
    } else {
      // Popped however the replay ends (an exception included).
      struct PoppedAtEnd {
        ~PoppedAtEnd() {
          CUcontext popped = nullptr;
          cuCtxPopCurrent(&popped);
        }
      } popped_at_end;
      replay_batch(batch, why);
      batch.clear();  // their GPU objects are freed with the context current
      // Idle batch storages give their retained arenas back but one.
      snapshots_.release_idle_batch_storage();
    }
  }
}

void DeferredRanges::before_untracked_write(const char* call) {
  const std::string why = std::string(call) + " wrote device memory no deferred range's snapshot holds";
  flush_pending(why.c_str());
}

void DeferredRanges::flush_before_capture(const char* call) {
  capture_begin_here_ = true;
  const std::string why = std::string(call) + " began a stream capture";
  flush_pending(why.c_str());
  capture_begin_here_ = false;
}

void DeferredRanges::decline_at_exit() {
  if (pending_.empty()) return;
  // Nothing is replayed at exit: the runtime may have unloaded the
  // application's modules by now (an exit-time replay crashed programs
  // that exit without freeing their memory), and the context may be gone.
  // The teardown calls that come before (kTeardown rows) replay deferred
  // ranges while their kernels exist; what is left is declined.
  std::vector<std::unique_ptr<ActiveRange>> batch = std::move(pending_);
  pending_.clear();
  has_pending_.store(false, std::memory_order_seq_cst);
  decline_batch(batch, DeclineReason::kReplayFailed,
                "the process exited before the range's deferred replay (--batch-ranges), and the tool replays "
                "nothing at exit; make --batch-ranges divide the number of ranges, free the application's memory "
                "before it exits, or profile with --batch-ranges off",
                /*keep_gpu_objects=*/true);
}

void DeferredRanges::decline_batch(std::vector<std::unique_ptr<ActiveRange>>& batch, DeclineReason reason,
                                   const std::string& detail, bool keep_gpu_objects) {
  for (auto& range : batch) {
    decline(*range, reason, detail);
    finish_record(parts_.config, *range, 0.0);
    parts_.report.ranges[range->record_index] = std::move(range->record);
    if (keep_gpu_objects && (range->snapshot || range->restore_plan)) parked_.push_back(std::move(range));
  }
  batch.clear();
}

void DeferredRanges::replay_batch(std::vector<std::unique_ptr<ActiveRange>>& batch, const char* why) {
  parts_.mutex.set_stage("replaying deferred ranges");
  const auto start = Clock::now();
  debug("replaying %s deferred ranges", std::to_string(batch.size()), 0);
  // Other threads' frees and allocations wait until the batch ends.
  auto inventory_lock = parts_.inventory.lock();
  Status s = cu_status(cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__);
  // A range whose module another thread unloaded since it ended cannot be
  // launched again; the rest are replayed.
  std::vector<std::unique_ptr<ActiveRange>> unloaded;
  for (auto& range : batch) {
    if (range && controller_.unloaded_since_end(*range)) unloaded.push_back(std::move(range));
  }
  std::erase(batch, nullptr);
  decline_batch(unloaded, DeclineReason::kModuleUnloadInRange,
                "a module was unloaded by another thread before the range's deferred replay; its kernels cannot be "
                "launched again");
  if (batch.empty()) return;
  if (!s.ok()) {
    decline_batch(batch, DeclineReason::kReplayFailed, s.message());
    return;
  }
  // The records as pass 0 left them: a member replayed on its own after the
  // batch starts again from them (replay_alone), and the batch after a range
  // replayed alone whose automatic ranges missed a kernel.
  std::vector<report::RangeRecord> before;
  before.reserve(batch.size());
  for (const auto& range : batch) before.push_back(range->record);
  const bool tried_alone = batch.size() == 1 && replays_on_its_own(*batch.front());
  if (tried_alone && replay_single(*batch.front(), before.front(), why)) return;
  std::vector<std::unique_ptr<WindowMember>> parts;
  std::vector<std::size_t> first_row;
  StatusOr<std::vector<std::vector<double>>> values = internal_error("not evaluated");
  s = run_batch_windows(batch, before, batch_window_layout(batch, tried_alone), parts, first_row, values);
  if (!s.ok()) {
    const bool module_gone = any_unloaded(batch);
    decline_batch(batch, replay_window_decline(s, [module_gone] { return module_gone; }).reason, s.message());
    return;
  }
  if (!values.ok() && values.status().decline_reason() == DeclineReason::kCounterRangesMismatch) {
    if (tried_alone) {
      // Its automatic ranges missed a kernel before: a window of its own again would too.
      decline_batch(batch, DeclineReason::kCounterRangesMismatch, values.status().message());
      return;
    }
    // Each member still holds its entry snapshot, and the batch handed its
    // exit state back: it can be replayed on its own, as an immediate range.
    replay_alone(batch, before, "its counter ranges did not match: " + values.status().message(), ms_since(start), why);
    return;
  }
  if (!values.ok()) {
    decline_batch(batch, decline_of(values.status(), DeclineReason::kCountersUnavailable).reason,
                  values.status().message());
    return;
  }
  record_batch(batch, parts, values, first_row, start, why);
}

Status DeferredRanges::run_batch_windows(std::vector<std::unique_ptr<ActiveRange>>& batch,
                                         const std::vector<report::RangeRecord>& before, const CounterLayout& layout,
                                         std::vector<std::unique_ptr<WindowMember>>& parts,
                                         std::vector<std::size_t>& first_row,
                                         StatusOr<std::vector<std::vector<double>>>& values) {
  Status s = run_batch_window(batch, layout, parts, first_row, values);
  if (!std::holds_alternative<AutoKernelRanges>(layout) || (s.ok() && values.ok())) return s;
  // A kernel module another thread unloaded fails every window alike.
  if (any_unloaded(batch)) return s;
  // As at a range's own end: the batch is replayed once more with a user
  // range around each kernel (the tool's own kernels then run outside every
  // counter range), from the records as pass 0 left them. Either window hands
  // every member's exit state back, whatever fails; each still holds its
  // entry snapshot.
  const std::string first = s.ok() ? values.status().message() : s.message();
  const bool by_copy_engines =
      std::any_of(parts.begin(), parts.end(), [](const auto& part) { return part->entry_by_copy_engines; });
  if (by_copy_engines && (!s.ok() || automatic_rows_over_ > 0) && !copy_engine_restores_counted_) {
    // More counter ranges than kernels (their copies were counted), or a
    // window that failed outright: no later batch pays its window twice. One
    // range fewer than the kernels is CUPTI's own miss, which copies do not
    // explain: the restores stay.
    copy_engine_restores_counted_ = true;
    debug("copy-engine entry restores turned off (%s); later batches restore as --restore says", first);
  }
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i]->record = before[i];
  parts.clear();
  first_row.clear();
  values = internal_error("not evaluated");
  s = run_batch_window(batch, user_layout(parts_.config), parts, first_row, values);
  for (auto& range : batch)
    range->record.notes.push_back(
        "replayed a second time with a counter range pushed around each kernel, after the first replay, in CUPTI's "
        "automatic per-kernel ranges, failed: " +
        first);
  return s;
}

CounterLayout DeferredRanges::batch_window_layout(const std::vector<std::unique_ptr<ActiveRange>>& batch,
                                                  bool tried_alone) const {
  // After CUPTI's automatic ranges missed a kernel of the range alone, the
  // batch pushes a user range around each kernel; so it does when the
  // automatic ranges' image, with the tool's kernels, would not hold it.
  if (tried_alone || batch_counter_ranges(batch) > counters_->backend().most_ranges())
    return user_layout(parts_.config);
  return counting_.batch_layout();
}

Status DeferredRanges::run_batch_window(std::vector<std::unique_ptr<ActiveRange>>& batch, const CounterLayout& layout,
                                        std::vector<std::unique_ptr<WindowMember>>& parts,
                                        std::vector<std::size_t>& first_row,
                                        StatusOr<std::vector<std::vector<double>>>& values) {
  Status s = ok_status();
  const bool automatic = std::holds_alternative<AutoKernelRanges>(layout);
  // Each member's parts, as the immediate window's (replay_window()), with
  // its own counter ranges: CUPTI's automatic range per kernel, one pushed
  // per kernel by its re-submission, or one around its replay.
  std::vector<ReplayMember> members;
  std::size_t counter_ranges = 0;
  for (std::size_t i = 0; i < batch.size() && s.ok(); ++i) {
    ActiveRange& range = *batch[i];
    range.counters = layout;
    const std::string prefix = "b" + std::to_string(i);
    // In automatic ranges each of the tool's launches is a counter range of
    // its own, counted inside the shared pass: the entry state is restored by
    // the copy engines, or where it is too large, a differential restore
    // digests and copies in one launch.
    StatusOr<std::unique_ptr<WindowMember>> member =
        window_member(range, snapshots_.range_globals(range), tool_stream_,
                      WindowMemberOptions{false, &counters_->backend(), prefix,
                                          automatic ? RestoreLaunches::kOne : RestoreLaunches::kPlanVariant,
                                          automatic && batch.size() > 1 && !copy_engine_restores_counted_});
    if (!member.ok()) {
      s = member.status();
      break;
    }
    parts.push_back(std::move(member).value());
    members.push_back(ReplayMember{parts.back()->restore.get(), parts.back()->resubmission.get(), &range.record,
                                   per_kernel_values(range.counters) ? "" : prefix, nullptr,
                                   [this, &range] { return controller_.unloaded_since_end(range); }, std::nullopt});
    first_row.push_back(counter_ranges);
    counter_ranges += tool::batch_counter_ranges(layout, range.program.kernels().size());
  }
  debug("batch members prepared: %s%ld", "", static_cast<long>(members.size()));
  if (s.ok()) s = counters_->backend().set_mode(automatic ? CounterMode::kPerKernel : CounterMode::kUserRanges);
  if (s.ok()) s = counters_->backend().resize(counter_ranges);
  if (s.ok()) s = counters_->backend().begin_range();
  debug("batch counter data sized and configured: %s%ld counter ranges", "", static_cast<long>(counter_ranges));
  std::optional<std::vector<std::size_t>> tool_kernels;
  if (s.ok()) {
    EventReplayStream stream(tool_stream_);
    ReplayWindowParts window_parts{*counters_, stream, "batch", {}, counting_.flush().enqueue_hook()};
    if (automatic) window_parts.tool_kernels = &kernels::tool_kernel_launches;
    ReplayWindow window(std::move(window_parts), counting_.pass_count());
    s = window.run(members);
    if (debug_enabled()) debug("%s", describe_window_steps(window.steps(), members.size()));
    tool_kernels = window.tool_kernels_before();
  }
  automatic_rows_over_ = 0;
  if (s.ok()) {
    auto decode_start = Clock::now();
    StatusOr<std::size_t> dropped = counters_->backend().decode();
    if (dropped.ok()) debug("batch counter data decoded%s", "", 0);
    // In automatic ranges the rows of the tool's own kernels (its flushes,
    // and restores that launch a kernel) are not evaluated: no member reads
    // them. Empty: every row.
    const std::vector<bool> wanted =
        automatic && tool_kernels ? batch_rows_wanted(*tool_kernels, member_kernels(batch)) : std::vector<bool>{};
    values = dropped.ok() ? counters_->backend().evaluate_rows(wanted) : dropped.status();
    if (values.ok()) debug("batch counter data evaluated: %s%ld rows", "", static_cast<long>(values->size()));
    if (values.ok() && automatic) {
      StatusOr<std::vector<std::size_t>> rows = automatic_first_rows(batch, tool_kernels, values->size(), *dropped);
      if (rows.ok()) {
        first_row = std::move(rows).value();
      } else {
        automatic_rows_over_ = rows_past_the_kernels(batch, tool_kernels, values->size() + *dropped);
        values = rows.status();
      }
    } else if (values.ok() && values->size() < counter_ranges)
      values =
          counter_ranges_mismatch(values->size(), "the " + std::to_string(counter_ranges) + " of the batch", *dropped);
    const double decode_ms = ms_since(decode_start) / static_cast<double>(batch.size());
    for (auto& range : batch) range->record.timings.decode_ms += decode_ms;
  }
  counters_->backend().set_mode(counters_->configured_mode()).ignore();
  return s;
}

StatusOr<std::vector<std::size_t>> DeferredRanges::automatic_first_rows(
    const std::vector<std::unique_ptr<ActiveRange>>& batch, const std::optional<std::vector<std::size_t>>& tool_kernels,
    std::size_t returned, std::size_t dropped) const {
  if (!tool_kernels)
    return counter_ranges_mismatch(returned,
                                   "a batch whose passes launched different numbers of the tool's own kernels (its "
                                   "restores and flushes) before its ranges",
                                   dropped);
  return batch_first_rows(*tool_kernels, member_kernels(batch), returned, dropped,
                          range_names_or_none(counters_->backend()));
}

void DeferredRanges::record_batch(std::vector<std::unique_ptr<ActiveRange>>& batch,
                                  const std::vector<std::unique_ptr<WindowMember>>& parts,
                                  const StatusOr<std::vector<std::vector<double>>>& values,
                                  const std::vector<std::size_t>& first_row,
                                  std::chrono::steady_clock::time_point start, const char* why) {
  const double window_ms = ms_since(start) / static_cast<double>(batch.size());
  const std::uint32_t passes = batch.front()->record.passes;
  if (!parts_.config.quiet)
    std::fprintf(stderr, "rangereplay: %zu deferred ranges replayed together in %u passes (%s)\n", batch.size(),
                 passes - 1, why);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    ActiveRange& range = *batch[i];
    const auto rows = values->begin() + static_cast<std::ptrdiff_t>(first_row[i]);
    const std::size_t own_rows = counter_ranges(range.counters, range.program.kernels().size());
    counting_.record_kernels(range,
                             std::vector<std::vector<double>>(rows, rows + static_cast<std::ptrdiff_t>(own_rows)));
    range.record.counter_ranges = counter_ranges_name(range.counters);
    range.record.notes.push_back("replayed with " + std::to_string(batch.size() - 1) +
                                 " other deferred ranges, sharing " + std::to_string(passes - 1) +
                                 " CUPTI passes (replayed when: " + why + "); pass 0 ran without counters");
    if (std::holds_alternative<AutoKernelRanges>(range.counters))
      range.record.notes.push_back(
          "each kernel was counted in CUPTI's own per-kernel range; the counter ranges of the tool's kernels "
          "between the batch's ranges (their L2 flushes, and restores that launch a kernel) are left out");
    if (i < parts.size() && parts[i]->entry_by_copy_engines) {
      range.record.restore = std::string(name_of(kRestoreModeNames, RestoreMode::kFull));
      range.record.notes.push_back(
          "each replay restored the whole entry state by the copy engines: in a batch's pass of CUPTI's automatic "
          "per-kernel ranges every kernel launch is a counter range, a copy is none");
    }
    if (std::holds_alternative<UserKernelRanges>(range.counters) && !environment::user_kernel_ranges())
      range.record.notes.push_back(
          "each kernel was counted in a counter range pushed from the host around its launch, whose time includes "
          "the launch path (microseconds a kernel): durations run long and throughputs short by as much; "
          "--batch-ranges off counts each kernel in CUPTI's own per-kernel range");
    finish_record(parts_.config, range, window_ms);
    parts_.report.ranges[range.record_index] = std::move(range.record);
  }
}

void DeferredRanges::replay_alone(std::vector<std::unique_ptr<ActiveRange>>& batch,
                                  std::vector<report::RangeRecord>& before, const std::string& because, double batch_ms,
                                  const char* why) {
  const std::size_t others = batch.size() - 1;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    ActiveRange& range = *batch[i];
    const auto start = Clock::now();
    // The batch's passes, times and notes are not this range's.
    range.record = std::move(before[i]);
    std::optional<Decline> failed = replay_on_its_own(range);
    if (failed) {
      decline(range, failed->reason, std::move(failed->detail));
    } else {
      range.record.counter_ranges = counter_ranges_name(range.counters);
      range.record.notes.push_back("replayed on its own, not in its batch with " + std::to_string(others) +
                                   " other deferred ranges (replayed when: " + why + "; " +
                                   std::to_string(static_cast<long long>(batch_ms)) +
                                   " ms, not in this range's times), because " + because);
    }
    finish_record(parts_.config, range, ms_since(start));
    parts_.report.ranges[range.record_index] = std::move(range.record);
  }
}

std::optional<Decline> DeferredRanges::replay_on_its_own(ActiveRange& range) {
  Status s = counting_.size_counters_to_pass0(range, range.program.kernels().size());
  std::optional<Decline> failed =
      s.ok() ? controller_.replay_window_locked(range) : Decline{decline_of(s, DeclineReason::kCountersUnavailable)};
  if (!failed) {
    if (Status e = counting_.evaluate(range); !e.ok()) failed = decline_of(e, DeclineReason::kCountersUnavailable);
  }
  counting_.restore_configured_mode(range);
  return failed;
}

bool DeferredRanges::replays_on_its_own(const ActiveRange& range) const {
  const CounterLayout own = counting_.own_layout(range);
  // Without the lead-in flush a missed kernel would shift the values
  // unseen; its counter range may not fit where the batch's would.
  return has_lead_in_flush(own) && counters_ &&
         counter_ranges(own, range.program.kernels().size()) <= counters_->backend().most_ranges();
}

bool DeferredRanges::replay_single(ActiveRange& range, const report::RangeRecord& before, const char* why) {
  const auto start = Clock::now();
  std::optional<Decline> failed = replay_on_its_own(range);
  if (failed && failed->reason == DeclineReason::kCounterRangesMismatch) {
    range.record = before;
    return false;
  }
  if (failed) {
    decline(range, failed->reason, std::move(failed->detail));
  } else {
    range.record.counter_ranges = counter_ranges_name(range.counters);
    range.record.notes.push_back(std::string("replayed alone in its batch (replayed when: ") + why +
                                 "), with a counter range per kernel from CUPTI; pass 0 ran without counters");
  }
  finish_record(parts_.config, range, ms_since(start));
  parts_.report.ranges[range.record_index] = std::move(range.record);
  return true;
}

}  // namespace rangereplay::tool
