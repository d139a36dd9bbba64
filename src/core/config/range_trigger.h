// RangeTrigger: the injection's one door to range selection. It builds the
// range sources the configuration asks for from this range layer and
// answers every NVTX call, cu(da)ProfilerStart/Stop and kernel launch with
// the RangeEvent the tool acts on:
//
//   --nvtx-include/--nvtx-exclude  NvtxRangeTracker (push/pop, start/end, domains)
//   --profiler-api                 ProfilerApiRanges
//   --kernel-range A:B[,C:D]       KernelWindows, launches counted here
//   --skip/--range-count/--range-list  one RangeSelector, copied into each source
//
// Match numbers are per source (the CLI allows one source per run). At most
// one range is recorded at a time across sources: a kBegin from one source
// while another source's range is recorded becomes kDeclinedOverlap and its
// kEnd is swallowed. The trigger holds no CUDA types, so it is unit tested.
//
// Kernel windows: on_launch() is called at the API_ENTER of every kernel
// launch (not the tool's own); it numbers the launch and returns the kBegin
// to act on before the launch is recorded. When Launch::ends_after is set,
// after_launch() must be called at that launch's API_EXIT (the launch has
// then been submitted, so the range may end).
//
// Thread-safety: externally locked (the injection tool's lock), except
// counts_launches(), listens_to_nvtx() and listens_to_profiler_api(), which
// may be read from any thread without the lock (a stale true only costs a
// lock; the state is re-checked under it).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/config/profile_config.h"
#include "core/range/kernel_windows.h"
#include "core/range/nvtx_range_tracker.h"
#include "core/range/profiler_api_ranges.h"
#include "core/range/range_event.h"
#include "core/range/range_gate.h"
#include "core/range/range_selector.h"

namespace rangereplay::range {

class RangeTrigger {
 public:
  /// Builds the sources `config` asks for from its parsed values, each with
  /// config.ranges as its selector. Errors: kInvalidArgument when
  /// nvtx_exclude is given without nvtx_include (the launcher refuses that
  /// before the application starts, so this only fails on a hand-written
  /// config). Call once, before any other method.
  Status configure(const ProfileConfig& config);

  // NVTX, `thread_id` an opaque per-thread number, `domain` "" = default.
  std::optional<RangeEvent> on_push(std::uint64_t thread_id, std::string_view domain, std::string_view name);
  std::optional<RangeEvent> on_pop(std::uint64_t thread_id, std::string_view domain);
  std::optional<RangeEvent> on_start(std::uint64_t thread_id, std::string_view domain, std::string_view name,
                                     std::uint64_t range_id);
  std::optional<RangeEvent> on_end(std::uint64_t thread_id, std::uint64_t range_id);

  // cuProfilerStart (act at its API_EXIT) / cuProfilerStop (at its API_ENTER).
  std::optional<RangeEvent> on_profiler_start(std::uint64_t thread_id);
  std::optional<RangeEvent> on_profiler_stop(std::uint64_t thread_id);

  /// One application kernel launch at its API_ENTER.
  struct Launch {
    std::uint64_t index = 0;           // launch number in the process, from 0
    std::optional<RangeEvent> before;  // act on it before recording the launch
    bool ends_after = false;           // call after_launch(index) at API_EXIT
  };
  Launch on_launch(std::uint64_t thread_id);
  /// The API_EXIT of launch `index` whose Launch had ends_after: the kEnd of
  /// its window when that window is being recorded.
  std::optional<RangeEvent> after_launch(std::uint64_t thread_id, std::uint64_t index);

  /// Whether kernel launches must be passed to on_launch (windows configured
  /// and not all past).
  bool counts_launches() const { return counting_.load(std::memory_order_relaxed); }
  /// Whether NVTX calls can still begin or end a range.
  bool listens_to_nvtx() const { return nvtx_listening_.load(std::memory_order_relaxed); }
  /// Whether cuProfilerStart/Stop can still begin or end a range.
  bool listens_to_profiler_api() const { return profiler_listening_.load(std::memory_order_relaxed); }
  /// Launches counted so far.
  std::uint64_t launches() const { return launches_; }
  /// Whether a range is being recorded (between a forwarded kBegin and kEnd).
  bool recording() const { return recording_.has_value(); }

 private:
  // The recorded range: which source and match it came from.
  struct Recorded {
    RangeSource source = RangeSource::kNvtxPushPop;
    std::uint64_t match_index = 0;
    friend bool operator==(const Recorded&, const Recorded&) = default;
  };
  // Applies the one-recorded-range rule across sources.
  std::optional<RangeEvent> forward(std::optional<RangeEvent> event);
  void refresh_listening();

  std::unique_ptr<NvtxRangeTracker> nvtx_;
  std::unique_ptr<ProfilerApiRanges> profiler_api_;
  std::optional<KernelWindows> windows_;
  std::optional<RangeGate> window_gate_;
  std::optional<std::size_t> window_recorded_;  // window whose kBegin was forwarded
  std::uint64_t launches_ = 0;
  std::optional<Recorded> recording_;
  std::vector<Recorded> shadowed_;  // begun while another source recorded: their kEnd is dropped
  std::atomic<bool> counting_{false};
  std::atomic<bool> nvtx_listening_{false};
  std::atomic<bool> profiler_listening_{false};
};

}  // namespace rangereplay::range
