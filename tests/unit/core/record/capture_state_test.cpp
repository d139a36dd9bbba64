// Capture-state bookkeeping: which streams are capturing (origins and streams
// joined through events), when captures end, and which threads' unsafe calls
// an open capture forbids, by its mode and the thread's own mode.
#include "core/record/capture_state.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace rangereplay {
namespace {

constexpr std::uint64_t kStreamA = 0x55550000a000;
constexpr std::uint64_t kStreamB = 0x55550000b000;
constexpr std::uint64_t kStreamC = 0x55550000c000;
constexpr std::uint64_t kEvent = 0x55550000e000;
constexpr std::uint64_t kMain = 1, kWorker = 2;

TEST(CaptureState, BeginAndEndOnTheOriginStream) {
  CaptureState c;
  EXPECT_EQ(c.open_captures(), 0u);
  EXPECT_FALSE(c.is_capturing(kStreamA));
  c.begin(kStreamA, kMain, CaptureMode::kGlobal, "cuStreamBeginCapture_v2");
  EXPECT_EQ(c.open_captures(), 1u);
  EXPECT_TRUE(c.is_capturing(kStreamA));
  EXPECT_FALSE(c.is_capturing(kStreamB));
  c.end(kStreamB);  // not an origin: nothing ends
  EXPECT_EQ(c.open_captures(), 1u);
  c.end(kStreamA);
  EXPECT_EQ(c.open_captures(), 0u);
  EXPECT_FALSE(c.is_capturing(kStreamA));
  EXPECT_EQ(c.describe_open(), "");
}

TEST(CaptureState, SecondBeginOnACapturingStreamIsIgnored) {
  CaptureState c;
  c.begin(kStreamA, kMain, CaptureMode::kGlobal, "first");
  c.begin(kStreamA, kMain, CaptureMode::kRelaxed, "second");
  EXPECT_EQ(c.open_captures(), 1u);
  EXPECT_NE(c.describe_open().find("first"), std::string::npos);
}

TEST(CaptureState, StreamJoinsThroughAnEventRecordedInACapturingStream) {
  CaptureState c;
  c.begin(kStreamA, kMain, CaptureMode::kGlobal, "cuStreamBeginCapture_v2");
  c.record_event(kEvent, kStreamA);
  c.wait_event(kStreamB, kEvent);  // fork: B is now part of A's capture
  EXPECT_TRUE(c.is_capturing(kStreamB));
  EXPECT_FALSE(c.is_capturing(kStreamC));
  c.end(kStreamA);  // B leaves with it, and the event belongs to no capture
  EXPECT_FALSE(c.is_capturing(kStreamB));
  c.wait_event(kStreamC, kEvent);
  EXPECT_FALSE(c.is_capturing(kStreamC));
}

TEST(CaptureState, EventRecordedOutsideACaptureJoinsNothing) {
  CaptureState c;
  c.begin(kStreamA, kMain, CaptureMode::kGlobal, "x");
  c.record_event(kEvent, kStreamA);
  c.record_event(kEvent, kStreamC);  // re-recorded in an ordinary stream
  c.wait_event(kStreamB, kEvent);
  EXPECT_FALSE(c.is_capturing(kStreamB));
}

TEST(CaptureState, DestroyedEventJoinsNothing) {
  CaptureState c;
  c.begin(kStreamA, kMain, CaptureMode::kGlobal, "x");
  c.record_event(kEvent, kStreamA);
  c.forget_event(kEvent);  // destroyed; a new event may get its handle
  c.wait_event(kStreamB, kEvent);
  EXPECT_FALSE(c.is_capturing(kStreamB));
}

TEST(CaptureState, DestroyedStreamLeavesItsCapture) {
  CaptureState c;
  c.begin(kStreamA, kMain, CaptureMode::kGlobal, "x");
  c.record_event(kEvent, kStreamA);
  c.wait_event(kStreamB, kEvent);
  c.forget_stream(kStreamB);
  EXPECT_FALSE(c.is_capturing(kStreamB));
  EXPECT_EQ(c.open_captures(), 1u);
  c.forget_stream(kStreamA);
  EXPECT_EQ(c.open_captures(), 0u);
}

TEST(CaptureState, PerThreadDefaultStreamsAreDistinctPerThread) {
  const std::uint64_t main_ptds = stream_key(0x2, false, kMain);
  const std::uint64_t main_ptsz = stream_key(0, true, kMain);
  const std::uint64_t worker_ptds = stream_key(0x2, false, kWorker);
  EXPECT_EQ(main_ptds, main_ptsz);
  EXPECT_NE(main_ptds, worker_ptds);
  EXPECT_EQ(stream_key(0, false, kMain), 0u);    // legacy stream
  EXPECT_EQ(stream_key(0x1, false, kMain), 0u);  // CU_STREAM_LEGACY
  EXPECT_EQ(stream_key(kStreamA, true, kMain), kStreamA);

  CaptureState c;
  c.begin(main_ptds, kMain, CaptureMode::kGlobal, "x");
  EXPECT_TRUE(c.is_capturing(main_ptsz));
  EXPECT_FALSE(c.is_capturing(worker_ptds));
  EXPECT_FALSE(c.is_capturing(0));  // the legacy stream is never capturing
}

TEST(CaptureState, GlobalCaptureForbidsUnsafeCallsOnEveryThreadNotRelaxed) {
  CaptureState c;
  c.begin(kStreamA, kMain, CaptureMode::kGlobal, "x");
  EXPECT_TRUE(c.forbids_unsafe_calls(kMain));
  EXPECT_TRUE(c.forbids_unsafe_calls(kWorker));
  c.set_thread_mode(kWorker, CaptureMode::kRelaxed);
  EXPECT_EQ(c.thread_mode(kWorker), CaptureMode::kRelaxed);
  EXPECT_FALSE(c.forbids_unsafe_calls(kWorker));
  c.set_thread_mode(kWorker, CaptureMode::kGlobal);
  EXPECT_TRUE(c.forbids_unsafe_calls(kWorker));
  c.end(kStreamA);
  EXPECT_FALSE(c.forbids_unsafe_calls(kMain));
}

TEST(CaptureState, ThreadLocalCaptureForbidsUnsafeCallsOnItsThreadOnly) {
  CaptureState c;
  c.begin(kStreamA, kMain, CaptureMode::kThreadLocal, "x");
  EXPECT_TRUE(c.forbids_unsafe_calls(kMain));
  EXPECT_FALSE(c.forbids_unsafe_calls(kWorker));
  c.set_thread_mode(kMain, CaptureMode::kRelaxed);
  EXPECT_FALSE(c.forbids_unsafe_calls(kMain));
}

TEST(CaptureState, ThreadInThreadLocalModeIgnoresOtherThreadsGlobalCaptures) {
  CaptureState c;
  c.begin(kStreamA, kMain, CaptureMode::kGlobal, "x");
  c.set_thread_mode(kWorker, CaptureMode::kThreadLocal);
  EXPECT_FALSE(c.forbids_unsafe_calls(kWorker));
  c.begin(kStreamB, kWorker, CaptureMode::kGlobal, "y");  // its own capture counts
  EXPECT_TRUE(c.forbids_unsafe_calls(kWorker));
}

TEST(CaptureState, BeginCallsInFlightAreCounted) {
  CaptureState c;
  EXPECT_EQ(c.beginning(), 0u);
  c.enter_begin();
  c.enter_begin();
  EXPECT_EQ(c.beginning(), 2u);
  c.begin(kStreamA, kMain, CaptureMode::kGlobal, "x");  // the first one succeeded
  c.leave_begin();
  c.leave_begin();  // the second one failed
  EXPECT_EQ(c.beginning(), 0u);
  EXPECT_EQ(c.open_captures(), 1u);
}

TEST(CaptureState, RelaxedCaptureForbidsNoThreadsUnsafeCalls) {
  CaptureState c;
  c.begin(kStreamA, kMain, CaptureMode::kRelaxed, "x");
  EXPECT_FALSE(c.forbids_unsafe_calls(kMain));
  EXPECT_FALSE(c.forbids_unsafe_calls(kWorker));
  EXPECT_EQ(c.open_captures(), 1u);  // still open: its stream's work does not run
  EXPECT_TRUE(c.is_capturing(kStreamA));
}

TEST(CaptureState, OpenOrBeginningCountsBeginCallsInFlightAndOpenCaptures) {
  CaptureState c;
  EXPECT_FALSE(c.open_or_beginning());
  c.enter_begin();
  EXPECT_TRUE(c.open_or_beginning());
  EXPECT_EQ(c.describe_open_or_beginning(), "a stream capture was beginning on another thread");
  c.begin(kStreamA, 3, CaptureMode::kGlobal, "cuStreamBeginCapture_v2");
  c.leave_begin();
  EXPECT_TRUE(c.open_or_beginning());
  EXPECT_EQ(c.describe_open_or_beginning(), c.describe_open());
  c.end(kStreamA);
  EXPECT_FALSE(c.open_or_beginning());
}

TEST(CaptureState, DescribeNamesTheCallThreadAndMode) {
  CaptureState c;
  c.begin(kStreamA, 3, CaptureMode::kThreadLocal, "cuStreamBeginCapture_v2");
  EXPECT_EQ(c.describe_open(), "a stream capture is open (cuStreamBeginCapture_v2 on thread 3, thread-local mode)");
  c.begin(kStreamB, 4, CaptureMode::kGlobal, "cuStreamBeginCaptureToGraph");
  EXPECT_EQ(c.describe_open(),
            "2 stream captures are open (the first: cuStreamBeginCapture_v2 on thread 3, thread-local mode)");
}

TEST(CaptureState, ModeValuesAreCudas) {
  EXPECT_EQ(capture_mode_from_value(0), CaptureMode::kGlobal);
  EXPECT_EQ(capture_mode_from_value(1), CaptureMode::kThreadLocal);
  EXPECT_EQ(capture_mode_from_value(2), CaptureMode::kRelaxed);
  EXPECT_EQ(capture_mode_from_value(3), std::nullopt);
  EXPECT_EQ(capture_mode_name(CaptureMode::kThreadLocal), "thread-local");
}

TEST(CaptureState, ConcurrentCapturesOnManyThreadsAllEnd) {
  CaptureState c;
  std::vector<std::thread> threads;
  for (std::uint64_t t = 0; t < 8; ++t) {
    threads.emplace_back([&c, t] {
      const std::uint64_t stream = 0x7000000000 + t * 0x1000;
      for (int i = 0; i < 500; ++i) {
        c.begin(stream, t, CaptureMode::kGlobal, "x");
        c.record_event(stream + 8, stream);
        c.wait_event(stream + 16, stream + 8);
        EXPECT_TRUE(c.is_capturing(stream + 16));
        c.end(stream);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.open_captures(), 0u);
}

}  // namespace
}  // namespace rangereplay
