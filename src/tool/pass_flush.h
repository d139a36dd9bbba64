// PassFlush: the L2 flush as the counted passes use it (cu::CacheFlush, a
// read of a buffer twice the L2's size, on the tool's stream). It runs
// before a counted pass under --cache-control all, after the tool's own
// writes (entry snapshot, restore) under either, and as the lead-in of a
// replayed pass whose counters open with one: per-kernel layouts count it
// as a counter range of its own, whole-range passes end their lead-in
// counter range after it (cupti::RangeProfilerSession::set_lead_in), so
// what CUPTI's start leaves dirty in L2 is written back outside the range's
// counters.
//
//   PassFlush flush;
//   flush.bind(device, tool_stream);
//   if (Status s = flush.create(); !s.ok()) ...      // no flush: cache control none
//   RR_RETURN_IF_ERROR(flush.flush_and_wait());      // before a pass's counters start
//
// Memory: none until create(); then cu::CacheFlush's (2 x L2 bytes plus 4
// KiB of device memory), freed with the object (RangeCounters keeps it as
// long as the process).
// Thread-safety: the tool's lock (one flush at a time on the tool's stream).
// Errors are Status values; only the hooks' making can throw (std::bad_alloc
// of a std::function).
#pragma once

#include <cuda.h>

#include <functional>
#include <optional>
#include <string>

#include "core/base/status.h"
#include "cuda/cache_flush.h"
#include "tool/active_range.h"
#include "tool/logic/counter_session.h"

namespace rangereplay::tool {

class PassFlush {
 public:
  /// The device and the tool's stream the flush is made for and runs on;
  /// called once, at the counter set-up, before create().
  void bind(CUdevice device, CUstream stream) {
    device_ = device;
    stream_ = stream;
    bound_ = true;
  }
  /// Creates the flush buffer when there is none yet (nothing when there
  /// is). Errors: failed_precondition before bind(); cu::CacheFlush::create's
  /// (an allocation that failed names the bytes asked for); there is no
  /// flush then.
  Status create();
  /// Whether the flush exists.
  bool exists() const { return flush_.has_value(); }
  /// Flushes L2 on the tool's stream and waits for it (the flush must
  /// exist). Errors: the launch's or the synchronization's.
  Status flush_and_wait();
  /// Enqueues the flush on the tool's stream without waiting (a replay
  /// window's flush_caches hook); empty without a flush.
  std::function<Status()> enqueue_hook();
  /// What a replayed pass of `range` runs right after its counters start:
  /// the per-kernel lead-in flush, the whole-range lead-in (end_lead_in),
  /// or nothing (empty). The hook refers to this object and `session`,
  /// which outlive it.
  std::function<Status()> after_counters_start(const ActiveRange& range, CounterSession& session);
  /// Inside a whole-range pass that opened with a lead-in counter range
  /// (cupti::RangeProfilerSession::set_lead_in): flushes L2 and waits for
  /// it, then ends the lead-in and pushes `range_name`. Nothing otherwise.
  /// Errors: the flush's or the backend's.
  Status end_lead_in(CounterSession& session, const std::string& range_name);

 private:
  CUdevice device_ = 0;
  CUstream stream_ = nullptr;
  bool bound_ = false;
  std::optional<cu::CacheFlush> flush_;
};

}  // namespace rangereplay::tool
