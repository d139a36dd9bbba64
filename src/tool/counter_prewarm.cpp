// CounterPrewarm (counter_prewarm.h): the counter set-up on a tool thread,
// between the application's captures, adopted by the first range.
#include "tool/counter_prewarm.h"

#include <unistd.h>

#include <thread>
#include <utility>

#include "tool/controller_helpers.h"
#include "tool/tool_thread.h"

namespace rangereplay::tool {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

bool CounterPrewarm::start(Request request) noexcept {
  // This process's id before the state says started (the same from any of
  // its threads): a take() that sees kStarted waits for the thread.
  owner_.store(getpid());
  State idle = State::kIdle;
  if (!state_.compare_exchange_strong(idle, State::kStarted)) return false;
  try {
    // Written before the thread exists, read only by it and, once it has
    // stored its result, by take() and before_context_end().
    request_ = std::move(request);
    if (thread_.start()) return true;
  } catch (...) {
  }
  // No thread: nothing will be made, and every caller returns at once.
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = true;
  claimed_ = true;
  return false;
}

bool CounterPrewarm::owned_here() const { return state_.load() != State::kIdle && owner_.load() == getpid(); }

void CounterPrewarm::between_calls() noexcept {
  in_call_.store(false, std::memory_order_seq_cst);
  for (;;) {
    if (abandoned_.load()) {
      // Abandoned: parked here, making no call, until the process ends. The
      // object may be destroyed meanwhile (finish() no longer waits for the
      // thread): nothing of it is touched after retired_.
      parked_.store(true, std::memory_order_seq_cst);
      retired_.store(true, std::memory_order_seq_cst);
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    in_call_.store(true, std::memory_order_seq_cst);
    if (!captures_.open_or_beginning()) return;
    // A capture is open or beginning: no call until it has ended.
    in_call_.store(false, std::memory_order_seq_cst);
    parked_.store(true, std::memory_order_seq_cst);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    parked_.store(false, std::memory_order_seq_cst);
  }
}

void CounterPrewarm::run() noexcept {
  // The set-up's driver calls are the tool's own: the callbacks leave them.
  InToolScope scope;
  std::optional<StatusOr<CounterSetup>> result;
  try {
    // Host-only, and maybe a wait for the metric host warm-up: no call is
    // in flight meanwhile, so a capture begin does not wait for it.
    if (Status host = metric_host_ready(); !host.ok()) {
      result = StatusOr<CounterSetup>(host);
    } else {
      between_calls();
      if (cuCtxSetCurrent(request_.ctx) != CUDA_SUCCESS) {
        result = StatusOr<CounterSetup>(unavailable("the application's context could not be made current"));
      } else {
        const CounterSetupHooks hooks{[this](const char*) { between_calls(); },
                                      [](const std::string& line) { debug("%s", line); }};
        result = set_up_counters(request_.ctx, request_.metrics, request_.metric_set, request_.options, hooks);
      }
      cuCtxSetCurrent(nullptr);
    }
  } catch (...) {
    result = StatusOr<CounterSetup>(internal_error("the counter set-up on the tool's thread failed"));
  }
  in_call_.store(false, std::memory_order_seq_cst);
  debug("counter set-up on the tool's thread: %s",
        result && result->ok() ? std::string("done") : (result ? result->status().message() : std::string("none")));
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = true;
  if (claimed_ && result && result->ok()) {
    // Dropped while it ran (its context was about to end): the context may
    // be gone, so nothing of it is freed.
    static_cast<void>((*result)->session.release());
  } else if (!claimed_) {
    result_ = std::move(result);
  }
  changed_.notify_all();
}

std::optional<StatusOr<CounterSetup>> CounterPrewarm::take(CUcontext ctx, std::chrono::milliseconds limit) noexcept {
  // From now on no set-up starts: the caller's and the thread's never run
  // side by side.
  if (state_.exchange(State::kClosed) == State::kIdle || owner_.load() != getpid()) return std::nullopt;
  std::optional<StatusOr<CounterSetup>> result;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    switch (wait_for_thread(lock, Clock::now() + limit)) {
      case Waited::kDone: break;
      case Waited::kAbandoned: return std::nullopt;
      case Waited::kCaptureHolds:
        // A capture another thread holds open (or is beginning, and waits
        // for the caller's lock) keeps the set-up between its calls: this
        // range declines; a later one adopts the set-up.
        state_.store(State::kStarted);
        return StatusOr<CounterSetup>(
            unavailable("a stream capture was open or beginning while the range began, before the counter set-up "
                        "on the tool's thread ended; the tool made no call a capture forbids")
                .with_decline_reason(DeclineReason::kStreamCaptureActive));
      case Waited::kDeadline:
        claimed_ = true;
        abandoned_.store(true);  // it makes no further call
        return StatusOr<CounterSetup>(unavailable(
            "the counter set-up started on the tool's thread at the application's first allocation has not ended "
            "after " +
            std::to_string(limit.count() / 1000) +
            " s; run with RANGEREPLAY_COUNTER_PREWARM=0 to set the counters up at the first range"));
    }
    if (claimed_) return std::nullopt;  // dropped before (a context's end)
    claimed_ = true;
    result = std::move(result_);
    result_.reset();
  }
  if (!result || !result->ok()) return std::nullopt;  // the range sets up again, and reports its own error
  if (request_.ctx != ctx) {
    drop(std::move(result));  // made for another context
    return std::nullopt;
  }
  return result;
}

void CounterPrewarm::before_capture() noexcept {
  if (!owned_here()) return;
  const auto deadline = Clock::now() + kCallWait;
  while (in_call_.load(std::memory_order_seq_cst) && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
}

void CounterPrewarm::before_context_end(const TeardownParams& teardown) noexcept {
  if (!owned_here()) return;
  const bool ends_it = teardown.what == ContextTeardown::kContext ? teardown.context == request_.ctx
                       : teardown.what == ContextTeardown::kNone  ? false
                                                                  : teardown.device == request_.device;
  if (!ends_it) return;
  // A primary context's release is often not its last (a library's retain
  // and release around its work): a set-up still running is left to go on.
  const bool may_live_on = teardown.what == ContextTeardown::kPrimaryRelease;
  std::optional<StatusOr<CounterSetup>> dropped;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (claimed_) return;
    // Until it has ended, or waits for a capture (it would not end before
    // this call does), at most kCallWait.
    if (wait_for_thread(lock, Clock::now() + kCallWait) != Waited::kDone) {
      if (may_live_on) return;
      claimed_ = true;
      abandoned_.store(true);  // no further call on a context that is ending
      return;
    }
    claimed_ = true;
    dropped = std::move(result_);
    result_.reset();
  }
  drop(std::move(dropped));
}

CounterPrewarm::Waited CounterPrewarm::wait_for_thread(std::unique_lock<std::mutex>& lock,
                                                       std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    if (done_) return Waited::kDone;
    if (retired_.load()) return Waited::kAbandoned;
    // (Parked, but no capture left: it resumes within a millisecond.)
    if (parked_.load(std::memory_order_seq_cst) && captures_.open_or_beginning()) return Waited::kCaptureHolds;
    if (Clock::now() >= deadline) return Waited::kDeadline;
    changed_.wait_for(lock, std::chrono::milliseconds(1));
  }
}

void CounterPrewarm::drop(std::optional<StatusOr<CounterSetup>> made) noexcept {
  if (!made || !made->ok()) return;
  // Freeing disables CUPTI's object: a call a capture forbids. The same
  // handshake as the thread's calls: a capture begin waits for it.
  in_call_.store(true, std::memory_order_seq_cst);
  if (captures_.open_or_beginning()) {
    in_call_.store(false, std::memory_order_seq_cst);
    static_cast<void>((*made)->session.release());
    return;
  }
  {
    InToolScope scope;
    made.reset();
  }
  in_call_.store(false, std::memory_order_seq_cst);
}

void CounterPrewarm::finish() noexcept {
  abandoned_.store(true);
  if (!owned_here()) return;
  // Until the thread has ended or retired (parked for good between calls,
  // touching nothing of this object), at most kFinishWait; it is never
  // joined.
  const auto deadline = Clock::now() + kFinishWait;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (done_) return;
    }
    if (retired_.load()) {
      // Parked for good: the destructor does not wait for it again.
      thread_.abandon();
      return;
    }
    // Still in a call (or between two) after the wait: the destructor waits
    // for it once more before leaving it to the process's end.
    if (Clock::now() >= deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace rangereplay::tool
