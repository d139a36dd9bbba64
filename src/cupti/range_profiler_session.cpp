// Target side of the CUPTI Range Profiler API (see range_profiler_session.h).
#include "cupti/range_profiler_session.h"

#include <cupti_profiler_target.h>

#include <algorithm>

#include "cupti/cupti_status.h"

namespace rangereplay::cupti {

StatusOr<std::unique_ptr<RangeProfilerSession>> RangeProfilerSession::enable(CUcontext ctx) {
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  RR_CUPTI(cuptiProfilerInitialize(&init));
  CUpti_RangeProfiler_Enable_Params p{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  p.ctx = ctx;
  RR_CUPTI(cuptiRangeProfilerEnable(&p));
  return std::unique_ptr<RangeProfilerSession>(new RangeProfilerSession(ctx, p.pRangeProfilerObject));
}

RangeProfilerSession::~RangeProfilerSession() {
  if (object_ == nullptr) return;
  CUpti_RangeProfiler_Disable_Params p{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  cuptiRangeProfilerDisable(&p);  // best effort at teardown
}

Status RangeProfilerSession::configure(std::vector<std::uint8_t> config_image,
                                       const std::vector<std::string>& metric_names, std::size_t max_ranges,
                                       Mode mode) {
  config_image_ = std::move(config_image);
  metric_names_ = metric_names;
  mode_ = mode;
  max_ranges_ = 0;
  return size_image(mode == Mode::kWholeRange ? whole_range_slots() : std::max<std::size_t>(max_ranges, 1));
}

std::size_t RangeProfilerSession::most_ranges() const {
  return std::max<std::size_t>(kMaxImageBytes / std::max<std::size_t>(bytes_per_range_, 1), 1);
}

Status RangeProfilerSession::resize(std::size_t max_ranges) {
  if (in_pass_) return failed_precondition("counter data image resized inside a pass");
  const std::size_t wanted = mode_ == Mode::kWholeRange ? whole_range_slots() : std::max<std::size_t>(max_ranges, 1);
  if (wanted > most_ranges())
    return resource_exhausted("counter data for " + std::to_string(wanted) + " kernels x " +
                              std::to_string(metric_names_.size()) + " metrics would need " +
                              std::to_string(wanted * bytes_per_range_ >> 20) + " MiB of host memory (limit " +
                              std::to_string(kMaxImageBytes >> 20) + " MiB)");
  return wanted == max_ranges_ ? ok_status() : size_image(wanted);
}

Status RangeProfilerSession::set_mode(Mode mode) {
  if (in_pass_) return failed_precondition("range mode changed inside a pass");
  mode_ = mode;
  return ok_status();
}

Status RangeProfilerSession::set_lead_in(bool on) {
  if (in_pass_) return failed_precondition("lead-in changed inside a pass");
  lead_in_ = on;
  return ok_status();
}

Status RangeProfilerSession::size_image(std::size_t max_ranges) {
  // cuptiRangeProfilerCounterDataImageInitialize takes only a size and a
  // buffer: the image's layout is the one of the object's last
  // GetCounterDataSize call, so the size of the image to initialize must be
  // asked for last (initializing after a size query for another range count
  // fails with CUPTI_ERROR_UNKNOWN; seen on the H200).
  if (bytes_per_range_ == 0) {
    RR_ASSIGN_OR_RETURN(const std::size_t one, image_size(1));
    RR_ASSIGN_OR_RETURN(const std::size_t two, image_size(2));
    bytes_per_range_ = two > one ? two - one : 1;
  }
  // The blank of the former size is freed; the new image is initialized
  // where the next range uses it.
  counter_data_blank_.clear();
  counter_data_fresh_ = false;
  Status status = initialize_image(counter_data_, max_ranges);
  if (!status.ok() && max_ranges < kFallbackRanges) {
    // The fixed size this session used before images were sized per range.
    if (initialize_image(counter_data_, kFallbackRanges).ok()) max_ranges = kFallbackRanges, status = ok_status();
  }
  if (!status.ok()) {
    counter_data_.clear();
    image_bytes_ = 0;
    max_ranges_ = 0;
    return status;
  }
  image_bytes_ = counter_data_.size();
  counter_data_fresh_ = true;
  max_ranges_ = max_ranges;
  return ok_status();
}

StatusOr<std::size_t> RangeProfilerSession::image_size(std::size_t ranges) const {
  std::vector<const char*> names;
  names.reserve(metric_names_.size());
  for (const auto& n : metric_names_) names.push_back(n.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = object_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(ranges);
  RR_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
  return size.counterDataSize;
}

Status RangeProfilerSession::initialize_image(ZeroedBytes& image, std::size_t ranges) {
  RR_ASSIGN_OR_RETURN(const std::size_t bytes, image_size(ranges));
  image.clear();  // not two images of hundreds of MiB at once
  image = ZeroedBytes(bytes);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = object_;
  init.counterDataSize = image.size();
  init.pCounterData = image.data();
  RR_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init));
  return ok_status();
}

Status RangeProfilerSession::fresh_counter_data() {
  if (counter_data_fresh_) {
    counter_data_fresh_ = false;
    return ok_status();
  }
  if (image_bytes_ == 0) return failed_precondition("the counter data image is not sized (its sizing failed)");
  if (counter_data_blank_.size() != image_bytes_) {
    Status made = initialize_image(counter_data_blank_, max_ranges_);
    if (made.ok() && counter_data_blank_.size() != image_bytes_)
      made = internal_error("the counter data image of " + std::to_string(max_ranges_) + " ranges came out " +
                            std::to_string(counter_data_blank_.size()) + " bytes, not " + std::to_string(image_bytes_));
    if (!made.ok()) {
      // Not kept half made: the next range initializes it again.
      counter_data_blank_.clear();
      return made;
    }
  }
  counter_data_ = counter_data_blank_;
  return ok_status();
}

Status RangeProfilerSession::reenable() {
  // The configuration is the new object's to set: forget the old one's
  // range type and replay mode whatever happens below.
  configured_range_.reset();
  configured_replay_.reset();
  passes_incomplete_ = false;
  if (object_ != nullptr) {
    CUpti_RangeProfiler_Disable_Params off{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    off.pRangeProfilerObject = object_;
    RR_CUPTI(cuptiRangeProfilerDisable(&off));
    object_ = nullptr;
  }
  CUpti_RangeProfiler_Enable_Params on{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  on.ctx = ctx_;
  RR_CUPTI(cuptiRangeProfilerEnable(&on));
  object_ = on.pRangeProfilerObject;
  // The counter data image belongs to the object that initialized it.
  return size_image(std::max<std::size_t>(max_ranges_, 1));
}

Status RangeProfilerSession::begin_range() {
  const CUpti_ProfilerRange range = mode_ == Mode::kPerKernel ? CUPTI_AutoRange : CUPTI_UserRange;
  // No object: a re-enable failed; every later range fails the same way.
  if (object_ == nullptr) return unavailable("the range profiler could not be enabled again for a new range type");
  // After an incomplete pass sequence the object's next pass would not be
  // pass 0 (a multi-pass warm-up left it at pass 1, and the next range's
  // values came out NaN on the H200).
  if (passes_incomplete_ || (configured_range_ && *configured_range_ != range)) RR_RETURN_IF_ERROR(reenable());
  RR_RETURN_IF_ERROR(fresh_counter_data());
  pass_lead_in_ = false;
  return set_config(range, CUPTI_UserReplay, 0, 1);
}

Status RangeProfilerSession::set_config(CUpti_ProfilerRange range, CUpti_ProfilerReplayMode replay,
                                        std::size_t pass_index, std::uint16_t target_nesting_level) {
  CUpti_RangeProfiler_SetConfig_Params p{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  p.configSize = config_image_.size();
  p.pConfig = config_image_.data();
  p.counterDataImageSize = counter_data_.size();
  p.pCounterDataImage = counter_data_.data();
  p.range = range;
  p.replayMode = replay;
  p.maxRangesPerPass = max_ranges_;
  p.numNestingLevels = 1;
  p.minNestingLevel = 1;
  p.passIndex = pass_index;
  p.targetNestingLevel = target_nesting_level;
  RR_CUPTI(cuptiRangeProfilerSetConfig(&p));
  configured_range_ = range;
  configured_replay_ = replay;
  pass_index_ = pass_index;
  return ok_status();
}

Status RangeProfilerSession::begin_application_pass(std::span<const std::uint8_t> carried, std::size_t pass_index,
                                                    std::uint16_t target_nesting_level) {
  if (mode_ != Mode::kWholeRange) return failed_precondition("application range replay counts whole ranges only");
  if (in_pass_) return failed_precondition("begin_application_pass inside a pass");
  if (object_ == nullptr) return unavailable("the range profiler could not be enabled again for a new range type");
  // A fresh object for every range after the first of a process: after one
  // application-replay pass the object's pass index went on from there
  // whatever passIndex the next cuptiRangeProfilerSetConfig named (a second
  // range configured for pass 0 stopped at pass index 2; H200), and so does
  // one configured for user replay before.
  if (application_passes_ > 0 || (configured_replay_ && *configured_replay_ != CUPTI_ApplicationReplay))
    RR_RETURN_IF_ERROR(reenable());
  if (!carried.empty() && carried.size() != image_bytes_) {
    return failed_precondition("the carried counter data holds " + std::to_string(carried.size()) +
                               " bytes, this configuration's image " + std::to_string(image_bytes_) +
                               ": another metric list or GPU wrote it");
  }
  if (carried.empty()) {
    RR_RETURN_IF_ERROR(fresh_counter_data());
  } else {
    counter_data_.assign(carried);
    counter_data_fresh_ = false;
  }
  pass_lead_in_ = false;
  RR_RETURN_IF_ERROR(set_config(CUPTI_UserRange, CUPTI_ApplicationReplay, pass_index, target_nesting_level));
  ++application_passes_;
  return ok_status();
}

namespace {

// The name only labels the counter range (values are read by position):
// letters, digits, '_', '#' and '.' are kept, anything else becomes '_' (a
// kernel window's name, "kernels 6:9", was refused with
// CUPTI_ERROR_INVALID_PARAMETER on the H200).
std::string counter_range_name(const std::string& range_name) {
  std::string name = range_name.empty() ? std::string("range") : range_name;
  for (char& c : name) {
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '#' || c == '.';
    if (!plain) c = '_';
  }
  return name;
}

}  // namespace

Status RangeProfilerSession::push(const std::string& range_name) {
  const std::string name = counter_range_name(range_name);
  CUpti_RangeProfiler_PushRange_Params push{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
  push.pRangeProfilerObject = object_;
  push.pRangeName = name.c_str();
  RR_CUPTI(cuptiRangeProfilerPushRange(&push));
  if (mode_ == Mode::kWholeRange) whole_pushed_ = true;
  return ok_status();
}

Status RangeProfilerSession::pop() {
  CUpti_RangeProfiler_PopRange_Params pop{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
  pop.pRangeProfilerObject = object_;
  whole_pushed_ = false;
  RR_CUPTI(cuptiRangeProfilerPopRange(&pop));
  return ok_status();
}

Status RangeProfilerSession::start_pass(const std::string& range_name) {
  CUpti_RangeProfiler_Start_Params p{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  RR_CUPTI(cuptiRangeProfilerStart(&p));
  in_pass_ = true;
  pass_lead_in_ = false;
  lead_in_open_ = false;
  if (mode_ == Mode::kWholeRange) {
    const bool lead_in = lead_in_ && configured_replay_ == CUPTI_UserReplay && max_ranges_ >= 2;
    if (Status pushed = push(lead_in ? std::string(kLeadInRange) : range_name); !pushed.ok()) {
      // Leave no pass open behind a failed start.
      CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
      stop.pRangeProfilerObject = object_;
      cuptiRangeProfilerStop(&stop);
      in_pass_ = false;
      return pushed;
    }
    pass_lead_in_ = lead_in_open_ = lead_in;
  }
  return ok_status();
}

Status RangeProfilerSession::end_lead_in(const std::string& range_name) {
  if (!in_pass_ || !lead_in_open_) return failed_precondition("end_lead_in without an open lead-in range");
  RR_RETURN_IF_ERROR(pop());
  lead_in_open_ = false;
  // The range's own push; end_pass pops it. (Two user ranges of one name
  // would be merged into one counter range.)
  return push(counter_range_name(range_name) == kLeadInRange ? range_name + "#range" : range_name);
}

Status RangeProfilerSession::push_range(const std::string& range_name) {
  if (!in_pass_ || mode_ != Mode::kUserRanges) return failed_precondition("push_range outside a user-ranges pass");
  return push(range_name);
}

Status RangeProfilerSession::pop_range() {
  if (!in_pass_ || mode_ != Mode::kUserRanges) return failed_precondition("pop_range outside a user-ranges pass");
  return pop();
}

StatusOr<bool> RangeProfilerSession::end_pass() {
  // Stop is called even when the pop fails, so the pass is always closed.
  // Whichever whole-range user range is pushed: the range's, or a lead-in
  // that end_lead_in did not end (none after a push that failed there).
  const Status popped = mode_ == Mode::kWholeRange && whole_pushed_ ? pop() : ok_status();
  lead_in_open_ = false;
  CUpti_RangeProfiler_Stop_Params p{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  const CUptiResult stopped = cuptiRangeProfilerStop(&p);
  in_pass_ = false;
  passes_incomplete_ = stopped != CUPTI_SUCCESS || p.isAllPassSubmitted == 0;
  RR_RETURN_IF_ERROR(popped);
  if (stopped != CUPTI_SUCCESS) return cupti_status(stopped, "cuptiRangeProfilerStop", __FILE__, __LINE__);
  pass_index_ = p.passIndex;
  next_nesting_level_ = p.targetNestingLevel;
  return p.isAllPassSubmitted != 0;
}

StatusOr<std::size_t> RangeProfilerSession::decode() {
  CUpti_RangeProfiler_DecodeData_Params p{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  RR_CUPTI(cuptiRangeProfilerDecodeData(&p));
  return p.numOfRangeDropped;
}

}  // namespace rangereplay::cupti
