// The counter session's CUPTI side (tool/logic/counter_session.h): its backend over
// cupti::RangeProfilerSession and the MetricEvaluator; cupti_counters.cpp
// defines counter_setup.h's once-per-process set-up (chip, Range Profiler
// enable, counter availability, config image, counter data image) with it.
//
// Thread-safety: the range's thread only (the tool's lock).
#pragma once

#include <cuda.h>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "cupti/range_profiler_session.h"
#include "tool/counter_setup.h"
#include "tool/logic/counter_session.h"
#include "tool/metric_evaluator.h"

namespace rangereplay::tool {

/// The session's mode for a CounterMode.
cupti::RangeProfilerSession::Mode session_mode(CounterMode mode);

class CuptiCounterBackend final : public CounterBackend {
 public:
  CuptiCounterBackend(std::unique_ptr<cupti::RangeProfilerSession> session, std::unique_ptr<MetricEvaluator> evaluator)
      : session_(std::move(session)), evaluator_(std::move(evaluator)) {}
  Status set_mode(CounterMode mode) override { return session_->set_mode(session_mode(mode)); }
  Status resize(std::size_t max_ranges) override { return session_->resize(max_ranges); }
  Status begin_range() override { return session_->begin_range(); }
  Status start_pass(const std::string& range_name) override { return session_->start_pass(range_name); }
  StatusOr<bool> end_pass() override { return session_->end_pass(); }
  Status push_range(const std::string& range_name) override { return session_->push_range(range_name); }
  Status pop_range() override { return session_->pop_range(); }
  Status set_lead_in(bool on) override { return session_->set_lead_in(on); }
  Status end_lead_in(const std::string& range_name) override { return session_->end_lead_in(range_name); }
  bool pass_has_lead_in() const override { return session_->pass_has_lead_in(); }
  StatusOr<std::size_t> decode() override { return session_->decode(); }
  StatusOr<std::vector<std::vector<double>>> evaluate() const override {
    return evaluator_->evaluate(session_->counter_data());
  }
  StatusOr<std::vector<std::vector<double>>> evaluate_rows(const std::vector<bool>& wanted) const override {
    return evaluator_->evaluate(session_->counter_data(), wanted);
  }
  StatusOr<std::vector<std::string>> range_names() const override;
  bool in_pass() const override { return session_->in_pass(); }
  std::size_t max_ranges() const override { return session_->max_ranges(); }
  std::size_t most_ranges() const override { return session_->most_ranges(); }
  std::size_t bytes_per_range() const override { return session_->bytes_per_range(); }
  Status begin_application_pass(const std::vector<std::uint8_t>& carried, std::size_t pass,
                                std::uint16_t nesting) override {
    return session_->begin_application_pass(carried, pass, nesting);
  }
  std::span<const std::uint8_t> counter_data() const override { return session_->counter_data(); }
  std::size_t next_pass() const override { return session_->pass_index(); }
  std::size_t next_nesting_level() const override { return session_->next_nesting_level(); }

 private:
  std::unique_ptr<cupti::RangeProfilerSession> session_;
  std::unique_ptr<MetricEvaluator> evaluator_;
};

}  // namespace rangereplay::tool
