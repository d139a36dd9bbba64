// The report model: everything one profiled run produced, as plain values.
//
// The injection library fills a Report while the application runs and writes
// it as JSON (report_json.h) when the process exits; the launcher reads it
// back and renders it as a terminal table, JSON or CSV. Units are in the
// field names (_ms, _bytes). No CUDA types; thread-safety: plain values.
//
// The fields added to the JSON layout after its first release are
// std::optional: present (with the default shown) in every report the tool
// makes, nullopt only in a report read from a file that lacks them, so that
// writing it again does not invent their values (report_json.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rangereplay::report {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

/// One metric's value, named as Nsight Compute names it (e.g.
/// "dram__bytes_read.sum", unit "byte").
struct MetricValue {
  std::string name;
  std::string unit;
  double value = 0;
  friend bool operator==(const MetricValue&, const MetricValue&) = default;
};

/// One kernel launch of a range, in submission order.
struct KernelRecord {
  std::uint32_t index = 0;  // position in the range, from 0
  std::string name;         // demangled
  std::string mangled_name;
  Dim3 grid, block;
  std::uint32_t shared_mem_bytes = 0;
  std::uint64_t stream_id = 0;  // cuStreamGetId of the launch stream; 0 when unknown
  // The launch's number among the process's kernel launches (every thread, in
  // call order, from 0): `ncu --launch-skip <n> --launch-count 1` profiles the
  // same launch when no graph was launched before it (ncu counts a graph's
  // kernel nodes as launches, this does not). -1 for a graph's kernel node.
  std::optional<std::int64_t> launch_index = -1;
  std::vector<MetricValue> metrics;  // empty with whole-range metrics
  friend bool operator==(const KernelRecord&, const KernelRecord&) = default;
};

/// Wall time of each stage of one replay window, in milliseconds (host clock
/// around device-synchronized stages, device events where noted).
struct StageTimings {
  double sync_ms = 0;                    // drain the application's work at range begin + end
  double capture_ms = 0;                 // entry + exit snapshot capture
  double restore_ms = 0;                 // all restores of the window (entry before each replay, exit at end)
  double replay_submit_ms = 0;           // host time re-submitting recorded work
  double kernels_ms = 0;                 // device time of the replayed work (events)
  double counters_ms = 0;                // CUPTI pass start/stop (incl. its synchronization)
  double decode_ms = 0;                  // counter decode + metric evaluation
  double verify_ms = 0;                  // digests for --verify
  double window_ms = 0;                  // whole replay window: end of pass 0 to return to the app
  double begin_ms = 0;                   // range begin, before pass 0: drain, entry capture, counter start
  std::optional<double> pass0_ms = 0.0;  // pass 0: the application's own work in the range, begin to end
  double other_ms = 0;                   // window_ms - counters_ms - kernels_ms - restore_ms: the tool's own cost
  // --collectives replay: waiting for the job's other ranks at the range's
  // agreement and its window's barriers (part of window_ms and other_ms).
  std::optional<double> rendezvous_ms = 0.0;
  friend bool operator==(const StageTimings&, const StageTimings&) = default;
};

/// Snapshot bytes held by one storage tier for a range.
struct TierUsage {
  std::string tier;               // "device", "pinned"
  std::uint64_t bytes = 0;        // snapshot bytes placed on this tier
  std::uint64_t arena_bytes = 0;  // size of the tier's arena
  bool new_allocation = false;    // false when a retained arena was reused
  friend bool operator==(const TierUsage&, const TierUsage&) = default;
};

/// One allocation whose digest after a replay differs from the range-exit state.
struct Divergence {
  std::uint64_t address = 0;
  std::uint64_t size_bytes = 0;
  std::string origin;  // where it was allocated, if known
  friend bool operator==(const Divergence&, const Divergence&) = default;
};

/// One PM sample of a range profiled by --set triage: its interval from the
/// range's first sample, in milliseconds, and one value per range metric
/// (RangeRecord::range_metrics' order; the interval's share of each total).
struct MetricSample {
  double start_ms = 0;
  double end_ms = 0;
  std::vector<double> values;
  friend bool operator==(const MetricSample&, const MetricSample&) = default;
};

/// One replayed pass (pass 1..N-1).
struct PassRecord {
  std::uint32_t pass = 0;
  std::uint64_t restored_bytes = 0;     // snapshot bytes copied back before this pass (RangeRecord::restore)
  std::vector<Divergence> divergences;  // filled with --verify
  friend bool operator==(const PassRecord&, const PassRecord&) = default;
};

/// One matched range, replayed or declined.
struct RangeRecord {
  std::uint32_t index = 0;  // matched-range number, from 0
  std::string name;         // e.g. "step" or "cudaProfilerStart"
  bool declined = false;
  std::string decline_reason;         // a DeclineReason name when declined
  std::string decline_detail;         // one line: what exactly, and the fix
  std::uint32_t passes = 0;           // passes executed (1 + replays)
  std::uint64_t footprint_bytes = 0;  // bytes of all tracked regions
  std::uint32_t regions = 0;
  std::vector<TierUsage> tiers;
  // How passes were restored: "differential" (only the snapshot's 1 MiB
  // chunks whose digest differs), "full" (every snapshot byte), or empty when
  // nothing was replayed. A range falls back to "full" with a note when its
  // digest plan cannot be built, and when, as a member of a batch whose pass
  // holds CUPTI's automatic per-kernel ranges, the copy engines restore its
  // whole entry state.
  std::optional<std::string> restore = "";
  // What one counter range covered: "auto" (CUPTI's auto ranges, one per
  // kernel, each kernel made synchronous), "user" (a user range the tool
  // pushed around each replayed kernel), "whole" (one range for the whole
  // range), or empty when no counters ran.
  std::optional<std::string> counter_ranges = "";
  StageTimings timings;
  std::vector<KernelRecord> kernels;
  std::vector<MetricValue> range_metrics;  // with --range-metrics whole
  // --set triage only: the range's PM samples in time order, whose values
  // sum to range_metrics' (a range profiled otherwise has none); a long
  // range's consecutive samples are merged into at most 4096 points. Written
  // only when there are samples; a report without the key reads as none.
  std::optional<std::vector<MetricSample>> samples = std::vector<MetricSample>{};
  std::vector<PassRecord> pass_records;
  std::vector<std::string> notes;  // e.g. "2 device-to-host copies not re-executed"
  friend bool operator==(const RangeRecord&, const RangeRecord&) = default;
};

/// Where a profiled run's wall time went, in milliseconds (report/time_budget.h
/// reads it as rows). The injection fills what happens in the application's
/// process; the launcher its own checks, the wall time, the spans it sees
/// from outside (the application's start until the tool was loaded, the
/// exit) and the remainder, the application's own time outside ranges.
/// Clock stamps are of the system-wide monotonic clock (CLOCK_MONOTONIC,
/// steady_clock on Linux), which the launcher and the application share.
struct TimeBudget {
  double wall_ms = 0;             // launcher: from its start to the application's exit
  double launcher_checks_ms = 0;  // launcher: its checks before the application started
  double start_to_tool_ms = 0;    // launcher: the application's start until the tool's initialization
  // The gate wait and the counter set-up are the report's own gate_wait_ms
  // and setup_ms, not copied here (budget_rows reads them there).
  double first_pass_start_ms = 0;  // the process's first CUPTI pass start (set-up warm-up, a begin or window)
  double range_begins_ms = 0;      // every range's begin: drain, entry snapshot, counter start
  double in_ranges_ms = 0;         // the application's own work inside ranges (pass 0), under the tool
  double windows_ms = 0;           // every range's replay window
  double standing_flushes_ms = 0;  // standing-pass flushes during the run (the one at exit is in exit_ms)
  double exit_ms = 0;              // launcher: the tool's exit handler until the application ended
  double outside_ranges_ms = 0;    // launcher: the rest, the application's own time outside ranges
  double tool_start_clock_ms = 0;  // injection: the monotonic clock at the tool's initialization
  double exit_start_clock_ms = 0;  // injection: the monotonic clock when its exit handler began
  // Every range's rendezvous_ms: this rank's waits for the job's other ranks
  // (--collectives replay), part of windows_ms.
  std::optional<double> rendezvous_ms = 0.0;
  friend bool operator==(const TimeBudget&, const TimeBudget&) = default;
};

/// Environment variable values by name.
using Environment = std::map<std::string, std::string>;

/// A whole profiled run.
struct Report {
  std::string tool_version;
  std::string device_name;
  std::string chip_name;
  std::string driver_version;
  std::string compute_capability;             // e.g. "9.0"; empty when unknown
  std::uint32_t process_id = 0;               // the profiled process; 0 when unknown
  std::optional<std::string> host_name = "";  // the host it ran on (gethostname); empty when unknown
  // Values of the environment variables the launcher asked for (ProfileConfig::
  // report_environment) that were set in the profiled process, e.g. {"RANK": "1"}:
  // the rank of a multi-process job, and what %q{VAR} in --output names.
  std::optional<Environment> environment = Environment{};
  std::vector<std::string> command;  // application and its arguments
  std::vector<std::string> metrics;  // metric names collected: --metrics as typed, then the --set's
                                     // roles in the chip's spelling (before the counters are set up:
                                     // in their GH100 spelling)
  // The --set's roles the chip has under no name (e.g. lrc__* on Ampere and
  // Ada), by role name (GH100 spelling): not collected, not in `metrics`.
  std::optional<std::vector<std::string>> missing_metrics = std::vector<std::string>{};
  std::string range_metrics = "kernel";  // "kernel" (per kernel) or "whole"
  std::uint32_t pass_count = 0;          // passes the metric list needs
  // The counter backend that collected the values: "range_profiler" (CUPTI's
  // Range Profiler API, cupti_range_profiler.h) or "pm_sampling" (CUPTI's PM
  // sampling API, cupti_pmsampling.h: --set triage, ranges with samples);
  // empty when no counters were set up (every range declined before, or
  // application range replay's launcher report).
  std::optional<std::string> counter_backend = "";
  double setup_ms = 0;                       // counter configuration, once per process
  std::optional<double> launcher_ms = 0.0;   // how long the launcher held the application up: its checks before
                                             // the start plus gate_wait_ms (set by the launcher)
  std::optional<double> gate_wait_ms = 0.0;  // the application's wait at the launcher gate (its device checks),
                                             // when its first range began; 0 when there was no gate or no wait
  bool verify = false;                       // --verify: pass records carry divergences
  std::optional<std::string> cache_control = "none";  // --cache-control: "all" (L2 flushed before every counted
                                                      // pass) or "none"
  std::vector<RangeRecord> ranges;
  std::vector<std::string> errors;  // one-line errors that ended profiling early
  std::optional<TimeBudget> time_budget = TimeBudget{};
  friend bool operator==(const Report&, const Report&) = default;
};

}  // namespace rangereplay::report
