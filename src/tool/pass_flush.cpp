// PassFlush (pass_flush.h): the L2 flush of the counted passes on the tool's
// stream, and the lead-in hooks of a replayed pass.
#include "tool/pass_flush.h"

#include <functional>
#include <string>
#include <utility>

#include "cuda/cu_status.h"
#include "tool/logic/counter_layout.h"
#include "tool/tool_thread.h"

namespace rangereplay::tool {

Status PassFlush::create() {
  if (flush_) return ok_status();
  if (!bound_) return failed_precondition("the L2 flush was asked for before the counter set-up chose its device");
  StatusOr<cu::CacheFlush> made = cu::CacheFlush::create(device_, stream_);
  if (!made.ok()) return made.status();
  flush_.emplace(std::move(*made));
  return ok_status();
}

Status PassFlush::flush_and_wait() {
  InToolScope guard;
  RR_RETURN_IF_ERROR(flush_->flush(stream_));
  return cu_status(cuStreamSynchronize(stream_), "cuStreamSynchronize", __FILE__, __LINE__);
}

std::function<Status()> PassFlush::enqueue_hook() {
  if (!flush_) return {};
  return [this] { return flush_->flush(stream_); };
}

std::function<Status()> PassFlush::after_counters_start(const ActiveRange& range, CounterSession& session) {
  if (has_lead_in_flush(range.counters)) return enqueue_hook();
  if (!flush_) return {};
  return [this, &session, name = range.name] { return end_lead_in(session, name); };
}

Status PassFlush::end_lead_in(CounterSession& session, const std::string& range_name) {
  if (!flush_ || !session.backend().pass_has_lead_in()) return ok_status();
  RR_RETURN_IF_ERROR(flush_and_wait());
  return session.backend().end_lead_in(range_name);
}

}  // namespace rangereplay::tool
