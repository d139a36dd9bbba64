// Counter layout: how one range's counter values are laid out in the counter
// ranges of its passes. It is one decision per range, made at two points:
// at the range's begin (the configured layout, or a counter range of the
// standing pass) and, for a range whose pass 0 only recorded, at its end
// (layout_after_recording_pass0: once its kernels are known).
//
//   AutoKernelRanges   CUPTI's automatic ranges, one per kernel launch; with
//                      a lead-in flush, each replayed pass first flushes L2
//                      once more after its counters start, as the pass's
//                      first kernel, whose counter range is dropped
//   UserKernelRanges   a user range the replay pushes around each kernel
//   WholeRange         one counter range for the whole range: asked for
//                      (--range-metrics whole), or per-kernel values of a
//                      range with graph launches (CUPTI's automatic ranges
//                      failed on replayed graph launches)
//   StandingRange      one-pass whole-range metrics: counter range number
//                      `index` of the standing pass (user ranges pushed and
//                      popped inside one CUPTI pass left open across ranges)
//
// Plain values and pure functions, tested on the CPU
// (tests/unit/tool/counter_layout_test.cpp). Thread-safety: none needed.
#pragma once

#include <cstddef>
#include <variant>

#include "tool/logic/counter_session.h"

namespace rangereplay::tool {

struct AutoKernelRanges {
  bool lead_in_flush = false;
  bool operator==(const AutoKernelRanges&) const = default;
};
struct UserKernelRanges {
  bool operator==(const UserKernelRanges&) const = default;
};
struct WholeRange {
  bool graph_launches = false;  // per-kernel values were asked for; graph launches made them whole-range
  bool operator==(const WholeRange&) const = default;
};
struct StandingRange {
  std::size_t index = 0;
  bool operator==(const StandingRange&) const = default;
};

using CounterLayout = std::variant<AutoKernelRanges, UserKernelRanges, WholeRange, StandingRange>;

/// The layout --range-metrics asks for, before anything about the range is
/// known: CUPTI's automatic per-kernel ranges, or one range for the whole.
CounterLayout configured_layout(bool per_kernel_metrics);

/// The layout of a range whose pass 0 only recorded, replayed on its own:
/// per-kernel values from CUPTI's automatic ranges (with the lead-in flush
/// when the tool flushes caches), or from user ranges around each kernel
/// with `user_kernel_ranges` (RANGEREPLAY_KERNEL_RANGES=user); whole-range
/// values when asked for, or when the range launched graphs.
CounterLayout layout_after_recording_pass0(bool per_kernel_metrics, bool graph_launches, bool user_kernel_ranges,
                                           bool cache_flush);

/// The layout of a range replayed in a batch of deferred ranges: a user
/// range per kernel, or one around the whole range (graph launches never
/// wait for a batch).
CounterLayout batched_layout(bool per_kernel_metrics);

/// The counter mode the backend is set to for the replay of a range of
/// `layout`; `configured` is the session's configured mode (the automatic
/// and standing layouts use it).
CounterMode counter_mode(const CounterLayout& layout, CounterMode configured);

/// Counter ranges one pass of a range of `kernels` kernels opens: one per
/// kernel (plus the lead-in flush's), or one.
std::size_t counter_ranges(const CounterLayout& layout, std::size_t kernels);

/// Whether each kernel gets its own values (the report's per-kernel rows).
bool per_kernel_values(const CounterLayout& layout);

/// What one counter range covered, as the report names it
/// (RangeRecord::counter_ranges): "auto", "user" or "whole".
const char* counter_ranges_name(const CounterLayout& layout);

/// Whether each replayed pass runs the lead-in flush after its counters
/// start (AutoKernelRanges with lead_in_flush).
bool has_lead_in_flush(const CounterLayout& layout);

/// The standing pass's counter range of a StandingRange layout; null
/// otherwise.
const std::size_t* standing_counter_range(const CounterLayout& layout);

}  // namespace rangereplay::tool
