// CounterSession: the process's hardware counters as the ranges use them,
// set up once (tool/cupti_counters.h) over a CounterBackend (the Range
// Profiler session and the metric evaluator): the passes the metric list
// needs, the counter image sized per range, and the standing pass.
//
// Image sizing: a one-pass range's image holds as many counter ranges as its
// name's last profiled range had kernels, a quarter more (plus 8), within the
// budget (kCounterImageBudgetBytes, at most 2048 ranges, or the
// max_kernels_per_range override), never fewer than last time, never more
// than the largest image; a name not seen yet gets the budget.
//
// The standing pass (one-pass metric lists with --range-metrics whole: one
// CUPTI pass in user-ranges mode left open across the ranges, each pushing
// its own counter range, their records pending until a flush) is its own
// class, StandingPass (tool/logic/standing_pass.h), owned here and reached
// through standing(); the session decides where it applies
// (standing_pass_eligible()) and times its start as any other.
//
// CUDA-free (tests/unit/tool/counter_session_test.cpp with a fake backend).
// Thread-safety: the range's thread only (the tool's lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"
#include "report/report_model.h"
#include "tool/logic/range_report.h"
#include "tool/logic/replay_window.h"
#include "tool/logic/standing_pass.h"

namespace rangereplay::tool {

/// How counter ranges are made (cupti::RangeProfilerSession::Mode).
enum class CounterMode { kPerKernel, kWholeRange, kUserRanges };

/// The mode --range-metrics asks for: whole-range metrics, or per kernel.
inline CounterMode configured_counter_mode(bool whole_range_metrics) {
  return whole_range_metrics ? CounterMode::kWholeRange : CounterMode::kPerKernel;
}

/// One PM sample of the pass: its start and end on the GPU's sample clock
/// (nanoseconds) and one value per metric, in MetricColumns order.
struct CounterSample {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::vector<double> values;
};

/// The calls a CounterSession makes: cupti::RangeProfilerSession's, and the
/// evaluation of its decoded counter data (MetricEvaluator); or PM
/// sampling's (PmSamplingCounterBackend, tool/logic/pm_sampling_backend.h).
class CounterBackend {
 public:
  virtual ~CounterBackend() = default;
  virtual Status set_mode(CounterMode mode) = 0;
  virtual Status resize(std::size_t max_ranges) = 0;
  virtual Status begin_range() = 0;
  virtual Status start_pass(const std::string& range_name) = 0;
  virtual StatusOr<bool> end_pass() = 0;
  virtual Status push_range(const std::string& range_name) = 0;
  virtual Status pop_range() = 0;
  /// Whole-range passes open with a lead-in counter range, ended by
  /// end_lead_in(range_name) (cupti::RangeProfilerSession::set_lead_in);
  /// pass_has_lead_in(): the pass open now (or the last) began with one.
  virtual Status set_lead_in(bool on) = 0;
  virtual Status end_lead_in(const std::string& range_name) = 0;
  virtual bool pass_has_lead_in() const = 0;
  /// Returns the counter ranges CUPTI dropped.
  virtual StatusOr<std::size_t> decode() = 0;
  /// Values of the decoded counter data: one row per counter range, one
  /// value per metric (MetricColumns order).
  virtual StatusOr<std::vector<std::vector<double>>> evaluate() const = 0;
  /// As evaluate(), with the rows whose entry in `wanted` is false left
  /// zeros, not evaluated (the rows past its end are evaluated): a batch's
  /// rows of the tool's own kernels. Backends that cannot leave rows out
  /// evaluate them all. Errors: as evaluate().
  virtual StatusOr<std::vector<std::vector<double>>> evaluate_rows(
      [[maybe_unused]] const std::vector<bool>& wanted) const {
    return evaluate();
  }
  /// Names of the decoded counter data's ranges, in evaluate()'s order (a
  /// user range's pushed name; CUPTI names its auto ranges itself); empty
  /// where the backend keeps none. Read only to explain a count CUPTI got
  /// wrong.
  virtual StatusOr<std::vector<std::string>> range_names() const { return std::vector<std::string>{}; }
  /// PM sampling backends: the samples the last decode() gave, in time order;
  /// empty for the range profiler (which has none).
  virtual std::vector<CounterSample> samples() const { return {}; }
  virtual bool in_pass() const = 0;
  virtual std::size_t max_ranges() const = 0;
  virtual std::size_t most_ranges() const = 0;
  virtual std::size_t bytes_per_range() const = 0;
  /// Application range replay (cupti::RangeProfilerSession's
  /// begin_application_pass): pass `pass` at nesting level `nesting` over
  /// the carried counter data (empty: a fresh image).
  virtual Status begin_application_pass(const std::vector<std::uint8_t>& carried, std::size_t pass,
                                        std::uint16_t nesting) = 0;
  /// The counter data image as the last pass left it, in bytes (empty where
  /// the backend keeps none); valid until the next call that begins a range
  /// or a pass, resizes or decodes.
  virtual std::span<const std::uint8_t> counter_data() const = 0;
  /// The pass and nesting level CUPTI asks for next (after end_pass).
  virtual std::size_t next_pass() const = 0;
  virtual std::size_t next_nesting_level() const = 0;
};

/// `backend`'s range_names(), or none when it cannot give them (the names
/// only explain a count CUPTI got wrong).
inline std::vector<std::string> range_names_or_none(const CounterBackend& backend) {
  StatusOr<std::vector<std::string>> names = backend.range_names();
  return names.ok() ? std::move(names).value() : std::vector<std::string>{};
}

struct CounterSessionOptions {
  std::uint32_t pass_count = 0;           // passes the metric list needs
  bool whole_range_metrics = false;       // --range-metrics whole (else per kernel)
  bool standing_pass = true;              // RANGEREPLAY_STANDING_PASS is not 0
  std::size_t max_kernels_per_range = 0;  // RANGEREPLAY_MAX_KERNELS_PER_RANGE; 0: the image budget decides
};

class CounterSession final : public CounterPasses {
 public:
  /// What the counter image of a range not seen yet may cost, in bytes (~9 KB
  /// per metric and kernel on GH100, copied at every range).
  static constexpr std::size_t kCounterImageBudgetBytes = std::size_t{64} << 20;

  /// `names` and `units`: the metric list's, in the order of each row of
  /// values. `debug`: one line per standing-pass event and the warm-up's
  /// (may be empty).
  CounterSession(std::unique_ptr<CounterBackend> backend, std::vector<std::string> names,
                 std::vector<std::string> units, const CounterSessionOptions& options,
                 std::function<void(const std::string&)> debug = {});
  // Neither copied nor moved: the standing pass refers to this session's
  // backend, metric names and debug callback.
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  std::uint32_t pass_count() const { return options_.pass_count; }
  MetricColumns columns() const { return {names_, units_}; }
  /// The mode --range-metrics asks for (a range may switch it for itself:
  /// graph ranges, the standing pass; it is set back after).
  CounterMode configured_mode() const { return configured_counter_mode(options_.whole_range_metrics); }
  CounterBackend& backend() { return *backend_; }
  const CounterBackend& backend() const { return *backend_; }

  /// Counter ranges the image of a one-pass range named `range_name` holds.
  std::size_t counter_ranges_for(const std::string& range_name) const;
  /// The kernels the last profiled range named `range_name` recorded.
  void remember_kernels(const std::string& range_name, std::size_t kernels) {
    kernels_by_range_name_[range_name] = kernels;
  }

  // CounterPasses: the backend's passes (the replay window's).
  Status start_pass(const std::string& range_name) override { return start_backend_pass(range_name); }
  StatusOr<bool> end_pass() override { return backend_->end_pass(); }
  bool in_pass() const override { return backend_->in_pass(); }
  Status push_range(const std::string& range_name) override { return backend_->push_range(range_name); }
  Status pop_range() override { return backend_->pop_range(); }

  /// Whether a counting range goes into the standing pass: a one-pass
  /// metric list, whole-range metrics, the standing pass not turned off.
  bool standing_pass_eligible() const;
  /// The standing pass, closed until a range pushes into it (used only where
  /// standing_pass_eligible()); it lives as long as this session. Its start
  /// is this session's start_pass (timed the first time); a flush sets the
  /// mode back to configured_mode().
  StandingPass& standing() { return standing_; }
  const StandingPass& standing() const { return standing_; }

  /// For a one-pass metric list, one empty counter pass (begin, start, end,
  /// decode, no work between) in the mode and at the image size the first range
  /// will most likely use: the standing pass's user ranges and
  /// StandingPass::kCounterRanges, per-kernel auto ranges at the image of a
  /// range name not seen yet, or one whole-range counter range (with a lead-in,
  /// the image of two, of which the pass pushes the lead-in only). CUPTI's
  /// first start in a process does one-time work that takes 0.4-0.7 s on an
  /// H200 and leaves lines dirty in L2 for the pass to write back; run here, at
  /// the set-up, it is neither in the first range's times nor in its counters.
  /// Nothing for a multi-pass list: an incomplete session leaves CUPTI's pass
  /// index where it stopped, whatever the next configuration names (the first
  /// range's values came out NaN on the H200). The mode is set back to
  /// configured_mode() either way. Call between ranges, with no pass open.
  /// Errors: the backend's (the caller may go on: every later range begins its
  /// own configuration).
  Status warm_up();
  /// Milliseconds warm_up() took (0 when it did not run).
  double warm_up_ms() const { return warm_up_ms_; }

  /// Milliseconds the session's first pass start took (CUPTI's first
  /// cuptiRangeProfilerStart in the process is the slow one), or 0 before it.
  double first_pass_start_ms() const { return first_pass_start_ms_; }

 private:
  // The backend's start_pass, timed the first time.
  Status start_backend_pass(const std::string& range_name);
  double first_pass_start_ms_ = 0;
  double warm_up_ms_ = 0;
  bool started_once_ = false;
  std::unique_ptr<CounterBackend> backend_;
  std::vector<std::string> names_, units_;
  CounterSessionOptions options_;
  std::function<void(const std::string&)> debug_;
  // Kernels per range name, from the last profiled range of that name.
  std::unordered_map<std::string, std::size_t> kernels_by_range_name_;
  // The standing pass over backend_, names_, units_ and debug_ (declared
  // after them: it is made from them).
  StandingPass standing_;
};

}  // namespace rangereplay::tool
