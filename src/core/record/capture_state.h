// CaptureState: the stream captures open in the application's process, as its
// calls open and close them, and each thread's capture mode.
//
// While a stream is being captured into a CUDA graph, the work submitted to
// it does not execute, and "potentially unsafe" calls (context or stream
// synchronization, allocation, synchronous copies, event queries of captured
// work) fail and invalidate the capture; a global-mode capture forbids them on
// every thread whose own mode is not relaxed, a thread-local one on the
// capturing thread. The tool's range entry drains the context
// (cuCtxSynchronize), which waits on every stream, the capturing ones too, and
// is prohibited whatever the modes: so the tool makes no such call while any
// capture is open, and launches into a capturing stream are not executions.
//
// A stream joins a capture when it waits on an event recorded in a capturing
// stream (cross-stream capture); it leaves when that capture ends. Streams and
// events are opaque 64-bit keys (stream_key names the per-thread default
// stream of each thread apart). No CUDA types; the CUDA semantics followed are
// those of the CUDA Programming Guide's "Stream Capture" section and
// cuStreamBeginCapture / cuThreadExchangeStreamCaptureMode.
//
//   CaptureState captures;
//   captures.begin(stream_key(s, false, t), t, CaptureMode::kGlobal, "cuStreamBeginCapture_v2");
//   captures.is_capturing(stream_key(s, false, t));   // true: a launch there does not run
//   captures.end(stream_key(s, false, t));
//
// Thread-safety: every member function may be called from any thread; one
// internal mutex, a leaf lock held for no call outside this class.
// open_captures() is a lock-free read for the fast path.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rangereplay {

/// A capture's mode or a thread's capture mode; the values of CUDA's
/// CUstreamCaptureMode (global 0, thread-local 1, relaxed 2).
enum class CaptureMode : std::uint8_t { kGlobal = 0, kThreadLocal = 1, kRelaxed = 2 };

/// "global", "thread-local", "relaxed"; "unknown" for other values.
std::string_view capture_mode_name(CaptureMode mode);

/// The mode of CUDA value `value` (CUstreamCaptureMode); nullopt for others.
std::optional<CaptureMode> capture_mode_from_value(int value);

/// The key of stream handle `handle` as thread `thread` names it: the
/// per-thread default stream (handle 0x2, or 0 in a _ptsz call, whose
/// `per_thread_default` is true) is a different stream on every thread; the
/// legacy stream (0 or 0x1 otherwise) has key 0 and is never capturing.
std::uint64_t stream_key(std::uint64_t handle, bool per_thread_default, std::uint64_t thread);

class CaptureState {
 public:
  /// A capture began on `origin` (the stream passed to the begin call), by
  /// `thread`, in `mode`; `call` names the API for decline details. A second
  /// begin on a stream that is capturing replaces nothing (CUDA refuses it).
  void begin(std::uint64_t origin, std::uint64_t thread, CaptureMode mode, std::string_view call);
  /// The end call on `stream` returned: ends the capture whose origin it is
  /// (with the streams that joined it and its events). A stream that is no
  /// capture's origin changes nothing.
  void end(std::uint64_t stream);
  /// An event was recorded in `stream`: it belongs to the stream's capture
  /// when the stream is capturing, to none otherwise.
  void record_event(std::uint64_t event, std::uint64_t stream);
  /// `stream` waited on `event`: it joins the event's capture, if any.
  void wait_event(std::uint64_t stream, std::uint64_t event);
  /// The stream was destroyed (its key may be reused): it leaves any capture
  /// it joined; a capture it is the origin of is ended.
  void forget_stream(std::uint64_t stream);
  /// The event was destroyed (its key may be reused): it belongs to no
  /// capture any more.
  void forget_event(std::uint64_t event);
  /// The thread's capture mode was exchanged to `mode`
  /// (cuThreadExchangeStreamCaptureMode); threads start in global mode.
  void set_thread_mode(std::uint64_t thread, CaptureMode mode);
  CaptureMode thread_mode(std::uint64_t thread) const;

  /// Captures open now (lock-free).
  std::size_t open_captures() const { return open_.load(std::memory_order_acquire); }
  /// A begin call is entering (enter_begin, at its entry callback) or has
  /// returned (leave_begin, at its exit callback, after begin() when it
  /// succeeded). beginning() counts the begin calls in flight, whose capture
  /// may exist already. Sequentially consistent, for the handshake with a
  /// range that is beginning (RangeController::begin).
  void enter_begin() { beginning_.fetch_add(1, std::memory_order_seq_cst); }
  void leave_begin() { beginning_.fetch_sub(1, std::memory_order_seq_cst); }
  std::size_t beginning() const { return beginning_.load(std::memory_order_seq_cst); }
  /// Whether a capture is open or a begin call is in flight (beginning()
  /// read first: a capture registers itself before it stops counting as
  /// beginning, so one that ends its begin between the two reads is seen).
  bool open_or_beginning() const { return beginning() > 0 || open_captures() > 0; }
  /// Whether work submitted to `stream` is being captured (origin or joined).
  bool is_capturing(std::uint64_t stream) const;
  /// Whether a potentially unsafe call made on `thread` would be refused by
  /// an open capture, and invalidate it, by the rules of
  /// cuThreadExchangeStreamCaptureMode: never when the thread is in relaxed
  /// mode; when it has a capture of its own not begun relaxed; and, in global
  /// mode only, when another thread has a global-mode capture.
  bool forbids_unsafe_calls(std::uint64_t thread) const;
  /// One line on the open captures for a decline detail, e.g. "a stream
  /// capture is open (cuStreamBeginCapture_v2 on thread 3, global mode)";
  /// empty when none is open.
  std::string describe_open() const;
  /// describe_open(), or "a stream capture was beginning on another thread"
  /// when none is open yet (a begin call in flight).
  std::string describe_open_or_beginning() const;

 private:
  struct Capture {
    std::uint64_t id = 0;
    std::uint64_t origin = 0;
    std::uint64_t thread = 0;
    CaptureMode mode = CaptureMode::kGlobal;
    std::string call;
  };
  // Caller holds mutex_.
  std::optional<std::uint64_t> capture_of(std::uint64_t stream) const;
  void end_capture(std::uint64_t id);

  mutable std::mutex mutex_;
  std::atomic<std::size_t> open_{0};
  std::atomic<std::size_t> beginning_{0};
  std::uint64_t next_id_ = 1;
  std::vector<Capture> captures_;                                // open ones
  std::unordered_map<std::uint64_t, std::uint64_t> joined_;      // stream -> capture id (not origins)
  std::unordered_map<std::uint64_t, std::uint64_t> events_;      // event -> capture id
  std::unordered_map<std::uint64_t, CaptureMode> thread_modes_;  // threads not in global mode
};

}  // namespace rangereplay
