// RangeProfilerSession: the target side of CUPTI's Range Profiler API
// (cupti_range_profiler.h, CUDA 13) with user replay, for one context.
//
// Enabled once per context and configured once per metric list; each range
// then runs passes until CUPTI reports every pass submitted:
//
//   RR_ASSIGN_OR_RETURN(auto s, RangeProfilerSession::enable(ctx));          // once
//   RR_RETURN_IF_ERROR(s->configure(config_image, metric_names, max_ranges, mode));
//   RR_RETURN_IF_ERROR(s->begin_range());      // resets counter data, pass 0
//   do { s->start_pass(); /* work */ ; RR_ASSIGN_OR_RETURN(done, s->end_pass()); } while (!done);
//   RR_RETURN_IF_ERROR(s->decode());           // counter_data() now holds the range's values
//
// In per-kernel mode (CUPTI_AutoRange) every kernel between start and end is
// one counter range; in whole-range mode (CUPTI_UserRange) start_pass pushes
// one user range named `range_name` and end_pass pops it; with a lead-in
// (set_lead_in) start_pass pushes the lead-in range instead, end_lead_in pops it
// and pushes `range_name`, and the decoded data holds the lead-in's counter
// range first, the range's second. In user-ranges mode
// (CUPTI_UserRange, one pass) the caller pushes and pops up to max_ranges()
// ranges itself inside one pass: a pass left open across the application's
// ranges, so a one-pass metric list pays CUPTI's start and stop once.
// Errors: CUPTI failures as Status (insufficient privileges -> kPermissionDenied).
// Thread-safety: one thread at a time (the range controller's).
#pragma once

#include <cuda.h>
#include <cupti_range_profiler.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/base/zeroed_bytes.h"

namespace rangereplay::cupti {

class RangeProfilerSession {
 public:
  enum class Mode { kPerKernel, kWholeRange, kUserRanges };

  static StatusOr<std::unique_ptr<RangeProfilerSession>> enable(CUcontext ctx);
  ~RangeProfilerSession();
  RangeProfilerSession(const RangeProfilerSession&) = delete;
  RangeProfilerSession& operator=(const RangeProfilerSession&) = delete;

  /// Sizes the counter data image for `max_ranges` counter ranges per pass.
  /// The image grows with metrics x ranges (on GH100 ~9 KB per metric and
  /// range: 385 metrics x 2048 ranges is 6.9 GB, 6 s to initialize), so size
  /// it to the kernels a range really has (resize()).
  Status configure(std::vector<std::uint8_t> config_image, const std::vector<std::string>& metric_names,
                   std::size_t max_ranges, Mode mode);
  /// Re-sizes the counter data image for `max_ranges` (>= 1) ranges per pass;
  /// a no-op when already that size. A new size initializes counter_data()
  /// at once (the last range's decoded data is gone), for the begin_range()
  /// that must follow before any pass. Only between ranges (not in a pass).
  /// In whole-range mode the image always holds 1 range (2 with a lead-in).
  /// Errors: resource_exhausted when the image would exceed kMaxImageBytes.
  Status resize(std::size_t max_ranges);
  /// Switches the range mode for the following ranges (per-kernel auto
  /// ranges, or one user range per pass); only between ranges. Call resize()
  /// after it: a whole-range image holds 1 range (2 with a lead-in). Errors: failed_precondition
  /// inside a pass.
  Status set_mode(Mode mode);
  Mode mode() const { return mode_; }
  /// Whole-range user-replay passes open with a lead-in counter range of
  /// their own (kLeadInRange), for work whose counts are to be left out (a
  /// cache flush after CUPTI's start, which itself leaves lines dirty in L2);
  /// the caller ends it with end_lead_in(). Application-replay passes have
  /// none. Only between ranges; call resize() after it. Errors:
  /// failed_precondition inside a pass.
  Status set_lead_in(bool on);
  /// The lead-in counter range's name.
  static constexpr char kLeadInRange[] = "rangereplay.lead_in";
  /// The largest image a range may use (the session keeps it at most twice:
  /// the range's, and an initialized blank once a second range begins at
  /// that size), in bytes.
  static constexpr std::size_t kMaxImageBytes = std::size_t{2} << 30;
  /// The most ranges an image within kMaxImageBytes holds (>= 1).
  std::size_t most_ranges() const;
  /// Bytes one more counter range adds to the image (known after configure()).
  std::size_t bytes_per_range() const { return bytes_per_range_; }
  std::size_t max_ranges() const { return max_ranges_; }
  /// Re-initializes the counter data image and sets the configuration at pass 0.
  /// When the range type changes (per-kernel auto ranges to user ranges or
  /// back), or the last configuration's passes were left incomplete (a pass
  /// ended before CUPTI had every pass it needs: a range declined or stopped
  /// mid-way), it first replaces the CUPTI range profiler object (disable,
  /// enable) and re-initializes the image for it: an object's pass index
  /// goes on from where it stopped whatever passIndex says. Errors: CUPTI failures;
  /// after a failed replacement, kUnavailable for every later call.
  Status begin_range();
  /// Application range replay: sets the configuration for pass
  /// `pass_index` at nesting level `target_nesting_level` with
  /// CUPTI_ApplicationReplay (the application is run once per pass; this
  /// process collects one), over `carried`, the counter data an earlier
  /// run's passes left (empty: a fresh image, for pass 0). Whole-range mode
  /// only; then start_pass, the range's own work, end_pass, and
  /// counter_data() holds the image to carry to the next run. Every call but
  /// the process's first replaces the range profiler object (disable,
  /// enable), as does one after a user-replay configuration: an object's pass
  /// index goes on from its last pass, whatever passIndex says. Errors: failed_precondition outside whole-range
  /// mode, or for `carried` of another size than this configuration's image
  /// (another metric list or chip wrote it); CUPTI failures.
  Status begin_application_pass(std::span<const std::uint8_t> carried, std::size_t pass_index,
                                std::uint16_t target_nesting_level);
  /// The nesting level CUPTI asks for next (cuptiRangeProfilerStop's, after end_pass).
  std::size_t next_nesting_level() const { return next_nesting_level_; }
  Status start_pass(const std::string& range_name);
  /// Inside a pass that start_pass opened with a lead-in: pops the lead-in
  /// range and pushes `range_name` (renamed when it is the lead-in's own
  /// name). Errors: failed_precondition when no lead-in is open; CUPTI failures.
  Status end_lead_in(const std::string& range_name);
  /// Whether the pass open now (or the range's last one) began with a lead-in
  /// range; false again at begin_range and begin_application_pass.
  bool pass_has_lead_in() const { return pass_lead_in_; }
  /// User-ranges mode, inside a pass: opens / closes one counter range
  /// (nesting level 1). Errors: CUPTI failures.
  Status push_range(const std::string& range_name);
  Status pop_range();
  /// Ends the pass; returns true when CUPTI has every pass it needs.
  StatusOr<bool> end_pass();
  /// Decodes the collected passes into counter_data(); returns ranges dropped.
  StatusOr<std::size_t> decode();

  /// The counter data image (counter_data_bytes() bytes); valid until the
  /// next configure, resize, begin or decode.
  std::span<const std::uint8_t> counter_data() const { return counter_data_.span(); }
  /// Size of the counter data image in bytes (0 before configure()).
  std::size_t counter_data_bytes() const { return image_bytes_; }
  std::size_t pass_index() const { return pass_index_; }
  bool in_pass() const { return in_pass_; }
  CUcontext context() const { return ctx_; }

 private:
  RangeProfilerSession(CUcontext ctx, CUpti_RangeProfiler_Object* object) : ctx_(ctx), object_(object) {}
  CUcontext ctx_;
  CUpti_RangeProfiler_Object* object_;
  std::vector<std::uint8_t> config_image_;
  // Zero at allocation without being written (ZeroedBytes): a batch's image
  // of hundreds of MiB is touched only where CUPTI writes it.
  ZeroedBytes counter_data_;
  // An initialized image of image_bytes_, copied at begin_range; made only
  // when a second range begins at the same size (a batch's large image is
  // initialized in counter_data_ and used once: touching and copying a
  // second one of hundreds of MiB would cost more than its initialization).
  ZeroedBytes counter_data_blank_;
  std::size_t image_bytes_ = 0;
  bool counter_data_fresh_ = false;  // counter_data_ is initialized and unused
  Status size_image(std::size_t max_ranges);
  // cuptiRangeProfilerGetCounterDataSize for `ranges` counter ranges of the
  // metric list (the object's image layout from then on).
  StatusOr<std::size_t> image_size(std::size_t ranges) const;
  // Zeroes `image` to the size of an image of `ranges` counter ranges and
  // initializes it (the size asked for last, as CUPTI's layout requires).
  Status initialize_image(ZeroedBytes& image, std::size_t ranges);
  // Makes counter_data_ an initialized, unused image of image_bytes_.
  Status fresh_counter_data();
  // cuptiRangeProfilerSetConfig over counter_data_ (as the caller filled it).
  Status set_config(CUpti_ProfilerRange range, CUpti_ProfilerReplayMode replay, std::size_t pass_index,
                    std::uint16_t target_nesting_level);
  // One cuptiRangeProfilerPushRange / PopRange (whole-range passes and
  // user-ranges mode alike).
  Status push(const std::string& range_name);
  Status pop();
  // Ranges of the image tried once more when an image of the asked size
  // cannot be initialized.
  static constexpr std::size_t kFallbackRanges = 2048;
  std::vector<std::string> metric_names_;
  std::size_t max_ranges_ = 0;
  std::size_t bytes_per_range_ = 0;
  Mode mode_ = Mode::kPerKernel;
  std::size_t pass_index_ = 0;
  std::size_t next_nesting_level_ = 1;
  bool in_pass_ = false;
  bool lead_in_ = false;       // set_lead_in
  bool pass_lead_in_ = false;  // the current (or last) pass began with a lead-in
  bool lead_in_open_ = false;  // its lead-in range is still pushed
  bool whole_pushed_ = false;  // a whole-range pass has a user range pushed
  // Counter ranges a whole-range image holds: 1, or 2 with a lead-in.
  std::size_t whole_range_slots() const { return lead_in_ ? 2 : 1; }
  // The replay mode of the object's last cuptiRangeProfilerSetConfig.
  std::optional<CUpti_ProfilerReplayMode> configured_replay_;
  // Application-replay passes configured on this process's objects.
  std::size_t application_passes_ = 0;
  // The range type of the object's last cuptiRangeProfilerSetConfig: after
  // auto ranges, the same object refused a user range (push failed with
  // CUPTI_ERROR_INVALID_PARAMETER, H200), so begin_range makes a new object
  // when the type changes (re-enable).
  std::optional<CUpti_ProfilerRange> configured_range_;
  // A pass ended (or failed to) before CUPTI reported every pass submitted:
  // the object's pass index is not 0, so begin_range replaces it.
  bool passes_incomplete_ = false;
  Status reenable();
};

}  // namespace rangereplay::cupti
