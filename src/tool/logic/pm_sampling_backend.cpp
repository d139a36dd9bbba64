// The counter session's PM sampling backend (see pm_sampling_backend.h).
#include "tool/logic/pm_sampling_backend.h"

namespace rangereplay::tool {

Status PmSamplingCounterBackend::begin_range() { return begin_application_pass({}, 0, 1); }

Status PmSamplingCounterBackend::begin_application_pass(const std::vector<std::uint8_t>& carried, std::size_t pass,
                                                        std::uint16_t /*nesting*/) {
  if (in_pass_) return failed_precondition("a PM sampling pass began inside another");
  if (pass != 0)
    return failed_precondition("PM sampling counts a range in one pass; pass " + std::to_string(pass + 1) +
                               " was asked for");
  if (!carried.empty())
    return failed_precondition("the carried counter data holds " + std::to_string(carried.size()) +
                               " bytes; PM sampling carries none (another configuration wrote it)");
  samples_.clear();
  begun_ = true;
  stopped_ = false;
  decoded_ = false;
  return ok_status();
}

Status PmSamplingCounterBackend::start_pass(const std::string& /*range_name*/) {
  if (in_pass_) return failed_precondition("PM sampling started inside a pass");
  if (!begun_) return failed_precondition("PM sampling started before its pass was begun");
  RR_RETURN_IF_ERROR(sampler_->start());
  begun_ = false;
  in_pass_ = true;
  return ok_status();
}

StatusOr<bool> PmSamplingCounterBackend::end_pass() {
  if (!in_pass_) return failed_precondition("PM sampling stopped outside a pass");
  in_pass_ = false;
  RR_RETURN_IF_ERROR(sampler_->stop());
  stopped_ = true;
  return true;
}

Status PmSamplingCounterBackend::end_lead_in(const std::string& /*range_name*/) {
  return failed_precondition("PM sampling passes have no lead-in range");
}

StatusOr<std::size_t> PmSamplingCounterBackend::decode() {
  if (!stopped_ || in_pass_) return failed_precondition("PM sampling decoded before its pass stopped");
  RR_ASSIGN_OR_RETURN(std::vector<CounterSample> samples, sampler_->decode());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].values.size() != metric_count_)
      return internal_error("PM sample " + std::to_string(i) + " holds " + std::to_string(samples[i].values.size()) +
                            " values for " + std::to_string(metric_count_) + " metrics");
  }
  samples_ = std::move(samples);
  decoded_ = true;
  return std::size_t{0};
}

StatusOr<std::vector<std::vector<double>>> PmSamplingCounterBackend::evaluate() const {
  if (!decoded_) return failed_precondition("PM sampling evaluated before its pass was decoded");
  if (samples_.empty())
    return unavailable(
        "PM sampling completed no sample in the range's window after its first (the counts from before the start, "
        "left out): its sums would be empty");
  std::vector<double> sums(metric_count_, 0.0);
  for (const CounterSample& sample : samples_) {
    for (std::size_t m = 0; m < metric_count_; ++m) sums[m] += sample.values[m];
  }
  return std::vector<std::vector<double>>{std::move(sums)};
}

}  // namespace rangereplay::tool
