// What range selection tells the injection: a matched range begins, ends, is
// skipped, or is declined because another range is being recorded.
//
// Every range source (NVTX push/pop and start/end ranges, cu(da)ProfilerStart/
// Stop, kernel-index windows) reports its decisions as RangeEvents, so the
// injection code only forwards them: kBegin starts recording (pass 0), kEnd
// ends it and opens the replay window, kDeclinedOverlap adds a declined range
// (DeclineReason::kOverlappingRange) to the report, kSkipped is informational.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/enum_names.h"

namespace rangereplay::range {

enum class RangeSource : std::uint8_t { kNvtxPushPop, kNvtxStartEnd, kProfilerApi, kKernelWindow };

enum class RangeEventKind : std::uint8_t {
  kBegin,            // a selected range begins: record it (exactly one kEnd follows)
  kEnd,              // the range of the last kBegin ends
  kSkipped,          // a range matched but the selector did not pick it (no kEnd follows)
  kDeclinedOverlap,  // a selected range matched while another was being recorded (no kEnd follows)
};

struct RangeEvent {
  RangeEventKind kind = RangeEventKind::kBegin;
  RangeSource source = RangeSource::kNvtxPushPop;
  std::uint64_t match_index = 0;  // matched-range number, from 0 (the report's RangeRecord::index)
  std::string name;               // the range's name: NVTX message, "cudaProfilerStart", "kernels 100:164"
  std::string domain;             // NVTX domain ("" = default domain; empty for other sources)
  std::uint64_t thread_id = 0;    // the thread whose call produced this event
  friend bool operator==(const RangeEvent&, const RangeEvent&) = default;
};

inline constexpr EnumNames<RangeEventKind, 4> kRangeEventKindNames{{
    {RangeEventKind::kBegin, "begin"},
    {RangeEventKind::kEnd, "end"},
    {RangeEventKind::kSkipped, "skipped"},
    {RangeEventKind::kDeclinedOverlap, "declined_overlap"},
}};
inline constexpr EnumNames<RangeSource, 4> kRangeSourceNames{{
    {RangeSource::kNvtxPushPop, "nvtx_push_pop"},
    {RangeSource::kNvtxStartEnd, "nvtx_start_end"},
    {RangeSource::kProfilerApi, "profiler_api"},
    {RangeSource::kKernelWindow, "kernel_window"},
}};

/// "begin", "end", "skipped", "declined_overlap" (kRangeEventKindNames).
constexpr std::string_view range_event_kind_name(RangeEventKind kind) { return name_of(kRangeEventKindNames, kind); }
/// "nvtx_push_pop", "nvtx_start_end", "profiler_api", "kernel_window" (kRangeSourceNames).
constexpr std::string_view range_source_name(RangeSource source) { return name_of(kRangeSourceNames, source); }

}  // namespace rangereplay::range
