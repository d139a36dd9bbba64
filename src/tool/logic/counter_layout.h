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
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "core/base/status.h"
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

/// The layout of a range replayed in a batch of several deferred ranges
/// (graph launches never wait for one): per-kernel values from CUPTI's
/// automatic ranges when the tool flushes caches (each member's L2 flush is
/// then a counter range before its kernels, so a kernel the automatic ranges
/// missed changes the count: batch_first_rows), from a user range pushed
/// around each kernel without the flush or with `user_kernel_ranges`
/// (RANGEREPLAY_KERNEL_RANGES=user); one user range around the whole range
/// for whole-range values. No lead-in flush: each member's own flush is in
/// the pass.
CounterLayout batched_layout(bool per_kernel_metrics, bool user_kernel_ranges, bool cache_flush);

/// Counter ranges of the tool's own kernels a batch member's pass may hold
/// before its replayed work under CUPTI's automatic ranges: its restore's
/// one launch (the digest kernel of a differential restore, which copies
/// what it decides there; none when the copy engines restore it) and its L2
/// flush.
/// The counter image of a batch is sized with them; a restore that launched
/// more would leave counter ranges out of the image, which batch_first_rows
/// then finds.
inline constexpr std::size_t kBatchToolKernelRanges = 2;

/// Counter ranges a batch's counter image is sized with for a member of
/// `kernels` kernels in `layout`: counter_ranges(), plus
/// kBatchToolKernelRanges under CUPTI's automatic ranges.
std::size_t batch_counter_ranges(const CounterLayout& layout, std::size_t kernels);

/// Where each member's rows begin in the values of a batch counted in
/// CUPTI's automatic ranges: member i's `kernels[i]` rows come after the
/// `tool_kernels_before[i]` rows of the tool's kernels that ran before its
/// work in each pass (ReplayWindow::tool_kernels_before), so `returned` must
/// be the sum of both. Sizes: both spans hold one entry per member.
/// Errors: counter_ranges_mismatch (naming `dropped` and `names`, the decode's)
/// when `returned` differs, or any was `dropped` (a kernel the automatic
/// ranges missed, or one they counted twice, would put every later value on
/// the wrong kernel; one dropped from a full image was one more).
StatusOr<std::vector<std::size_t>> batch_first_rows(std::span<const std::size_t> tool_kernels_before,
                                                    std::span<const std::size_t> kernels, std::size_t returned,
                                                    std::size_t dropped = 0, std::span<const std::string> names = {});

/// Which rows of a batch counted in CUPTI's automatic ranges hold the
/// members' kernels (true) rather than the tool's (false), in the layout
/// batch_first_rows reads: for each member, `tool_kernels_before[i]` rows of
/// the tool's, then `kernels[i]` of its own. Sizes: both spans hold one entry
/// per member; the result, their sums. Errors: none (spans of unequal sizes
/// give an empty result, which asks for every row).
std::vector<bool> batch_rows_wanted(std::span<const std::size_t> tool_kernels_before,
                                    std::span<const std::size_t> kernels);

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
