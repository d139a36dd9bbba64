// Match numbering, selection and exclusivity of ranges (see range_gate.h).
#include "core/range/range_gate.h"

#include <cassert>

namespace rangereplay::range {

RangeGate::Verdict RangeGate::open() {
  Verdict v;
  v.match_index = matched_++;
  if (!selector_.selects(v.match_index)) {
    v.kind = RangeEventKind::kSkipped;
  } else if (active_) {
    v.kind = RangeEventKind::kDeclinedOverlap;
  } else {
    v.kind = RangeEventKind::kBegin;
    active_ = true;
  }
  return v;
}

void RangeGate::close() {
  assert(active_ && "RangeGate::close without an active range");
  active_ = false;
}

}  // namespace rangereplay::range
