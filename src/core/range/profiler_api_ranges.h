// Ranges marked by cuProfilerStart / cudaProfilerStart and ...Stop.
//
// A tiny state machine, as Nsight Compute treats these calls: a start opens a
// range when none is open, a stop closes the open range; a start while one is
// open and a stop while none is open are ignored (they do not nest and do not
// count). Each opened range gets the next match number and the RangeSelector
// decides whether it is recorded. Ranges are process-wide: a stop on another
// thread closes the range.
//
//   ProfilerApiRanges ranges(selector);
//   if (auto ev = ranges.on_start(thread)) forward(*ev);   // cuProfilerStart
//   if (auto ev = ranges.on_stop(thread)) forward(*ev);    // cuProfilerStop
//
// Thread-safety: every method locks an internal mutex.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>

#include "core/range/range_event.h"
#include "core/range/range_gate.h"
#include "core/range/range_selector.h"

namespace rangereplay::range {

class ProfilerApiRanges {
 public:
  /// The name every event carries.
  static constexpr const char* kRangeName = "cudaProfilerStart";

  explicit ProfilerApiRanges(RangeSelector selector = {}) : gate_(std::move(selector)) {}

  /// cuProfilerStart on `thread_id`: kBegin or kSkipped when it opens a
  /// range, nullopt when a range is already open.
  std::optional<RangeEvent> on_start(std::uint64_t thread_id);
  /// cuProfilerStop on `thread_id`: kEnd when it closes a recorded range,
  /// nullopt otherwise (no open range, or the open one was skipped).
  std::optional<RangeEvent> on_stop(std::uint64_t thread_id);

  /// Whether a start opened a range that no stop has closed.
  bool open() const;
  /// No range open and no later match selectable.
  bool done() const;
  std::uint64_t matched() const;

 private:
  mutable std::mutex mu_;
  RangeGate gate_;
  bool open_ = false;
  bool recorded_ = false;
  std::uint64_t match_index_ = 0;
};

}  // namespace rangereplay::range
