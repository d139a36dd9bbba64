// CUPTI's PM sampling on one device (see pm_sampling_session.h).
//
// Call sequence followed (cupti_pmsampling.h, cupti_profiler_host.h, CUDA 13;
// as bench/cupti_pass_cost's parts c1 and c4 ran it on an H100):
//   cuptiProfilerDeviceSupported(CUPTI_PROFILER_PM_SAMPLING)
//   cuptiPmSamplingGetCounterAvailability (before Enable)
//   host: cuptiProfilerHostInitialize(CUPTI_PROFILER_TYPE_PM_SAMPLING),
//         ConfigAddMetrics, GetConfigImage, GetNumOfPasses (must be 1)
//   cuptiPmSamplingEnable, cuptiPmSamplingSetConfig (once)
//   per window: Start, the work, a settle, Stop; GetCounterDataSize and
//   CounterDataImageInitialize (a blank image), DecodeData until the end of
//   the records, GetCounterDataInfo, per sample GetSampleInfo and
//   cuptiProfilerHostEvaluateToGpuValues
//   cuptiPmSamplingDisable, cuptiProfilerHostDeinitialize
#include "cupti/pm_sampling_session.h"

#include <cuda.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <new>
#include <thread>
#include <utility>

#include "cupti/cupti_params.h"
#include "cupti/cupti_status.h"
#include "cupti/metric_catalog.h"
#include "cupti/profiler_host_object.h"

namespace rangereplay::cupti {
namespace {

// start()'s error once reenable() could not make a new object.
constexpr const char* kNoObject =
    "PM sampling could not be set up again after its hardware buffer overflowed; profile shorter ranges";

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : ", ") + items[i];
  return out;
}

std::vector<const char*> c_strings(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(n.c_str());
  return out;
}

// A PM-sampling host object (cupti/profiler_host_object.h); callers hold
// host_api_mutex() while it lives.
class PmHostObject : public ProfilerHostObject {
 public:
  Status initialize(const std::string& chip, const std::vector<std::uint8_t>& availability) {
    return ProfilerHostObject::initialize(CUPTI_PROFILER_TYPE_PM_SAMPLING, chip, availability);
  }
};

// Needs host_api_mutex() held. The PM sampling configuration of `names` on a
// fresh host object, and its passes; an error when the host API refuses the
// list.
StatusOr<std::vector<std::uint8_t>> pm_config_locked(const std::string& chip,
                                                     const std::vector<std::uint8_t>& availability,
                                                     const std::vector<std::string>& names, std::size_t& passes) {
  PmHostObject host;
  RR_RETURN_IF_ERROR(host.initialize(chip, availability));
  RR_ASSIGN_OR_RETURN(std::vector<std::uint8_t> image, host.config_image(c_strings(names)));
  auto count = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  count.configImageSize = image.size();
  count.pConfigImage = image.data();
  RR_CUPTI(cuptiProfilerHostGetNumOfPasses(&count));
  passes = count.numOfPasses;
  return image;
}

StatusOr<PmSamplingSelection> select_locked(const std::string& chip, const std::vector<std::uint8_t>& availability,
                                            const std::vector<std::string>& wanted) {
  {
    // A chip the host API does not know would fail every trial below: an
    // error, not a list of missing metrics.
    PmHostObject chip_check;
    RR_RETURN_IF_ERROR(chip_check.initialize(chip, availability));
  }
  PmSamplingSelection selection;
  for (const std::string& metric : wanted) {
    std::vector<std::string> trial = selection.metrics;
    trial.push_back(metric);
    std::size_t passes = 0;
    StatusOr<std::vector<std::uint8_t>> image = pm_config_locked(chip, availability, trial, passes);
    if (image.ok() && passes == 1) {
      selection.metrics = std::move(trial);
      selection.config_image = std::move(image).value();
    } else {
      selection.missing.push_back(metric);
    }
  }
  if (selection.metrics.empty()) {
    return invalid_argument("PM sampling on " + chip + " collects none of the " + std::to_string(wanted.size()) +
                            " metrics asked for (" + join(wanted) +
                            "): it takes counters that one pass collects, on this device")
        .with_decline_reason(DeclineReason::kUnknownMetric);
  }
  return selection;
}

}  // namespace

StatusOr<std::vector<std::uint8_t>> pm_sampling_counter_availability(int device) {
  try {
    auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_GetCounterAvailability_Params);
    p.deviceIndex = static_cast<std::size_t>(device);
    RR_CUPTI(cuptiPmSamplingGetCounterAvailability(&p));
    std::vector<std::uint8_t> image(p.counterAvailabilityImageSize, 0);
    p.pCounterAvailabilityImage = image.data();
    RR_CUPTI(cuptiPmSamplingGetCounterAvailability(&p));
    return image;
  } catch (const std::bad_alloc&) {
    return resource_exhausted("no host memory for PM sampling's counter availability image");
  }
}

StatusOr<PmSamplingSelection> select_pm_sampling_metrics(const std::string& chip,
                                                         const std::vector<std::uint8_t>& availability,
                                                         const std::vector<std::string>& wanted) {
  if (wanted.empty())
    return invalid_argument("no metrics requested for PM sampling").with_decline_reason(DeclineReason::kUnknownMetric);
  try {
    std::lock_guard lock(host_api_mutex());
    return select_locked(chip, availability, wanted);
  } catch (const std::bad_alloc&) {
    return resource_exhausted("no host memory for PM sampling's configuration");
  }
}

StatusOr<std::unique_ptr<PmSamplingSession>> PmSamplingSession::enable(int device, const std::string& chip,
                                                                       const std::vector<std::uint8_t>& availability,
                                                                       const PmSamplingSelection& selection,
                                                                       std::uint64_t interval_ns) {
  if (selection.metrics.empty() || selection.config_image.empty())
    return invalid_argument("PM sampling enabled without metrics").with_decline_reason(DeclineReason::kUnknownMetric);
  auto supported = RR_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  supported.cuDevice = static_cast<CUdevice>(device);  // a CUdevice is its ordinal
  supported.api = CUPTI_PROFILER_PM_SAMPLING;
  RR_CUPTI(cuptiProfilerDeviceSupported(&supported));
  if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return unavailable("CUPTI does not support PM sampling on device " + std::to_string(device) + " (" + chip + ")");

  // CUPTI reads the availability image (through the host object) and the
  // configuration image (through the PM sampling object) after the calls
  // that take them return: with them freed, the first decode failed with
  // CUPTI_ERROR_UNKNOWN on an H100 and every later Start too. The session
  // owns both for its lifetime, and every allocation comes before the Enable.
  std::unique_ptr<PmSamplingSession> session;
  try {
    session.reset(new PmSamplingSession(selection.metrics));
    session->availability_ = availability;
    session->config_image_ = selection.config_image;
    session->metric_ptrs_ = c_strings(session->metrics_);
  } catch (const std::bad_alloc&) {
    return resource_exhausted("no host memory for PM sampling's session");
  }
  PmHostObject host;
  {
    std::lock_guard lock(host_api_mutex());
    RR_RETURN_IF_ERROR(host.initialize(chip, session->availability_));
  }
  auto on = RR_CUPTI_PARAMS(CUpti_PmSampling_Enable_Params);  // device-wide: every context on the GPU
  on.deviceIndex = static_cast<std::size_t>(device);
  const CUptiResult enabled = cuptiPmSamplingEnable(&on);
  if (enabled == CUPTI_ERROR_INVALID_OPERATION) {
    std::lock_guard lock(host_api_mutex());
    host.reset();
    return failed_precondition("PM sampling is already enabled on device " + std::to_string(device) +
                               " (one PM sampling session per device and process)");
  }
  if (enabled != CUPTI_SUCCESS) {
    std::lock_guard lock(host_api_mutex());
    host.reset();
    return cupti_status(enabled, "cuptiPmSamplingEnable", __FILE__, __LINE__);
  }
  // From here the session owns the object: its destructor disables it.
  session->object_ = on.pPmSamplingObject;
  session->device_ = device;
  session->host_ = host.release();
  Status set = session->set_config(true, interval_ns);
  if (!set.ok()) {
    // The chip may refuse the time trigger (Turing, GA100): the sys clock's.
    Status sysclk = session->set_config(false, interval_ns);
    if (!sysclk.ok() && sysclk.code() == StatusCode::kPermissionDenied) return sysclk;
    if (!sysclk.ok())
      return Status(sysclk.code(), "PM sampling's configuration was refused with the GPU-time trigger (" +
                                       set.message() + ") and with the sys-clock trigger (" + sysclk.message() + ")");
  }
  // An image's bytes per sample, for the images' sizes.
  RR_ASSIGN_OR_RETURN(const std::size_t one, session->image_bytes(1));
  RR_ASSIGN_OR_RETURN(const std::size_t two, session->image_bytes(2));
  session->bytes_per_sample_ = two > one ? two - one : 1;
  session->base_bytes_ = one > session->bytes_per_sample_ ? one - session->bytes_per_sample_ : 0;
  return session;
}

PmSamplingSession::~PmSamplingSession() {
  if (object_ != nullptr) {
    if (started_) {
      auto stop = RR_CUPTI_PARAMS(CUpti_PmSampling_Stop_Params);
      stop.pPmSamplingObject = object_;
      cuptiPmSamplingStop(&stop);  // best effort at teardown
    }
    auto off = RR_CUPTI_PARAMS(CUpti_PmSampling_Disable_Params);
    off.pPmSamplingObject = object_;
    cuptiPmSamplingDisable(&off);
  }
  if (host_ != nullptr) {
    std::lock_guard lock(host_api_mutex());
    auto p = RR_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = host_;
    cuptiProfilerHostDeinitialize(&p);
  }
}

Status PmSamplingSession::set_config(bool time_trigger, std::uint64_t interval) {
  auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_SetConfig_Params);
  p.pPmSamplingObject = object_;
  p.configSize = config_image_.size();
  p.pConfig = config_image_.data();
  p.hardwareBufferSize = kHardwareBufferBytes;
  p.samplingInterval = interval;  // ns (time trigger) or sys-clock cycles
  p.triggerMode = time_trigger ? CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL
                               : CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
  p.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;  // an overflow is reported
  RR_CUPTI(cuptiPmSamplingSetConfig(&p));
  interval_ = interval;
  time_trigger_ = time_trigger;
  return ok_status();
}

Status PmSamplingSession::reenable() {
  if (object_ != nullptr) {
    // Kept when it cannot be disabled: a new one could not be enabled beside
    // it, and every later window reports the failure.
    auto off = RR_CUPTI_PARAMS(CUpti_PmSampling_Disable_Params);
    off.pPmSamplingObject = object_;
    RR_CUPTI(cuptiPmSamplingDisable(&off));
    object_ = nullptr;
  }
  started_ = false;
  undecoded_ = false;
  blank_.clear();  // laid out for the old object
  blank_samples_ = 0;
  auto on = RR_CUPTI_PARAMS(CUpti_PmSampling_Enable_Params);
  on.deviceIndex = static_cast<std::size_t>(device_);
  RR_CUPTI(cuptiPmSamplingEnable(&on));
  object_ = on.pPmSamplingObject;
  return set_config(time_trigger_, interval_);
}

StatusOr<std::size_t> PmSamplingSession::image_bytes(std::size_t samples) {
  auto size = RR_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params);
  size.pPmSamplingObject = object_;
  size.pMetricNames = metric_ptrs_.data();
  size.numMetrics = metric_ptrs_.size();
  size.maxSamples = static_cast<std::uint32_t>(samples);
  RR_CUPTI(cuptiPmSamplingGetCounterDataSize(&size));
  return size.counterDataSize;
}

Status PmSamplingSession::ensure_blank(std::size_t samples) {
  if (samples == blank_samples_ && !blank_.empty()) return ok_status();
  blank_.clear();
  blank_samples_ = 0;
  // CounterDataImageInitialize takes only a size and a buffer: it lays the
  // image out as the object's last GetCounterDataSize asked, so the size is
  // asked for right before.
  RR_ASSIGN_OR_RETURN(const std::size_t bytes, image_bytes(samples));
  blank_.assign(bytes, 0);
  auto init = RR_CUPTI_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params);
  init.pPmSamplingObject = object_;
  init.counterDataSize = blank_.size();
  init.pCounterData = blank_.data();
  if (Status s = cupti_status(cuptiPmSamplingCounterDataImageInitialize(&init),
                              "cuptiPmSamplingCounterDataImageInitialize", __FILE__, __LINE__);
      !s.ok()) {
    blank_.clear();
    return s;
  }
  blank_samples_ = samples;
  return ok_status();
}

std::uint64_t PmSamplingSession::settle_us(std::uint64_t interval) { return 4 * interval / 1000 + 500; }

std::uint64_t PmSamplingSession::start_settle_us(std::uint64_t interval) { return 2 * interval / 1000 + 100; }

std::size_t PmSamplingSession::image_samples(std::uint64_t window_ns, std::uint64_t interval_ns, bool time_trigger,
                                             std::size_t most) {
  // A sys-clock interval counts cycles: at up to 2 GHz, 2 per ns.
  const std::uint64_t interval = std::max<std::uint64_t>(time_trigger ? interval_ns : interval_ns / 2, 1);
  const std::uint64_t window_samples = window_ns / interval + 1;
  const std::uint64_t wanted = std::max<std::uint64_t>(2 * window_samples, kMinImageSamples);
  return static_cast<std::size_t>(
      std::max<std::uint64_t>(std::min<std::uint64_t>(wanted, std::max<std::size_t>(most, 1)), kMinImageSamples));
}

Status PmSamplingSession::start() {
  if (started_) return failed_precondition("PM sampling started twice");
  if (object_ == nullptr) return failed_precondition(kNoObject);
  // The blank image is laid out before the start, as the probe that ran did
  // (bench/cupti_pass_cost, part c4): initialized after a stop, the first
  // decode into it failed with CUPTI_ERROR_UNKNOWN on an H100.
  const std::size_t most = most_image_samples();
  const std::size_t wanted = stopped_once_
                                 ? std::max(blank_samples_, image_samples(window_ns_, interval_, time_trigger_, most))
                                 : std::min(kFirstImageSamples, most);
  const std::size_t samples = std::max(wanted, kMinImageSamples);
  RR_RETURN_IF_ERROR(ensure_blank(samples));
  if (undecoded_) {
    // A window stopped and never decoded (a capture closed the range's pass,
    // or its decode failed): CUPTI fails the next Start with
    // CUPTI_ERROR_UNKNOWN and counts the old records into the window after,
    // so they are read and dropped first.
    undecoded_ = false;
    try {
      decode_records().status().ignore();
    } catch (const std::bad_alloc&) {
    }
    // A drain that met an overflow made the object anew (reenable), and the
    // image laid out for the old one was dropped.
    if (object_ == nullptr) return failed_precondition(kNoObject);
    if (blank_.empty()) RR_RETURN_IF_ERROR(ensure_blank(samples));
  }
  auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_Start_Params);
  p.pPmSamplingObject = object_;
  RR_CUPTI(cuptiPmSamplingStart(&p));
  started_ = true;
  started_at_ns_ = now_ns();
  // The window's first sample holds what the counters gathered before the
  // start (since the enable or the last stop: on an H100, the L2 flush that
  // precedes the range); decode() drops it, so it must close before the
  // application's work begins.
  std::this_thread::sleep_for(std::chrono::microseconds(start_settle_us(interval_)));
  return ok_status();
}

Status PmSamplingSession::stop() {
  if (!started_) return failed_precondition("PM sampling stopped without a start");
  // The sample holding the work's end completes before the stop.
  std::this_thread::sleep_for(std::chrono::microseconds(settle_us(interval_)));
  auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_Stop_Params);
  p.pPmSamplingObject = object_;
  const CUptiResult stopped = cuptiPmSamplingStop(&p);
  started_ = false;
  stopped_once_ = true;
  undecoded_ = true;
  window_ns_ = static_cast<std::uint64_t>(std::max<std::int64_t>(now_ns() - started_at_ns_, 0));
  return cupti_status(stopped, "cuptiPmSamplingStop", __FILE__, __LINE__);
}

Status PmSamplingSession::collect(const std::vector<std::uint8_t>& image, std::vector<PmSample>& out) const {
  auto info = RR_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params);
  info.pCounterDataImage = image.data();
  info.counterDataImageSize = image.size();
  RR_CUPTI(cuptiPmSamplingGetCounterDataInfo(&info));
  std::vector<const char*> names = metric_ptrs_;  // the host API takes a non-const array
  for (std::size_t i = 0; i < info.numCompletedSamples; ++i) {
    auto sample_info = RR_CUPTI_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params);
    sample_info.pPmSamplingObject = object_;
    sample_info.pCounterDataImage = image.data();
    sample_info.counterDataImageSize = image.size();
    sample_info.sampleIndex = i;
    RR_CUPTI(cuptiPmSamplingCounterDataGetSampleInfo(&sample_info));
    PmSample sample;
    sample.start_ns = sample_info.startTimestamp;
    sample.end_ns = sample_info.endTimestamp;
    sample.values.assign(metrics_.size(), 0.0);
    std::lock_guard lock(host_api_mutex());
    auto p = RR_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    p.pHostObject = host_;
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    p.rangeIndex = i;
    p.ppMetricNames = names.data();
    p.numMetrics = names.size();
    p.pMetricValues = sample.values.data();
    RR_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&p));
    out.push_back(std::move(sample));
  }
  return ok_status();
}

StatusOr<std::vector<PmSample>> PmSamplingSession::decode() {
  if (started_) return failed_precondition("PM sampling decoded while it samples (stop it first)");
  if (!stopped_once_) return failed_precondition("PM sampling decoded before a window was sampled");
  undecoded_ = false;
  try {
    RR_ASSIGN_OR_RETURN(std::vector<PmSample> samples, decode_records());
    // The first sample closed during start()'s settle, before the window's
    // work: it holds the counts from before the start.
    if (!samples.empty()) samples.erase(samples.begin());
    return samples;
  } catch (const std::bad_alloc&) {
    return resource_exhausted("no host memory for PM sampling's counter data images (" +
                              std::to_string(blank_samples_) + " samples of " + std::to_string(bytes_per_sample_) +
                              " bytes)");
  }
}

std::size_t PmSamplingSession::most_image_samples() const {
  return std::max<std::size_t>(
      (kMaxImageBytes - std::min(base_bytes_, kMaxImageBytes)) / std::max<std::size_t>(bytes_per_sample_, 1), 1);
}

StatusOr<std::vector<PmSample>> PmSamplingSession::decode_records() {
  if (blank_.empty()) return failed_precondition("PM sampling decoded with no counter data image laid out");
  std::vector<PmSample> samples;
  std::vector<std::uint8_t> image = blank_;
  // DecodeData may stop for reasons of its own (OTHER) and be called again;
  // a bound on such calls in a row keeps a CUPTI that never ends from
  // hanging the range.
  constexpr int kMaxIdleCalls = 1000;
  for (int idle = 0;;) {
    auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_DecodeData_Params);
    p.pPmSamplingObject = object_;
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    const CUptiResult decoded = cuptiPmSamplingDecodeData(&p);
    if (decoded == CUPTI_ERROR_OUT_OF_MEMORY || (decoded == CUPTI_SUCCESS && p.overflow != 0)) {
      // An overflowed object fails every later window: it is made anew.
      const Status renewed = reenable();
      return resource_exhausted(
          "PM sampling's hardware buffer (" + std::to_string(kHardwareBufferBytes >> 20) +
          " MiB) overflowed: the range ran too long to keep a sample every " + std::to_string(interval_ / 1000) +
          (time_trigger_ ? " us" : "k cycles") +
          "; profile shorter ranges (a narrower --nvtx-include or --profiler-api range)" +
          (renewed.ok() ? std::string() : "; PM sampling could not be set up again: " + renewed.message()));
    }
    if (Status s = cupti_status(decoded, "cuptiPmSamplingDecodeData", __FILE__, __LINE__); !s.ok()) {
      return Status(s.code(), s.message() + " (into an image of " + std::to_string(blank_samples_) + " samples, " +
                                  std::to_string(image.size()) + " bytes, after " + std::to_string(samples.size()) +
                                  " samples decoded, window " + std::to_string(window_ns_ / 1000) + " us)");
    }
    if (p.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS) {
      RR_RETURN_IF_ERROR(collect(image, samples));
      return samples;
    }
    if (p.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) {
      // This image's samples are kept; decoding goes on in a fresh one.
      const std::size_t before = samples.size();
      RR_RETURN_IF_ERROR(collect(image, samples));
      if (samples.size() == before)
        return internal_error("cuptiPmSamplingDecodeData filled a counter data image of " +
                              std::to_string(blank_samples_) + " samples without completing one");
      image = blank_;
      idle = 0;
      continue;
    }
    if (++idle >= kMaxIdleCalls)
      return internal_error("cuptiPmSamplingDecodeData reached no end of the records in " +
                            std::to_string(kMaxIdleCalls) + " calls");
  }
}

}  // namespace rangereplay::cupti
