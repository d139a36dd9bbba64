// PmSamplingSession: CUPTI's PM sampling (cupti_pmsampling.h, CUDA 13) on one
// device, for whole-range totals and their time series (`--set triage`).
// The GPU samples its performance monitors every interval into a hardware
// buffer between start() and stop(); decode() turns what the buffer holds
// into one PmSample per completed sample but the window's first (which holds
// the counts from before the start), evaluated with CUPTI's host API.
//
//   RR_ASSIGN_OR_RETURN(auto availability, cupti::pm_sampling_counter_availability(device));
//   RR_ASSIGN_OR_RETURN(auto chosen, cupti::select_pm_sampling_metrics(chip, availability, wanted));
//   RR_ASSIGN_OR_RETURN(auto s, cupti::PmSamplingSession::enable(device, chip, availability, chosen));  // once
//   RR_RETURN_IF_ERROR(s->start());   // after the range's begin has drained the device
//   ... the range's work, drained ...
//   RR_RETURN_IF_ERROR(s->stop());    // a settle, then cuptiPmSamplingStop
//   RR_ASSIGN_OR_RETURN(std::vector<cupti::PmSample> samples, s->decode());
//
// PM sampling takes single-pass configurations only (SetConfig refuses the
// others), so select_pm_sampling_metrics keeps the metrics of a list that fit
// in one pass together and names the rest. It is device-wide (every context
// on the GPU is sampled) and cannot run while a range profiler pass is open
// on the device (SetConfig: CUPTI_ERROR_HARDWARE_BUSY).
//
// Measured on an H100 (bench/cupti_pass_cost parts c1 and c4): a window
// sampled with its own start and stop, its counter data image sized to it,
// costs 4.65 ms; its sums against a range profiler pass: instructions equal,
// DRAM and L2 traffic within 1.2%. One start for several windows, with the
// samples shared out by %globaltimer stamps, does not work (c3: the sample
// clock is not %globaltimer's), hence a start and stop per range.
//
// Errors: CUPTI failures as Status (cupti_status.h: insufficient privileges ->
// kPermissionDenied). Nothing here throws: a failed allocation is
// kResourceExhausted. Thread-safety: one thread at a time (the range
// controller's); host-API calls hold host_api_mutex() (metric_catalog.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"

struct CUpti_PmSampling_Object;
struct CUpti_Profiler_Host_Object;

namespace rangereplay::cupti {

/// One completed PM sample: its start and end as CUPTI stamps them
/// (cuptiPmSamplingCounterDataGetSampleInfo, nanoseconds on the GPU's
/// sample clock, not %globaltimer's), and one value per metric in the
/// session's metric order (EvaluateToGpuValues: counts for .sum counters).
struct PmSample {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::vector<double> values;
};

/// The PM-sampling counter availability image of CUDA device `device`
/// (cuptiPmSamplingGetCounterAvailability, asked for its size, then filled).
/// Call it before the device's PM sampling is enabled: CUPTI may refuse it
/// while a profiling or sampling session is active on the device.
StatusOr<std::vector<std::uint8_t>> pm_sampling_counter_availability(int device);

/// The part of a metric list PM sampling collects on a chip in one pass.
struct PmSamplingSelection {
  std::vector<std::string> metrics;        // taken, in the order asked
  std::vector<std::string> missing;        // refused, in the order asked (see select_pm_sampling_metrics)
  std::vector<std::uint8_t> config_image;  // the taken metrics' PM sampling configuration (one pass)
};

/// Walks `wanted` in order and takes each metric that CUPTI's host API, for
/// CUPTI_PROFILER_TYPE_PM_SAMPLING on `chip` with `availability` (empty: every
/// counter of the chip), schedules together with the metrics taken before it
/// in one pass; a metric it refuses (not sampled on this chip or device) or
/// that would need a second pass goes to `missing`, which is no error.
/// Host-only: no GPU needed. Errors: kInvalidArgument with
/// DeclineReason::kUnknownMetric when none of `wanted` is taken (or `wanted`
/// is empty), naming the refused metrics; the host API's failures (an
/// unknown chip among them).
StatusOr<PmSamplingSelection> select_pm_sampling_metrics(const std::string& chip,
                                                         const std::vector<std::uint8_t>& availability,
                                                         const std::vector<std::string>& wanted);

class PmSamplingSession {
 public:
  /// The sampling interval asked for: 100 us on the GPU-time trigger.
  static constexpr std::uint64_t kIntervalNs = 100000;
  /// The hardware buffer CUPTI samples into, in the keep-oldest mode (an
  /// overflow is reported, not overwritten).
  static constexpr std::size_t kHardwareBufferBytes = std::size_t{256} << 20;
  /// The fewest samples a counter data image holds.
  static constexpr std::size_t kMinImageSamples = 16;
  /// The samples of the first window's image (25.6 ms at 100 us), before a
  /// window's length is known.
  static constexpr std::size_t kFirstImageSamples = 256;
  /// The largest counter data image decode() fills before it goes on in a
  /// fresh one (on GH100 about 25 KB per sample of a 5-metric list).
  static constexpr std::size_t kMaxImageBytes = std::size_t{64} << 20;

  /// Enables PM sampling on CUDA device `device` (cuptiPmSamplingEnable: once
  /// per device and process; it stays on until this session is destroyed),
  /// creates the host object that evaluates its samples (chip `chip`,
  /// `availability` as given to select_pm_sampling_metrics) and sets
  /// `selection`'s configuration with a GPU-time trigger every
  /// `interval_ns`, falling back to the sys-clock trigger (the same number
  /// taken as cycles) where the chip refuses the time trigger (Turing,
  /// GA100). Errors: kUnavailable when CUPTI says the device does not support
  /// PM sampling; kFailedPrecondition when PM sampling is already enabled on
  /// the device (another session of this process, or another tool);
  /// CUPTI_ERROR_HARDWARE_BUSY (a range profiler pass open on the device) and
  /// other CUPTI failures as Status.
  static StatusOr<std::unique_ptr<PmSamplingSession>> enable(int device, const std::string& chip,
                                                             const std::vector<std::uint8_t>& availability,
                                                             const PmSamplingSelection& selection,
                                                             std::uint64_t interval_ns = kIntervalNs);
  /// Stops a sampling left running, destroys the host object and disables
  /// PM sampling on the device (best effort: failures are ignored).
  ~PmSamplingSession();
  PmSamplingSession(const PmSamplingSession&) = delete;
  PmSamplingSession& operator=(const PmSamplingSession&) = delete;

  /// Lays out the blank counter data image decode() fills (decode's sizes),
  /// reads and drops the records of a window stopped but never decoded, then
  /// cuptiPmSamplingStart, then waits start_settle_us(interval()) for the
  /// window's first sample to close: that sample holds what the counters
  /// gathered before the start (since the enable or the last stop) and
  /// decode() leaves it out. The GPU samples from the start on. Errors:
  /// kFailedPrecondition when already started; CUPTI failures.
  Status start();
  /// Waits for a settle of 4 intervals and 0.5 ms (the sample holding the
  /// work's end completes), then cuptiPmSamplingStop. The session is stopped
  /// afterwards even when Stop fails. Errors: kFailedPrecondition when not
  /// started; CUPTI failures.
  Status stop();
  /// Decodes every record of the hardware buffer since the last start into
  /// counter data images and evaluates each completed sample but the first
  /// (the counts from before the start), in time order.
  /// The images are laid out at start(): kFirstImageSamples for the first
  /// window, then twice the samples of the longest window so far at the
  /// interval (at least kMinImageSamples, at most what fits in
  /// kMaxImageBytes); when one is full, decoding goes on into a fresh one.
  /// Errors: kFailedPrecondition while started or before a first stop;
  /// kResourceExhausted when the hardware buffer overflowed (samples lost:
  /// the message names the fix; PM sampling is then disabled and enabled
  /// again, so later windows sample as before) or an image cannot be
  /// allocated; CUPTI failures.
  StatusOr<std::vector<PmSample>> decode();

  bool started() const { return started_; }
  const std::vector<std::string>& metrics() const { return metrics_; }
  /// The interval as set: nanoseconds (time trigger) or sys-clock cycles.
  std::uint64_t interval() const { return interval_; }
  bool time_trigger() const { return time_trigger_; }
  /// Bytes one more sample adds to a counter data image (after enable()).
  std::size_t bytes_per_sample() const { return bytes_per_sample_; }
  /// The samples a counter data image gets for a window of `window_ns`
  /// nanoseconds sampled every `interval_ns` (ns, or sys-clock cycles with
  /// `time_trigger` false, taken at up to 2 GHz): twice the window's samples,
  /// at least kMinImageSamples, at most `most` (>= 1; kMinImageSamples
  /// wins when it is larger). Pure: tested without a GPU.
  static std::size_t image_samples(std::uint64_t window_ns, std::uint64_t interval_ns, bool time_trigger,
                                   std::size_t most);
  /// The settle stop() waits for, in microseconds: 4 intervals (a sys-clock
  /// interval's cycles taken as ns, an overestimate above 1 GHz) and 500.
  static std::uint64_t settle_us(std::uint64_t interval);
  /// The wait start() adds after cuptiPmSamplingStart, in microseconds: 2
  /// intervals (a sys-clock interval's cycles taken as ns) and 100.
  static std::uint64_t start_settle_us(std::uint64_t interval);

 private:
  // The object is set once cuptiPmSamplingEnable has made it.
  explicit PmSamplingSession(std::vector<std::string> metrics) : metrics_(std::move(metrics)) {}
  // cuptiPmSamplingSetConfig of config_image_ with the trigger and interval
  // given.
  Status set_config(bool time_trigger, std::uint64_t interval);
  // Disables the object and enables and configures a new one as before
  // (after a hardware-buffer overflow, which fails every later window of the
  // old one); the blank image is laid out again at the next start().
  Status reenable();
  // A blank image of `samples` samples in blank_ (GetCounterDataSize, then
  // CounterDataImageInitialize: the layout is the one of the object's last
  // size query); kept while the size asked stays the same.
  Status ensure_blank(std::size_t samples);
  StatusOr<std::size_t> image_bytes(std::size_t samples);
  // Evaluates the completed samples of `image` into `out`.
  Status collect(const std::vector<std::uint8_t>& image, std::vector<PmSample>& out) const;
  StatusOr<std::vector<PmSample>> decode_records();
  // The most samples an image of kMaxImageBytes holds (>= 1).
  std::size_t most_image_samples() const;

  CUpti_PmSampling_Object* object_ = nullptr;
  int device_ = 0;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  // Read by CUPTI after the calls that take them (the host object's
  // initialization, SetConfig): owned here while the session lives.
  std::vector<std::uint8_t> availability_;
  std::vector<std::uint8_t> config_image_;
  std::vector<std::string> metrics_;
  std::vector<const char*> metric_ptrs_;  // metrics_' c_str(), for CUPTI
  std::uint64_t interval_ = kIntervalNs;
  bool time_trigger_ = true;
  std::size_t bytes_per_sample_ = 0;
  std::size_t base_bytes_ = 0;  // an image's bytes besides its samples
  std::vector<std::uint8_t> blank_;
  std::size_t blank_samples_ = 0;
  bool started_ = false;
  bool stopped_once_ = false;
  bool undecoded_ = false;       // a window stopped whose records decode() has not read
  std::uint64_t window_ns_ = 0;  // the last start-stop window, on the host's steady clock
  std::int64_t started_at_ns_ = 0;
};

}  // namespace rangereplay::cupti
