// Decline: why one range is not profiled, as a value (a reason and a detail
// line), made where the fact is known and passed up to the range that
// declines. The reason comes from the failing step itself (a Status carrying
// a DeclineReason, core/base/status.h) or from the step's own knowledge, never
// from a status code.
//
//   if (second_context) return Decline{DeclineReason::kMultipleContexts, "range in a second context; ..."};
//   if (Status s = configure(); !s.ok()) return decline_of(s, DeclineReason::kCountersUnavailable);
//
// Thread-safety: a value.
#pragma once

#include <string>

#include "core/base/decline_reason.h"
#include "core/base/status.h"

namespace rangereplay {

struct Decline {
  DeclineReason reason = DeclineReason::kReplayFailed;
  std::string detail;  // one line; the report appends the reason's fix
  friend bool operator==(const Decline&, const Decline&) = default;
};

/// The decline a failed step establishes: the reason `status` carries, or
/// `otherwise` when it carries none; its message is the detail.
inline Decline decline_of(const Status& status, DeclineReason otherwise) {
  return Decline{status.decline_reason().value_or(otherwise), status.message()};
}

}  // namespace rangereplay
