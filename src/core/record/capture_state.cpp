#include "core/record/capture_state.h"

#include <algorithm>

namespace rangereplay {

namespace {
// CUDA's CU_STREAM_LEGACY and CU_STREAM_PER_THREAD handles.
constexpr std::uint64_t kLegacyHandle = 0x1;
constexpr std::uint64_t kPerThreadHandle = 0x2;
}  // namespace

std::string_view capture_mode_name(CaptureMode mode) {
  switch (mode) {
    case CaptureMode::kGlobal: return "global";
    case CaptureMode::kThreadLocal: return "thread-local";
    case CaptureMode::kRelaxed: return "relaxed";
  }
  return "unknown";
}

std::optional<CaptureMode> capture_mode_from_value(int value) {
  if (value < 0 || value > 2) return std::nullopt;
  return static_cast<CaptureMode>(value);
}

std::uint64_t stream_key(std::uint64_t handle, bool per_thread_default, std::uint64_t thread) {
  if (handle == kPerThreadHandle || (handle == 0 && per_thread_default)) {
    // Stream handles are pointers (aligned, far above 0x1000): keys of the
    // form (thread << 8) | 2 name no real stream.
    return (thread << 8) | kPerThreadHandle;
  }
  if (handle == kLegacyHandle) return 0;
  return handle;
}

void CaptureState::begin(std::uint64_t origin, std::uint64_t thread, CaptureMode mode, std::string_view call) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (capture_of(origin)) return;
  captures_.push_back({next_id_++, origin, thread, mode, std::string(call)});
  open_.store(captures_.size(), std::memory_order_release);
}

void CaptureState::end(std::uint64_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find_if(captures_.begin(), captures_.end(), [&](const Capture& c) { return c.origin == stream; });
  if (it != captures_.end()) end_capture(it->id);
}

void CaptureState::end_capture(std::uint64_t id) {
  std::erase_if(captures_, [&](const Capture& c) { return c.id == id; });
  std::erase_if(joined_, [&](const auto& j) { return j.second == id; });
  std::erase_if(events_, [&](const auto& e) { return e.second == id; });
  open_.store(captures_.size(), std::memory_order_release);
}

void CaptureState::record_event(std::uint64_t event, std::uint64_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto id = capture_of(stream)) {
    events_[event] = *id;
  } else {
    events_.erase(event);
  }
}

void CaptureState::wait_event(std::uint64_t stream, std::uint64_t event) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto e = events_.find(event);
  if (e == events_.end() || capture_of(stream)) return;
  joined_[stream] = e->second;
}

void CaptureState::forget_stream(std::uint64_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  joined_.erase(stream);
  auto it = std::find_if(captures_.begin(), captures_.end(), [&](const Capture& c) { return c.origin == stream; });
  if (it != captures_.end()) end_capture(it->id);
}

void CaptureState::forget_event(std::uint64_t event) {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.erase(event);
}

void CaptureState::set_thread_mode(std::uint64_t thread, CaptureMode mode) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (mode == CaptureMode::kGlobal) {
    thread_modes_.erase(thread);
  } else {
    thread_modes_[thread] = mode;
  }
}

CaptureMode CaptureState::thread_mode(std::uint64_t thread) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = thread_modes_.find(thread);
  return it == thread_modes_.end() ? CaptureMode::kGlobal : it->second;
}

std::optional<std::uint64_t> CaptureState::capture_of(std::uint64_t stream) const {
  if (stream == 0) return std::nullopt;
  for (const Capture& c : captures_)
    if (c.origin == stream) return c.id;
  if (auto j = joined_.find(stream); j != joined_.end()) return j->second;
  return std::nullopt;
}

bool CaptureState::is_capturing(std::uint64_t stream) const {
  if (open_captures() == 0) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return capture_of(stream).has_value();
}

bool CaptureState::forbids_unsafe_calls(std::uint64_t thread) const {
  if (open_captures() == 0) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = thread_modes_.find(thread);
  const CaptureMode own = it == thread_modes_.end() ? CaptureMode::kGlobal : it->second;
  if (own == CaptureMode::kRelaxed) return false;
  for (const Capture& c : captures_) {
    // The thread's own capture, unless it was begun relaxed.
    if (c.thread == thread && c.mode != CaptureMode::kRelaxed) return true;
    // Another thread's global capture, unless this thread ignores others
    // (thread-local mode).
    if (c.thread != thread && c.mode == CaptureMode::kGlobal && own == CaptureMode::kGlobal) return true;
  }
  return false;
}

std::string CaptureState::describe_open() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (captures_.empty()) return "";
  const Capture& c = captures_.front();
  std::string out = captures_.size() == 1 ? "a stream capture is open ("
                                          : std::to_string(captures_.size()) + " stream captures are open (the first: ";
  out += c.call + " on thread " + std::to_string(c.thread) + ", " + std::string(capture_mode_name(c.mode)) + " mode)";
  return out;
}

std::string CaptureState::describe_open_or_beginning() const {
  std::string open = describe_open();
  return open.empty() ? "a stream capture was beginning on another thread" : open;
}

}  // namespace rangereplay
