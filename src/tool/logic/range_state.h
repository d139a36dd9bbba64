// Range states: what the tool does with the open range, from its begin to
// its end, as one variant with the data each state needs.
//
//   Untouched    declined before its pass 0 began (admission or the pass 0
//                set-up failed): it runs as the application's own; nothing
//                is recorded or counted
//   Recording    pass 0 runs under the tool: its work is recorded, counted
//                in the application's own execution or not, then replayed
//                (at its end, in a batch of deferred ranges, or counted in
//                the standing pass: CounterLayout)
//   Collecting   application range replay (ProfileConfig::app_range): this
//                run counts the range in the application's own execution,
//                neither recorded nor replayed
//   LeftAlone    application range replay: another run collects the range;
//                it gets no record in this one
//   ReplayedBeforeFree
//                a recording range that freed memory: it was replayed at the
//                free's entry, while the memory existed, and its record waits
//                for the range's end; work submitted after the free inside
//                the range declines it
//
// The transitions that decide a state or a path are the pure functions
// below, tested on the CPU (tests/unit/tool/range_state_test.cpp); the
// RangeController carries out the GPU work of each. Thread-safety: none
// needed (plain values).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "report/report_model.h"

namespace rangereplay::tool {

struct Untouched {};

struct Recording {
  // Pass 0 is a counter pass. A range whose pass 0 only records has its
  // counter image sized to the kernels pass 0 recorded, and every counter
  // pass is a replay.
  bool counting_pass0 = false;
  // Its replay may be deferred and batched with other ranges'
  // (--batch-ranges): its pass 0 only records and its snapshot lives in a
  // storage of its own.
  bool deferrable = false;
  // Pass 0 was counted until a stream capture began in it (its counters
  // were stopped then; every counter pass is a replay).
  bool pass0_stopped_at_capture = false;
  // Pass 0 was counted until device memory was allocated in it (its
  // counters were stopped before the tool copied that memory's bytes).
  bool pass0_stopped_at_allocation = false;
  // Whether pass 0 takes an entry snapshot (multi-pass lists, and ranges of
  // a name in which a capture began).
  bool entry_snapshot = false;
};

struct Collecting {
  // The run's counter pass of the range began (false: declined at its begin).
  bool started = false;
  // Its launches in call order, a graph launch as one entry of its own: the
  // sequence each run's range is compared by (report::merge_app_runs).
  std::vector<report::KernelRecord> kernels;
};

struct LeftAlone {};

struct ReplayedBeforeFree {
  // The call whose entry replayed the range (cuMemFree_v2, ...).
  std::string call;
  // The record as pass 0 left it (a decline afterwards goes back to it).
  report::RangeRecord before;
  // The replay's time from the drain to the values (milliseconds).
  double window_ms = 0;
};

using RangeState = std::variant<Untouched, Recording, Collecting, LeftAlone, ReplayedBeforeFree>;

/// Whether the tool runs the range's pass 0 (Recording) or counts it in
/// this run (Collecting that started).
bool profiled(const RangeState& state);

/// What a call that frees memory inside the range does to it, at the call's
/// entry, before any GPU call.
enum class FreeInRange {
  kReplayFirst,  // replayed now, while the memory exists (ReplayedBeforeFree)
  kDecline,      // declined free_in_range, as the recorder does
  kNothing,      // nothing more: already replayed before an earlier free, or declined
};
/// `entry_snapshot`: the range holds an entry snapshot (multi-pass, not in
/// the standing pass); `kernels`: kernels recorded so far; `open_captures`:
/// captures open in the process; `coordinated`: ranges end in lockstep with
/// other ranks (which would not replay at this free).
FreeInRange free_in_range(const RangeState& state, bool declined, bool entry_snapshot, std::size_t kernels,
                          std::size_t open_captures, bool coordinated);

/// What pass 0 of an admitted range in a plain run is (RangeController::
/// prepare_pass0). `pass_count`: passes the metric list needs.
/// `batching`: deferred replays are on (--batch-ranges). `capture_expected`:
/// a capture began in an earlier range of the name and pass 0 may leave its
/// counters off (not under the standing pass).
struct Pass0Inputs {
  std::uint32_t pass_count = 1;
  bool per_kernel_metrics = true;
  bool batching = false;
  bool verify = false;
  bool collectives_replay = false;
  bool capture_expected = false;
};
/// Multi-pass ranges snapshot their entry state; per-kernel multi-pass
/// ranges and deferrable ones record pass 0 without counters (their image is
/// sized to the kernels it recorded); so does a range of a name that saw a
/// capture. Deferred ranges would reach a rendezvous out of order, and
/// --verify checks each range's own window: neither is deferrable.
Recording plan_pass0(const Pass0Inputs& in);

/// Whether pass 0 is counted, for a range that is `deferrable` or not (a
/// write-set snapshot keeps the range out of batches once taken: call again
/// after the entry snapshot).
bool counts_pass0(const Pass0Inputs& in, bool deferrable);

/// A stream capture began inside a range whose pass 0 is being counted and
/// whose entry state is held: pass 0's counters stop, every counter pass
/// becomes a replay.
void stop_pass0_counters_at_capture(Recording& recording);
/// The same when device memory is allocated inside such a range: the tool's
/// copy of its bytes must not be counted as the application's work.
void stop_pass0_counters_at_allocation(Recording& recording);

/// The path a range's end takes, before any GPU call.
enum class RangeEndPath {
  kLeftAlone,       // nothing: another run collects it
  kApplicationRun,  // this run's counter pass of it stops (or it declines)
  kContextLost,     // its context ended inside it: declined, no CUDA or CUPTI call
  kWithoutGpu,      // declined at its begin, its counters closed by a capture, or a capture is open now
  kDrain,           // drained, then deferred or replayed (range_waits_for_batch)
  kReplayedBefore,  // replayed at a free inside it: its record is reported as it is
};
/// `counters_closed`: a capture inside it closed its counters;
/// `context_lost`: the profiled context ended before its end;
/// `open_captures`: captures open in the process now.
RangeEndPath range_end_path(const RangeState& state, bool counters_closed, bool context_lost,
                            std::size_t open_captures);

/// After the drain at its end: whether a recorded range waits for a batch
/// of deferred ranges instead of being replayed now. `drained`: the drain
/// succeeded; `can_wait`: nothing of it must be replayed at once (graph
/// launches, pinned host buffers, a write-set snapshot).
bool range_waits_for_batch(const RangeState& state, bool drained, std::size_t kernels, bool declined, bool can_wait);

}  // namespace rangereplay::tool
