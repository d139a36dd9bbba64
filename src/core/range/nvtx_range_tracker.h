// Turns the application's NVTX calls into range decisions.
//
// The injection forwards every NVTX push/pop/start/end (with the calling
// thread's id and the domain's name) and acts on the RangeEvent it gets back;
// it never evaluates expressions itself:
//
//   NvtxRangeTracker tracker(std::move(filter), std::move(selector));
//   // in the NVTX callback of nvtxDomainRangePushEx on thread t:
//   if (auto ev = tracker.on_push(t, domain_name, message)) forward(*ev);
//
// Model (NVTX keeps one push/pop stack per thread and domain; start/end
// ranges belong to the process and may end on another thread):
//   - push/pop: a range begins at a push on thread T when T has no open
//     matched range and the NvtxFilter says a range begins (nvtx_filter.h);
//     it ends at the pop, on T in the same domain, that takes that stack
//     below the depth of the beginning push. Pushes inside it never begin
//     another range on T (they are part of it).
//   - start/end: a range begins at a start when none is open and the filter
//     says so; it ends at the end (on any thread) after which no start/end
//     include matches.
//   - every begun range gets the next match number; the RangeSelector picks
//     which are recorded (kBegin ... kEnd) and which are only counted
//     (kSkipped); a selected range that begins while another is recorded is
//     declined (kDeclinedOverlap). Skipped and declined ranges still shield
//     their nested pushes, so one application range is one match.
//   - a pop on an empty stack and an end of an unknown id are ignored.
//
// Thread-safety: every method locks an internal mutex; call from any thread.
// Cost per call: one map look-up plus matching the changed domain's stack
// against each include (regex includes run one RE2 search per name, linear in at most
// NameMatcher::kMaxMatchedNameBytes of it).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/range/nvtx_filter.h"
#include "core/range/range_event.h"
#include "core/range/range_gate.h"
#include "core/range/range_selector.h"

namespace rangereplay::range {

class NvtxRangeTracker {
 public:
  NvtxRangeTracker(NvtxFilter filter, RangeSelector selector = {});

  /// nvtxRangePush* / nvtxDomainRangePushEx of `name` in `domain` ("" =
  /// default domain) on thread `thread_id`.
  std::optional<RangeEvent> on_push(std::uint64_t thread_id, std::string_view domain, std::string_view name);
  /// nvtxRangePop / nvtxDomainRangePop in `domain` on thread `thread_id`.
  std::optional<RangeEvent> on_pop(std::uint64_t thread_id, std::string_view domain);
  /// nvtxRangeStart* / nvtxDomainRangeStartEx returning `range_id`.
  std::optional<RangeEvent> on_start(std::uint64_t thread_id, std::string_view domain, std::string_view name,
                                     std::uint64_t range_id);
  /// nvtxRangeEnd / nvtxDomainRangeEnd of `range_id`, on any thread.
  std::optional<RangeEvent> on_end(std::uint64_t thread_id, std::uint64_t range_id);

  /// The process is exiting (or the context going away): if a range is being
  /// recorded, returns its kEnd event (the caller declines it with
  /// DeclineReason::kRangeNotClosed) and forgets all state.
  std::optional<RangeEvent> end_of_process(std::uint64_t thread_id);

  /// Whether a range is being recorded (between kBegin and kEnd).
  bool recording() const;
  /// No range is being recorded and the selector can pick no later match:
  /// the injection may stop forwarding NVTX calls.
  bool done() const;
  /// Ranges that began so far (selected or not).
  std::uint64_t matched() const;

 private:
  // A matched range currently open (recorded, skipped or declined).
  struct OpenRange {
    RangeSource source = RangeSource::kNvtxPushPop;
    std::uint64_t match_index = 0;
    bool recorded = false;  // answered kBegin
    std::string name;
    std::string domain;
    std::size_t depth = 0;  // push/pop: stack depth of the beginning push
  };
  struct ThreadState {
    NvtxStacks stacks;
    std::optional<OpenRange> range;  // push/pop range open on this thread
  };
  struct StartedRange {
    std::string domain;
    std::string name;
  };

  std::optional<RangeEvent> begin(OpenRange& range, std::uint64_t thread_id);
  std::optional<RangeEvent> finish(const OpenRange& range, std::uint64_t thread_id);
  NvtxState state_of(std::uint64_t thread_id) const;

  const NvtxFilter filter_;
  mutable std::mutex mu_;
  RangeGate gate_;
  std::unordered_map<std::uint64_t, ThreadState> threads_;
  NvtxOpenRanges open_;                                      // start/end ranges open, by domain
  std::unordered_map<std::uint64_t, StartedRange> started_;  // by NVTX range id
  std::optional<OpenRange> start_end_range_;
  static const NvtxStacks kNoStacks;
};

}  // namespace rangereplay::range
