// CounterPrewarm: the counter set-up (set_up_counters, counter_setup.h) made
// on a tool thread before the first range, so that the range's begin finds
// it done instead of paying it (about 0.3 s on an H100 for --set full: the
// profiler's initialization, the counter availability, the config image).
// ProfilerTool starts it at the application's first successful device
// allocation or kernel launch in a context (a process that will use the GPU,
// not one that only created a context), unless RANGEREPLAY_COUNTER_PREWARM=0;
// the first range in that context adopts it (RangeCounters::admit).
//
// The set-up's device-side calls invalidate a global-mode stream capture
// that another thread holds open, in relaxed capture mode too (measured on an
// H100: bench/cupti_pass_cost part e). So the thread makes no call while a
// capture is open or beginning: it waits between the set-up's steps (the
// stage hook), and a capture begin waits, at its entry callback and before
// the driver runs it, for the step in flight to end (before_capture). The
// two meet through sequentially consistent flags (the capture's beginning
// count, this thread's in-call flag): at least one side sees the other.
//
// What the set-up made is dropped, never used, when the first range is in
// another context, before a call that may end its context, and when the
// set-up failed (the range then sets up again and reports its own error);
// it is freed only while no capture is open or beginning (else left as it
// is). When a context's end or the exit cannot wait for the thread, the
// thread is abandoned: it makes no further call and stays parked until the
// process ends. At exit nothing is freed (the context may be gone); the
// thread is waited for at most kFinishWait.
//
// Once a range has asked for the counters (take), no set-up starts any
// more: the two never run side by side.
//
// Thread-safety: every member may be called from any thread; a leaf mutex of
// its own guards the result, never held across a CUDA or CUPTI call. The
// thread never takes the tool's lock, so a caller that holds it may wait for
// the thread (take, bounded). Waits are bounded (before_capture and
// before_context_end by kCallWait, take by its caller's limit). Nothing here
// throws. A child forked without exec has no such thread: there every call
// returns at once.
#pragma once

#include <cuda.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/record/capture_state.h"
#include "tool/counter_setup.h"
#include "tool/logic/counter_session.h"
#include "tool/logic/driver_calls.h"
#include "tool/logic/host_warm_up.h"

namespace rangereplay::tool {

class CounterPrewarm {
 public:
  /// What the set-up is made for: the arguments of set_up_counters.
  struct Request {
    CUcontext ctx = nullptr;
    CUdevice device = 0;  // the context's device (a primary context's end names the device)
    std::vector<std::string> metrics;
    std::string metric_set;
    CounterSessionOptions options;
  };
  /// How long a capture begin or a context's end waits for the step in
  /// flight; how long exit waits for the thread.
  static constexpr std::chrono::milliseconds kCallWait{10000};
  static constexpr std::chrono::milliseconds kFinishWait{3000};

  /// `captures`: the process's stream captures (outlives this object).
  explicit CounterPrewarm(const CaptureState& captures) : captures_(captures) {}
  CounterPrewarm(const CounterPrewarm&) = delete;
  CounterPrewarm& operator=(const CounterPrewarm&) = delete;

  /// Starts the set-up for `request` on a tool thread, the first time only;
  /// returns whether this call started it.
  bool start(Request request) noexcept;
  /// Whether start() has been called, or a range has asked for the
  /// counters: nothing more starts.
  bool started() const { return state_.load() != State::kIdle; }

  /// The set-up for `ctx`, once: waits for it at most `limit`. nullopt when
  /// none was started here, when it was taken or dropped before, when it
  /// failed, or when it was made for another context (it is dropped then);
  /// an error (kUnavailable) when it is still running after `limit` (it is
  /// dropped then), which the caller turns into its decline: it cannot set
  /// up beside it; an error with the decline reason stream_capture_active,
  /// for this range only, when the set-up waits for a capture to end (the
  /// next call takes it).
  std::optional<StatusOr<CounterSetup>> take(CUcontext ctx, std::chrono::milliseconds limit) noexcept;

  /// At a capture begin's entry callback, after the capture counts as
  /// beginning (CaptureState::enter_begin): waits until no call of the
  /// set-up is in flight, at most kCallWait.
  void before_capture() noexcept;

  /// Before a call that may end a context (`teardown`): when it may end the
  /// set-up's context, waits for the set-up to end (at most kCallWait, and
  /// not while it waits for a capture) and drops what it made while the
  /// context still exists; a set-up still running then is abandoned, except
  /// at a primary context's release, which is often not its last.
  void before_context_end(const TeardownParams& teardown) noexcept;

  /// At process exit: abandons the thread where it next stops between calls,
  /// and waits until it has ended or stopped there, at most kFinishWait;
  /// frees nothing and joins nothing.
  void finish() noexcept;

 private:
  // The thread: the set-up in the request's context, as the tool's own work.
  void run() noexcept;
  // The set-up's stage hook: the call before it has ended; the next one
  // begins when no capture is open or beginning.
  void between_calls() noexcept;
  // Whether this process is the one that started the thread.
  bool owned_here() const;
  // Drops a finished set-up: freed while no capture is open or beginning,
  // else left as it is. Caller holds no lock.
  void drop(std::optional<StatusOr<CounterSetup>> made) noexcept;
  // How a wait for the thread ended (wait_for_thread).
  enum class Waited : std::uint8_t {
    kDone,          // it stored its result
    kAbandoned,     // abandoned and between calls: it never calls again
    kCaptureHolds,  // between calls while a capture is open or beginning
    kDeadline,      // none of these by the deadline
  };
  // Waits on changed_ with `lock` (of mutex_) held until one of Waited's
  // outcomes, checking every millisecond at least.
  Waited wait_for_thread(std::unique_lock<std::mutex>& lock, std::chrono::steady_clock::time_point deadline);

  enum class State : std::uint8_t { kIdle, kStarted, kClosed };

  const CaptureState& captures_;
  // kIdle until start() (kStarted) or a range's take() (kClosed): a set-up
  // starts only from kIdle.
  std::atomic<State> state_{State::kIdle};
  // The thread makes no further call (a context's end or the exit could not
  // wait for it).
  std::atomic<bool> abandoned_{false};
  Request request_;
  std::atomic<pid_t> owner_{0};  // the process that started the thread
  // A call of the set-up is in flight (sequentially consistent: the
  // capture-begin handshake).
  std::atomic<bool> in_call_{false};
  // Waiting between its calls because a capture is open or beginning.
  std::atomic<bool> parked_{false};
  // Parked for good after abandoned_: the thread touches nothing of this
  // object after setting it, so finish() stops waiting for it.
  std::atomic<bool> retired_{false};
  std::mutex mutex_;  // leaf: guards the members below
  std::condition_variable changed_;
  bool done_ = false;     // the thread has stored its result
  bool claimed_ = false;  // taken, or dropped: nobody adopts it any more
  std::optional<StatusOr<CounterSetup>> result_;
  HostWarmUp thread_{[this] { run(); }, kFinishWait};
};

}  // namespace rangereplay::tool
