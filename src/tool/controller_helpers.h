// Helpers the range controller's parts share (range_controller.h,
// range_end.h, entry_snapshots.h, deferred_ranges.h): the RANGEREPLAY_DEBUG
// trace of the range lifecycle, a range's decline, its values dropped after
// a free, its record finished, its progress line, and what one range brings to a replay window.
//
// Thread-safety: called with the tool's lock held, as the parts are; debug()
// from any thread (the time of its previous line is an atomic shared by
// every caller).
#pragma once

#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "core/base/ascii.h"
#include "core/base/decline.h"
#include "core/base/elapsed.h"
#include "core/base/status.h"
#include "core/config/profile_config.h"
#include "cuda/replayer.h"
#include "tool/active_range.h"
#include "tool/logic/counter_session.h"
#include "tool/logic/range_report.h"
#include "tool/logic/replay_window.h"
#include "tool/restore_strategy.h"
#include "tool/tool_thread.h"

namespace rangereplay::tool {

// RANGEREPLAY_DEBUG=1 traces the range lifecycle on stderr, each line with
// the milliseconds since the previous one (where the time goes). `fmt` takes
// `a` (escaped: it may be a range name) as %s and `b` as %ld.
inline void debug(const char* fmt, const std::string& a = "", long b = 0) {
  using Clock = std::chrono::steady_clock;
  static const bool on = debug_enabled();
  if (!on) return;
  // Tool threads trace too (the counter set-up's): the previous line's time
  // is shared through an atomic.
  static std::atomic<Clock::rep> last{Clock::now().time_since_epoch().count()};
  const Clock::rep now = Clock::now().time_since_epoch().count();
  const double since = std::chrono::duration<double, std::milli>(Clock::duration(now - last.exchange(now))).count();
  // One write per line: the lines of two threads do not interleave.
  flockfile(stderr);
  std::fprintf(stderr, "rangereplay[debug] +%8.2f ms: ", since);
  std::fprintf(stderr, fmt, escape_controls(a).c_str(), b);  // `a` may be a range name
  std::fprintf(stderr, "\n");
  funlockfile(stderr);
}

// Declines `range` (the first decline reason wins).
inline void decline(ActiveRange& range, DeclineReason reason, std::string detail) {
  range.eligibility.decline(reason, std::move(detail));
}

// A range replayed before a free that is declined afterwards: its record
// goes back to pass 0's (the replay's values, notes, passes and times
// describe the range up to the free only). Nothing for any other range.
inline void drop_values_after_free(ActiveRange& range) {
  auto* early = std::get_if<ReplayedBeforeFree>(&range.state);
  if (early == nullptr) return;
  range.record = std::move(early->before);
  range.record.passes = 1;
}

// Finishes `range`'s record (RangeReporter::finish_record, quiet as
// `config`: its decline, notes and times, `window_ms` its window's time).
inline void finish_record(const ProfileConfig& config, ActiveRange& range, double window_ms) {
  RangeReporter(config.quiet)
      .finish_record(range.record, range.eligibility, range.program.skipped_device_to_host, range.modules_loaded,
                     window_ms);
}

// The progress line of `range`'s pass `pass` (from 1) of a list of
// `pass_count` counter passes, unless `config.quiet`.
inline void progress(const ProfileConfig& config, std::uint32_t pass_count, const ActiveRange& range,
                     std::size_t pass) {
  if (config.quiet) return;
  std::string total = config.range_count ? "/" + std::to_string(config.range_count) : "";
  // A range whose pass 0 only records runs one pass more than CUPTI needs.
  const auto* recording = std::get_if<Recording>(&range.state);
  const std::uint32_t passes = pass_count + (recording != nullptr && recording->counting_pass0 ? 0 : 1);
  std::fprintf(stderr, "rangereplay: range %u%s '%s': pass %zu/%u\n", range.index + 1, total.c_str(),
               escape_controls(range.name).c_str(), pass, passes);
}

// What one range brings to a replay window, owned together (the
// re-submission refers to the replayer, the verifier to the restore): the
// replayer of its recorded program, its restore strategy on the tool's
// stream (differential through its digest plan, else full) with --verify's
// observer, and the per-kernel user ranges its re-submission pushes.
struct WindowMember {
  std::optional<Replayer> replayer;
  std::unique_ptr<RestoreStrategy> restore;
  std::unique_ptr<ReplayObserver> verifier;
  std::unique_ptr<KernelCounterRanges> kernel_ranges;
  std::unique_ptr<ReplayerResubmission> resubmission;
  // Its entry state is restored whole by the copy engines (FullRestore with
  // EntryCopy::kCopyEngines), whatever --restore says.
  bool entry_by_copy_engines = false;
};

// How a window member is built (window_member()).
struct WindowMemberOptions {
  // With its --verify observer (and the differential restore's verify digests).
  bool verify = false;
  // The backend through which, when the range's counters are
  // UserKernelRanges, the re-submission pushes a user range named
  // `kernel_range_prefix`#i around each kernel i.
  CounterBackend* counters = nullptr;
  std::string kernel_range_prefix;
  // The launches of each differential entry restore: RestoreLaunches::kOne
  // when the restore runs inside a pass of CUPTI's automatic per-kernel
  // ranges (a batch of several), where every launch is a counter range.
  RestoreLaunches restore_launches = RestoreLaunches::kPlanVariant;
  // Whether an entry restore may go by the copy engines: the restores run
  // inside a pass of CUPTI's automatic per-kernel ranges (a batch of
  // several), where a restore of the whole entry state by the copy engines,
  // which is no counter range, takes the place of one that launches a kernel
  // (entry_restore_by_copy_engines(), unless
  // RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE=0), and no earlier batch found
  // such restores counted.
  bool copy_engine_entry_restores = false;
};

// `range`'s window member (defined in range_controller.cpp); with
// `copy_engine_entry_restores`, it may build the snapshot's copy-engine plan for
// the entry state (entry_by_copy_engines). Errors: the replayer's (a
// recorded program that cannot be replayed), internal_error without an entry
// snapshot.
StatusOr<std::unique_ptr<WindowMember>> window_member(ActiveRange& range, RangeGlobals globals, CUstream stream,
                                                      const WindowMemberOptions& options);

}  // namespace rangereplay::tool
