// Why a range could not be replayed soundly, and the object that decides it.
//
// A declined range runs once, unchanged (pass 0 is the application's own
// execution), the report lists it with one DeclineReason, and the rest of the
// run continues. The reason names are the words the report prints and
// docs/limitations.md explains: they are stable, snake_case, and never reused
// for another meaning. Every reason carries a one-line explanation and a
// one-line fix the user can apply.
//
//   Eligibility e;
//   e.observe_operation(ctx, device, /*runs_kernels=*/true);
//   if (module_loaded) e.decline(DeclineReason::kModuleLoadInRange, "cuModuleLoadData");
//   e.finish();                       // at the end of pass 0
//   if (e.declined()) record.decline_reason = decline_reason_name(*e.reason());
//
// No CUDA types: contexts and devices are opaque ids supplied by the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rangereplay {

/// Most operations (kernel launches, copies, memsets, event records, waits,
/// graph launches) one range may record; one more declines the range with
/// kTooManyOperations. Bounds the recorder's memory and the replay's
/// re-submission time (~1.5 us per operation: ~0.1 s per pass at the cap).
inline constexpr std::uint64_t kMaxRecordedOperations = 65536;

/// Most host-to-device source bytes one range may capture at record time
/// (1 GiB); more declines the range with kHostDataTooLarge.
inline constexpr std::uint64_t kMaxCapturedHostBytes = std::uint64_t{1} << 30;

/// Every reason a range is declined. Names (decline_reason_name) are stable.
enum class DeclineReason : std::uint8_t {
  kAllocationInRange,      // allocation_in_range
  kFreeInRange,            // free_in_range
  kModuleLoadInRange,      // module_load_in_range
  kModuleUnloadInRange,    // module_unload_in_range
  kUnsupportedApi,         // unsupported_api (the call is named in the detail)
  kStreamCaptureActive,    // stream_capture_active
  kHostFunctionInRange,    // host_function_in_range
  kTooManyOperations,      // too_many_operations (kMaxRecordedOperations)
  kHostDataTooLarge,       // host_data_too_large (kMaxCapturedHostBytes)
  kSnapshotDoesNotFit,     // snapshot_does_not_fit
  kCountersUnavailable,    // counters_unavailable
  kCountersNotPermitted,   // counters_not_permitted
  kNoKernelInRange,        // no_kernel_in_range
  kMultipleContexts,       // multiple_contexts
  kMultipleDevices,        // multiple_devices
  kUnknownMetric,          // unknown_metric
  kReplayFailed,           // replay_failed
  kOverlappingRange,       // overlapping_range
  kRangeNotClosed,         // range_not_closed
  kGraphDestroyedInRange,  // graph_destroyed_in_range
  kCollectiveInRange,      // collective_in_range
  kModuleGlobalsInRange,   // module_globals_in_range
  kPeerDeclined,           // peer_declined (--collectives replay: another rank declined the range)
  kRendezvousFailed,       // rendezvous_failed (--collectives replay: the ranks did not meet or agree)
  // nondeterministic_application (application range replay only)
  kNondeterministicApplication,
  kWriteSetLearned,   // write_set_learned (write-set snapshots, core/snapshot/write_set.h)
  kWriteSetExceeded,  // write_set_exceeded (write-set snapshots, core/snapshot/write_set.h)
  // app_range_incomplete (application range replay only: its runs ended
  // before the range's last pass)
  kAppRangeIncomplete,
  kNoContext,  // no_context (no CUDA context was current on the thread that began the range)
  // counter_ranges_mismatch (CUPTI returned a different number of counter
  // ranges than the pass opened, so values cannot be matched to their kernels or ranges)
  kCounterRangesMismatch,
  // process_ended (a report rebuilt from the journal: the process ended
  // before a deferred or standing-pass range's counters were read)
  kProcessEnded,
};

/// Every reason, in declaration order (for docs checks and listings).
std::span<const DeclineReason> all_decline_reasons();

/// Stable snake_case name, e.g. "free_in_range".
std::string_view decline_reason_name(DeclineReason reason);

/// The reason named `name` (exact, case-sensitive), or nullopt.
std::optional<DeclineReason> decline_reason_from_name(std::string_view name);

/// One line: what happened and why it prevents a sound replay.
std::string_view decline_reason_explanation(DeclineReason reason);

/// One line: what the user can do about it.
std::string_view decline_reason_fix(DeclineReason reason);

/// The report's one-line decline detail: "<detail>; <fix>", or just the fix
/// when `detail` is empty.
std::string decline_report_detail(DeclineReason reason, std::string_view detail);

/// Caps an Eligibility enforces. Defaults are the documented caps.
struct EligibilityLimits {
  std::uint64_t max_operations = kMaxRecordedOperations;
  std::uint64_t max_captured_host_bytes = kMaxCapturedHostBytes;
};

/// The eligibility decision of one range: observations made while the range
/// is recorded, and the decline they imply. The first decline wins and keeps
/// its detail; later ones are only counted (they are usually consequences of
/// the first). Declining never changes what the application executes.
///
/// Thread-safety: none; the range recorder calls it under its own lock (the
/// one that orders recorded operations).
class Eligibility {
 public:
  explicit Eligibility(EligibilityLimits limits = {}) : limits_(limits) {}

  /// Declines the range with `reason` unless it is already declined. Returns
  /// true when this call decided the range's reason.
  bool decline(DeclineReason reason, std::string detail);

  /// One recorded operation submitted to `context_id` on device `device`
  /// (opaque ids). `runs_kernels` is true for kernel and graph launches.
  /// Declines with kMultipleDevices / kMultipleContexts on the first
  /// operation that names a second device / context (a second device wins
  /// when both change at once), and with
  /// kTooManyOperations on operation max_operations + 1.
  void observe_operation(std::uint64_t context_id, int device, bool runs_kernels);

  /// `bytes` of host-to-device source data captured at record time. Declines
  /// with kHostDataTooLarge once the range's total exceeds the cap.
  void observe_captured_host_bytes(std::uint64_t bytes);
  /// Whether `bytes` more of host-to-device source data stay within the cap
  /// (asked before the bytes are copied, so that a copy far over the cap
  /// never allocates its host copy).
  bool host_bytes_fit(std::uint64_t bytes) const {
    return captured_host_bytes_ <= limits_.max_captured_host_bytes &&
           bytes <= limits_.max_captured_host_bytes - captured_host_bytes_;
  }

  /// The range ended (pass 0 complete): declines with kNoKernelInRange when
  /// no kernel or graph launch was observed. Call once.
  void finish();

  bool declined() const { return reason_.has_value(); }
  std::optional<DeclineReason> reason() const { return reason_; }
  /// The first decline's detail ("" when not declined).
  const std::string& detail() const { return detail_; }
  /// Declines after the first (not reported, counted for diagnostics).
  std::uint64_t later_declines() const { return later_declines_; }
  std::uint64_t operations() const { return operations_; }
  std::uint64_t kernel_operations() const { return kernel_operations_; }
  std::uint64_t captured_host_bytes() const { return captured_host_bytes_; }

 private:
  EligibilityLimits limits_;
  std::optional<DeclineReason> reason_;
  std::string detail_;
  std::uint64_t later_declines_ = 0;
  std::uint64_t operations_ = 0;
  std::uint64_t kernel_operations_ = 0;
  std::uint64_t captured_host_bytes_ = 0;
  std::optional<std::uint64_t> context_;
  std::optional<int> device_;
};

}  // namespace rangereplay
