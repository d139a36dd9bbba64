// Names of range event kinds and sources (see range_event.h).
#include "core/range/range_event.h"

namespace rangereplay::range {

std::string_view range_event_kind_name(RangeEventKind kind) {
  switch (kind) {
    case RangeEventKind::kBegin:
      return "begin";
    case RangeEventKind::kEnd:
      return "end";
    case RangeEventKind::kSkipped:
      return "skipped";
    case RangeEventKind::kDeclinedOverlap:
      return "declined_overlap";
  }
  return "unknown";
}

std::string_view range_source_name(RangeSource source) {
  switch (source) {
    case RangeSource::kNvtxPushPop:
      return "nvtx_push_pop";
    case RangeSource::kNvtxStartEnd:
      return "nvtx_start_end";
    case RangeSource::kProfilerApi:
      return "profiler_api";
    case RangeSource::kKernelWindow:
      return "kernel_window";
  }
  return "unknown";
}

}  // namespace rangereplay::range
