// StandingPass: one CUPTI pass left open across the application's ranges,
// for one-pass metric lists with --range-metrics whole (CounterSession
// decides where it applies: standing_pass_eligible()).
//
// The first range opens the pass in user-ranges mode (set the mode, size the
// image to kCounterRanges, begin, start) and every range pushes and pops its
// own counter range (`name#k`: CUPTI merges user ranges of one name) in it;
// the ranges' report records wait (pending) until the pass is flushed: when
// its image is full (full()), at a range begin after a capture, at a
// teardown of the profiled context, and at exit. A flush ends the pass (one
// CUPTI stop), decodes, and writes each pending record's values, or declines
// it. At exit with a capture open, or after the profiled context ended, the
// pass is abandoned instead: its pending records decline without a CUPTI
// call.
//
//   StandingPass& standing = session.standing();
//   StatusOr<std::size_t> k = standing.push("step");       // opens it first
//   ... the range's work; backend.pop_range() at its end ...
//   standing.add_pending(record_index, *k);
//   if (standing.full()) standing.flush("its counter image is full", records, reporter);
//
// CUDA-free (tests/unit/tool/standing_pass_test.cpp, over CounterSession
// with a fake backend). Thread-safety: the range's thread only (the tool's
// lock), as its CounterSession.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/base/decline_reason.h"
#include "core/base/status.h"
#include "report/report_model.h"
#include "tool/logic/range_report.h"
#include "tool/logic/replay_window.h"

namespace rangereplay::tool {

class CounterBackend;
enum class CounterMode;

/// What a StandingPass uses of its counter session; every reference outlives
/// the StandingPass.
struct StandingPassParts {
  /// The mode, the image, the pushes, the pass's end, its decode and
  /// evaluation.
  CounterBackend& backend;
  /// Starts the CUPTI pass (CounterSession's start_pass, which times the
  /// process's first start).
  CounterPasses& passes;
  /// The metric list's names and units, in the order of each row of values.
  MetricColumns columns;
  /// The mode --range-metrics asks for; a flush sets the backend back to it.
  CounterMode configured_mode;
  /// One line per open, flush and abandon (may be empty).
  const std::function<void(const std::string&)>& debug;
};

class StandingPass {
 public:
  /// Counter ranges one standing pass holds (its image: ~6.6 KB per metric
  /// and range on GH100), or the backend's most_ranges() when fewer.
  static constexpr std::size_t kCounterRanges = 256;

  explicit StandingPass(StandingPassParts parts) : parts_(parts) {}
  StandingPass(const StandingPass&) = delete;
  StandingPass& operator=(const StandingPass&) = delete;

  /// Opens the pass (mode, image, begin, start) if it is not open;
  /// `range_name` names the CUPTI pass. Errors: the backend's (the pass
  /// stays closed).
  Status open(const std::string& range_name);
  /// Opens the pass if it is not open, then pushes the range's own counter
  /// range (`range_name#k`); returns k, its index in the pass. Errors: the
  /// backend's (the pass stays closed when opening it failed).
  StatusOr<std::size_t> push(const std::string& range_name);
  bool is_open() const { return open_; }
  /// The open pass has as many counter ranges as its image holds.
  bool full() const;
  /// The report record `record_index` (in the report's ranges) waits for the
  /// values of counter range `counter_range` of the open pass.
  void add_pending(std::size_t record_index, std::size_t counter_range) {
    pending_.push_back({record_index, counter_range});
  }
  /// The number of report records waiting for the pass's values.
  std::size_t pending() const { return pending_.size(); }
  /// The report records (indexes in the report's ranges) waiting for the
  /// pass's values, appended to `out`.
  void pending_records(std::vector<std::size_t>& out) const {
    for (const Pending& p : pending_) out.push_back(p.record_index);
  }
  /// Ends the pass (nothing when none is open) and writes each pending
  /// record of `records` (the report's ranges): its range metrics and a note
  /// naming `why`, or a decline through `reporter` (counters_unavailable, or
  /// the error's own reason: counter_ranges_mismatch when CUPTI returned
  /// fewer counter ranges than were pushed).
  /// The flush's time is shared among their decode_ms. The backend's mode is
  /// set back to the configured one. Nothing is left pending; the next push
  /// opens a new pass whose counter ranges count from 0.
  void flush(const char* why, std::vector<report::RangeRecord>& records, const RangeReporter& reporter);
  /// Gives up the pass without a CUPTI call (a stream capture is open at the
  /// process's exit: ending the pass would be a call the capture forbids;
  /// or the profiled context is gone): each pending record of `records`
  /// declines `reason` with `detail` through `reporter`, and nothing is left
  /// pending. Nothing when none is open. The CUPTI pass stays open; the
  /// process is ending.
  void abandon(DeclineReason reason, const std::string& detail, std::vector<report::RangeRecord>& records,
               const RangeReporter& reporter);

 private:
  StandingPassParts parts_;
  bool open_ = false;
  // Counter ranges pushed into the open pass so far.
  std::size_t pushed_ = 0;
  // A report record (index in the report's ranges) waiting for its counter
  // range.
  struct Pending {
    std::size_t record_index;
    std::size_t counter_range;
  };
  std::vector<Pending> pending_;
};

}  // namespace rangereplay::tool
