// Stream-capture bookkeeping (core/capture_state.h) from driver callbacks:
// captures opened and closed, events recorded in capturing streams and the
// streams that wait on them, thread capture modes, and the stream of each
// kernel launch. None of it takes mutex_: these callbacks come on every
// application thread, often while another thread holds the tool's lock.
#include <cupti.h>

#include "tool/profiler_tool.h"

namespace rangereplay::tool {

namespace {

std::uint64_t handle(CUstream s) { return reinterpret_cast<std::uint64_t>(s); }
std::uint64_t handle(CUevent e) { return reinterpret_cast<std::uint64_t>(e); }

// The mode this thread passed to its cuThreadExchangeStreamCaptureMode in
// flight (read at the call's entry, applied at its exit).
thread_local int t_exchanged_capture_mode = 0;

}  // namespace

std::uint64_t ProfilerTool::call_stream_key(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  const void* p = data->functionParams;
  CUstream stream = nullptr;
  bool ptsz = false;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: ptsz = true; [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: stream = static_cast<const cuLaunchKernel_params*>(p)->hStream; break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: ptsz = true; [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      stream = static_cast<const cuLaunchCooperativeKernel_params*>(p)->hStream;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: ptsz = true; [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
      const CUlaunchConfig* c = static_cast<const cuLaunchKernelEx_params*>(p)->config;
      stream = c != nullptr ? c->hStream : nullptr;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: ptsz = true; [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync: stream = static_cast<const cuMemAllocAsync_params*>(p)->hStream; break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: ptsz = true; [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
      stream = static_cast<const cuMemAllocFromPoolAsync_params*>(p)->hStream;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: ptsz = true; [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync: stream = static_cast<const cuMemFreeAsync_params*>(p)->hStream; break;
    default: return 0;
  }
  return stream_key(handle(stream), ptsz, tool_thread_number());
}

bool ProfilerTool::on_capture_api(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  const void* p = data->functionParams;
  const bool exit = data->callbackSite == CUPTI_API_EXIT;
  const std::uint64_t thread = tool_thread_number();
  const auto key = [&](CUstream s, bool ptsz) { return stream_key(handle(s), ptsz, thread); };
  // A capture is open once its begin call returned success.
  const auto begun = [&](CUstream s, bool ptsz, int mode) {
    if (!exit) {
      // Before the capture begins. The handshake with begin_range: this
      // begin is counted first, then the range flags are read; a range
      // begin sets its flag first, then reads the count (both sequentially
      // consistent), so at least one side sees the other. A range that is
      // open or beginning is declined here and its counters closed while
      // calls that a capture forbids are still safe.
      captures_.enter_begin();
      if (range_open_.load(std::memory_order_seq_cst) || range_beginning_.load(std::memory_order_seq_cst))
        capture_begins_in_range(data->functionName);
      return;
    }
    // The capture (if it began) is registered before this begin stops
    // counting as in flight.
    if (call_succeeded(data))
      captures_.begin(key(s, ptsz), thread, capture_mode_from_value(mode).value_or(CaptureMode::kGlobal),
                      data->functionName);
    captures_.leave_begin();
    if (!call_succeeded(data)) return;
    if (debug_enabled())
      std::fprintf(stderr, "rangereplay[debug] thread %llu: %s opened a stream capture (%zu open)\n",
                   static_cast<unsigned long long>(thread), data->functionName, captures_.open_captures());
  };
  switch (cbid) {
    // The legacy begin call takes no mode: it captures as the global mode does.
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
      begun(static_cast<const cuStreamBeginCapture_params*>(p)->hStream, false, 0);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
      begun(static_cast<const cuStreamBeginCapture_ptsz_params*>(p)->hStream, true, 0);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2: {
      const auto* b = static_cast<const cuStreamBeginCapture_v2_params*>(p);
      begun(b->hStream, false, b->mode);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz: {
      const auto* b = static_cast<const cuStreamBeginCapture_v2_ptsz_params*>(p);
      begun(b->hStream, true, b->mode);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph: {
      const auto* b = static_cast<const cuStreamBeginCaptureToGraph_params*>(p);
      begun(b->hStream, false, b->mode);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz: {
      const auto* b = static_cast<const cuStreamBeginCaptureToGraph_ptsz_params*>(p);
      begun(b->hStream, true, b->mode);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz: {
      // The end call ends the capture even when it fails because the capture
      // was invalidated; only a call from the wrong thread leaves it open.
      if (!exit || data->functionReturnValue == nullptr) return true;
      if (*static_cast<const CUresult*>(data->functionReturnValue) == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
        return true;
      captures_.end(key(static_cast<const cuStreamEndCapture_params*>(p)->hStream,
                        cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz));
      if (debug_enabled())
        std::fprintf(stderr, "rangereplay[debug] thread %llu: %s closed a stream capture (%zu open)\n",
                     static_cast<unsigned long long>(thread), data->functionName, captures_.open_captures());
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuThreadExchangeStreamCaptureMode: {
      // At exit, *mode holds the previous mode and the thread's mode is the
      // one passed in, which the entry callback saw.
      const auto* m = static_cast<const cuThreadExchangeStreamCaptureMode_params*>(p);
      if (m->mode == nullptr) return true;
      if (!exit) {
        t_exchanged_capture_mode = static_cast<int>(*m->mode);
      } else if (call_succeeded(data)) {
        captures_.set_thread_mode(thread,
                                  capture_mode_from_value(t_exchanged_capture_mode).value_or(CaptureMode::kGlobal));
      }
      return true;
    }
    default:
      break;
  }
  // Events and waits: bookkeeping only while a capture is open (or was: an
  // event recorded in a capture keeps its membership until re-recorded), and
  // still handled by the range recorder afterwards (return false).
  if (!exit || !call_succeeded(data)) return false;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz: {
      if (captures_.open_captures() == 0) return false;
      const auto* e = static_cast<const cuEventRecord_params*>(p);
      captures_.record_event(handle(e->hEvent), key(e->hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz));
      return false;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz: {
      if (captures_.open_captures() == 0) return false;
      const auto* e = static_cast<const cuEventRecordWithFlags_params*>(p);
      captures_.record_event(handle(e->hEvent),
                             key(e->hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz));
      return false;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz: {
      if (captures_.open_captures() == 0) return false;
      const auto* w = static_cast<const cuStreamWaitEvent_params*>(p);
      captures_.wait_event(key(w->hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz),
                           handle(w->hEvent));
      return false;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy:
    case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2:
      if (captures_.open_captures() == 0) return false;
      captures_.forget_event(handle(static_cast<const cuEventDestroy_v2_params*>(p)->hEvent));
      return false;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2:
      if (captures_.open_captures() == 0) return false;
      captures_.forget_stream(handle(static_cast<const cuStreamDestroy_v2_params*>(p)->hStream));
      return false;
    default:
      return false;
  }
}

}  // namespace rangereplay::tool
