// PmSamplingCounterBackend: the counter session's backend for `--set triage`,
// over PM sampling (cupti::PmSamplingSession, reached through the PmSampler
// interface) instead of the range profiler. A range is one pass: sampling
// starts at the range's begin and stops at its end, and the range's values
// are the sums of its samples (the triage list holds counts that add up
// over samples: instructions, cycles, bytes, sectors).
//
//   PmSamplingCounterBackend backend(std::move(sampler), metric_count);
//   RR_RETURN_IF_ERROR(backend.begin_application_pass({}, 0, 1));  // pass 0 only: forgets the last samples
//   RR_RETURN_IF_ERROR(backend.start_pass(name));                  // PmSampler::start
//   ... the range's work, drained ...
//   RR_ASSIGN_OR_RETURN(bool all, backend.end_pass());             // settle and stop; always true
//   RR_RETURN_IF_ERROR(backend.decode().status());                 // the samples
//   RR_ASSIGN_OR_RETURN(auto rows, backend.evaluate());            // one row: per-metric sums
//   backend.samples();                                             // the time series
//
// No pass is carried between runs (counter_data() is empty, next_pass() 1
// after the stop); modes, image sizes, lead-ins and pushed ranges do not
// apply and are accepted as no-ops. begin_range() begins a pass as
// begin_application_pass(pass 0) does, so a user-replay caller works too.
//
// CUDA-free (tests/unit/tool/pm_sampling_backend_test.cpp with a fake
// sampler). Thread-safety: the range's thread only (the tool's lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "tool/logic/counter_session.h"

namespace rangereplay::tool {

/// The PM sampling calls the backend makes (cupti::PmSamplingSession's, in
/// tool/pm_sampling_counters.h).
class PmSampler {
 public:
  virtual ~PmSampler() = default;
  /// Starts sampling (cuptiPmSamplingStart).
  virtual Status start() = 0;
  /// Waits for the last sample to complete, then stops sampling.
  virtual Status stop() = 0;
  /// The samples since the last start, evaluated, in time order; each
  /// holds one value per metric.
  virtual StatusOr<std::vector<CounterSample>> decode() = 0;
};

class PmSamplingCounterBackend final : public CounterBackend {
 public:
  /// `metric_count`: the values each sample holds (the session's columns).
  PmSamplingCounterBackend(std::unique_ptr<PmSampler> sampler, std::size_t metric_count)
      : sampler_(std::move(sampler)), metric_count_(metric_count) {}

  Status set_mode(CounterMode) override { return ok_status(); }
  Status resize(std::size_t) override { return ok_status(); }
  /// Begins a pass (as begin_application_pass at pass 0). Errors:
  /// failed_precondition inside a pass.
  Status begin_range() override;
  /// Starts sampling. Errors: failed_precondition inside a pass or before a
  /// pass is begun; the sampler's.
  Status start_pass(const std::string& range_name) override;
  /// Stops sampling (after the sampler's settle); true: the pass is the
  /// only one. The pass is closed even when the stop fails. Errors:
  /// failed_precondition outside a pass; the sampler's.
  StatusOr<bool> end_pass() override;
  Status push_range(const std::string&) override { return ok_status(); }
  Status pop_range() override { return ok_status(); }
  Status set_lead_in(bool) override { return ok_status(); }
  /// Errors: failed_precondition always (PM sampling passes have no lead-in).
  Status end_lead_in(const std::string& range_name) override;
  bool pass_has_lead_in() const override { return false; }
  /// Decodes the stopped pass's samples; returns 0 (no counter range is
  /// dropped: an overflow of the hardware buffer is the sampler's error).
  /// Errors: failed_precondition before a pass has stopped; internal when a
  /// sample holds another number of values than the metrics; the sampler's.
  StatusOr<std::size_t> decode() override;
  /// One row: per metric, the sum of the decoded samples' values. Errors:
  /// failed_precondition before decode(); unavailable when the pass
  /// completed no sample.
  StatusOr<std::vector<std::vector<double>>> evaluate() const override;
  std::vector<CounterSample> samples() const override { return samples_; }
  bool in_pass() const override { return in_pass_; }
  std::size_t max_ranges() const override { return 1; }
  std::size_t most_ranges() const override { return 1; }
  std::size_t bytes_per_range() const override { return 0; }
  /// Begins pass 0 and forgets the last samples. Errors: failed_precondition
  /// for another pass than 0, carried counter data (PM sampling carries
  /// none: another configuration wrote it) or inside a pass.
  Status begin_application_pass(const std::vector<std::uint8_t>& carried, std::size_t pass,
                                std::uint16_t nesting) override;
  /// Empty: nothing is carried to another run.
  std::span<const std::uint8_t> counter_data() const override { return {}; }
  /// 1 after end_pass (every pass done), 0 before.
  std::size_t next_pass() const override { return stopped_ ? 1 : 0; }
  std::size_t next_nesting_level() const override { return 1; }

 private:
  std::unique_ptr<PmSampler> sampler_;
  std::size_t metric_count_;
  std::vector<CounterSample> samples_;
  bool begun_ = false;    // a pass was begun and not started yet
  bool in_pass_ = false;  // sampling
  bool stopped_ = false;  // the pass was stopped (its samples wait for decode)
  bool decoded_ = false;  // samples_ hold the stopped pass's samples
};

}  // namespace rangereplay::tool
