// Numbers matched ranges, applies the RangeSelector, and lets at most one
// range be recorded at a time.
//
// Every range source (NVTX tracker, profiler API ranges) owns one gate: when
// it sees a range begin it calls open() and forwards the verdict as a
// RangeEvent; when a range it opened with kBegin ends it calls close().
// A selected range that begins while another is being recorded (another
// thread's push, a start/end range inside a push/pop one) cannot be recorded
// separately: its work already belongs to the active range, so it is
// declined (kDeclinedOverlap, DeclineReason::kOverlappingRange).
//
// Thread-safety: none; the owning source calls it under its own lock.
#pragma once

#include <cstdint>
#include <utility>

#include "core/range/range_event.h"
#include "core/range/range_selector.h"

namespace rangereplay::range {

class RangeGate {
 public:
  explicit RangeGate(RangeSelector selector = {}) : selector_(std::move(selector)) {}

  struct Verdict {
    RangeEventKind kind = RangeEventKind::kBegin;  // kBegin, kSkipped or kDeclinedOverlap
    std::uint64_t match_index = 0;
  };

  /// A range matched: gives it the next match number and decides.
  Verdict open();
  /// The range that open() answered with kBegin ended. Requires active().
  void close();

  /// Whether a range opened with kBegin has not ended yet.
  bool active() const { return active_; }
  /// Ranges matched so far (the next match number).
  std::uint64_t matched() const { return matched_; }
  /// No range is being recorded and no later match can be selected: the
  /// source may stop matching (and the injection stop listening).
  bool done() const { return !active_ && matched_ > 0 && selector_.exhausted_after(matched_ - 1); }
  const RangeSelector& selector() const { return selector_; }

 private:
  RangeSelector selector_;
  std::uint64_t matched_ = 0;
  bool active_ = false;
};

}  // namespace rangereplay::range
