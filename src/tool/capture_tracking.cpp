// RecordSession's stream-capture bookkeeping (core/record/capture_state.h) from
// driver callbacks: captures opened and closed, events recorded in capturing
// streams and the streams that wait on them, thread capture modes, and the
// stream of each kernel launch. None of it takes the tool's lock but a
// capture begin while a range is open or beginning (capture_begins_in_range)
// or while ranges are deferred (their flush): these callbacks come on every
// application thread, often while another thread holds the tool's lock.
#include <cupti.h>

#include "tool/range_controller.h"
#include "tool/record_session.h"

namespace rangereplay::tool {

namespace {

std::uint64_t handle(CUstream s) { return reinterpret_cast<std::uint64_t>(s); }
std::uint64_t handle(CUevent e) { return reinterpret_cast<std::uint64_t>(e); }

// The mode this thread passed to its cuThreadExchangeStreamCaptureMode in
// flight (read at the call's entry, applied at its exit).
thread_local int t_exchanged_capture_mode = 0;

}  // namespace

std::uint64_t capture_key(const DriverCall& call, const CallParams& params) {
  if (!params.stream) return 0;
  return stream_key(handle(*params.stream), call.per_thread_stream(), tool_thread_number());
}

void RecordSession::on_capture_api(const DriverCall& call, const CUpti_CallbackData* data) {
  const bool exit = data->callbackSite == CUPTI_API_EXIT;
  const std::uint64_t thread = tool_thread_number();
  const CallParams p = call.decode(data->functionParams);
  const std::uint64_t key = stream_key(handle(p.stream.value_or(nullptr)), call.per_thread_stream(), thread);
  switch (call.kind) {
    case CallKind::kCaptureBegin: {
      if (!exit) {
        // Before the capture begins. The handshake with a range's begin: this
        // begin is counted first, then the range flags are read; a range
        // begin sets its flag first, then reads the count (both sequentially
        // consistent), so at least one side sees the other. A range that is
        // open or beginning is declined here and its counters closed while
        // calls that a capture forbids are still safe.
        captures_.enter_begin();
        if (range_open_.load(std::memory_order_seq_cst) || range_beginning_.load(std::memory_order_seq_cst)) {
          capture_begins_in_range(data->functionName);
        } else if (ranges_.deferred().has_pending()) {
          // Deferred ranges are replayed now, before the capture exists.
          ToolLock lock = lock_tool(data->functionName);
          InToolScope scope;
          ranges_.deferred().flush_before_capture(data->functionName);
        }
        return;
      }
      // The capture (if it began) is registered before this begin stops
      // counting as in flight.
      if (call_succeeded(data))
        captures_.begin(key, thread, capture_mode_from_value(p.capture.mode).value_or(CaptureMode::kGlobal),
                        data->functionName);
      captures_.leave_begin();
      if (!call_succeeded(data)) return;
      if (debug_enabled())
        std::fprintf(stderr, "rangereplay[debug] thread %llu: %s opened a stream capture (%zu open)\n",
                     static_cast<unsigned long long>(thread), data->functionName, captures_.open_captures());
      return;
    }
    case CallKind::kCaptureEnd:
      // The end call ends the capture even when it fails because the capture
      // was invalidated; only a call from the wrong thread leaves it open.
      if (!exit || data->functionReturnValue == nullptr) return;
      if (*static_cast<const CUresult*>(data->functionReturnValue) == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD) return;
      captures_.end(key);
      if (debug_enabled())
        std::fprintf(stderr, "rangereplay[debug] thread %llu: %s closed a stream capture (%zu open)\n",
                     static_cast<unsigned long long>(thread), data->functionName, captures_.open_captures());
      return;
    case CallKind::kCaptureModeExchange:
      // At exit, *mode holds the previous mode and the thread's mode is the
      // one passed in, which the entry callback saw.
      if (p.capture.mode_inout == nullptr) return;
      if (!exit) {
        t_exchanged_capture_mode = static_cast<int>(*p.capture.mode_inout);
      } else if (call_succeeded(data)) {
        captures_.set_thread_mode(thread,
                                  capture_mode_from_value(t_exchanged_capture_mode).value_or(CaptureMode::kGlobal));
      }
      return;
    default: break;
  }
  // Events and waits: bookkeeping only while a capture is open (or was: an
  // event recorded in a capture keeps its membership until re-recorded); the
  // range recorder sees them afterwards.
  if (!exit || !call_succeeded(data) || captures_.open_captures() == 0) return;
  switch (call.kind) {
    case CallKind::kEventRecord: captures_.record_event(handle(p.capture.event), key); return;
    case CallKind::kStreamWaitEvent: captures_.wait_event(key, handle(p.capture.event)); return;
    case CallKind::kEventDestroy: captures_.forget_event(handle(p.capture.event)); return;
    case CallKind::kStreamDestroy: captures_.forget_stream(handle(p.stream.value_or(nullptr))); return;
    default: return;
  }
}

void RecordSession::capture_begins_in_range(const char* call) {
  ToolLock lock = lock_tool(call);
  InToolScope scope;
  ranges_.capture_begins(call);
}

}  // namespace rangereplay::tool
