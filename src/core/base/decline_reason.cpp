// Decline reason names, explanations and fixes, and the Eligibility decision
// (see decline_reason.h). The table below is the single source the report
// and docs/limitations.md follow; a unit test checks the docs name each one.
#include "core/base/decline_reason.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace rangereplay {
namespace {

struct ReasonInfo {
  DeclineReason reason;
  std::string_view name;
  std::string_view explanation;
  std::string_view fix;
};

// Order follows the enum; info() checks it on every look-up.
constexpr std::array<ReasonInfo, 31> kReasons = {{
    {DeclineReason::kAllocationInRange, "allocation_in_range",
     "the range allocated device-visible memory the tool cannot keep for its replays (stream-ordered, managed, "
     "pinned host or virtual-memory mappings; cudaMalloc memory past 512 MiB, or with a stream capture open), which "
     "the range-entry snapshot does not cover",
     "allocate before the range begins (a warm-up iteration, a caching allocator), or end the range before the "
     "allocation"},
    {DeclineReason::kFreeInRange, "free_in_range",
     "the range freed tracked memory, so a replay would touch memory the application no longer owns",
     "free the memory after the range ends"},
    {DeclineReason::kModuleLoadInRange, "module_load_in_range",
     "a module with module-scope variables (or one whose variables could not be read) was loaded inside the range, "
     "lazily on its first kernel launch or explicitly, so their range-entry values are not in the snapshot",
     "run one warm-up iteration before the profiled range, or set CUDA_MODULE_LOADING=EAGER"},
    {DeclineReason::kModuleUnloadInRange, "module_unload_in_range",
     "a module or library was unloaded inside the range, so a replay could not launch its kernels",
     "unload modules after the range ends"},
    {DeclineReason::kUnsupportedApi, "unsupported_api",
     "the range called a CUDA API the recorder cannot replay soundly (named in the detail)",
     "move that call outside the range, or narrow the range so it does not contain it"},
    {DeclineReason::kStreamCaptureActive, "stream_capture_active",
     "a stream capture into a CUDA graph was open when the range began or ended, or began inside a range whose "
     "pass 0 was being counted without an entry snapshot; the tool's calls would have invalidated it",
     "begin and end the range while no stream capture is open; a capture inside a range is replayed from the next "
     "range of the same name, or from the first with a set of more than one pass"},
    {DeclineReason::kHostFunctionInRange, "host_function_in_range",
     "the range ran a host function (cuLaunchHostFunc with work submitted after it, or a graph's host node), which "
     "a replay can neither re-run (its host side effects would repeat) nor leave out (later work is ordered after it)",
     "end the range before the host function or enqueue it after the range's last work; launch graphs with host "
     "nodes outside the range"},
    {DeclineReason::kTooManyOperations, "too_many_operations",
     "the range recorded more than 65536 operations (kernels, copies, memsets, event records, waits, graph launches)",
     "narrow the range (a nested NVTX range, --kernel-range) or profile fewer iterations per range"},
    {DeclineReason::kHostDataTooLarge, "host_data_too_large",
     "the range's host-to-device copies need more than 1 GiB of source bytes captured at record time",
     "copy the inputs to the device before the range begins"},
    {DeclineReason::kSnapshotDoesNotFit, "snapshot_does_not_fit",
     "the range's memory footprint did not fit in the device and pinned host snapshot budgets",
     "free unused device memory before the range, leave host memory free, or profile a smaller problem size"},
    {DeclineReason::kCountersUnavailable, "counters_unavailable",
     "hardware counters could not be collected (unsupported GPU or driver, MIG slice, or another profiler holds the "
     "counters)",
     "run on a supported GPU and driver with no other profiler attached"},
    {DeclineReason::kCountersNotPermitted, "counters_not_permitted",
     "the driver restricts GPU performance counters to administrators (ERR_NVGPUCTRPERM)",
     "run as root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0"},
    {DeclineReason::kNoKernelInRange, "no_kernel_in_range",
     "the range launched no kernel or graph, so there is nothing to measure",
     "check that the range expression matches the range that launches the kernels (ranges mark host-side submission)"},
    {DeclineReason::kMultipleContexts, "multiple_contexts", "work in the range went to more than one CUDA context",
     "make each range cover the work of one context"},
    {DeclineReason::kMultipleDevices, "multiple_devices", "work in the range went to more than one device",
     "profile one device per run: select it with CUDA_VISIBLE_DEVICES (e.g. CUDA_VISIBLE_DEVICES=0), or make each "
     "range cover one device's work"},
    {DeclineReason::kUnknownMetric, "unknown_metric",
     "a requested metric is not known on this GPU, so no counter configuration could be built",
     "check the metric names for this chip (ncu --query-metrics lists them)"},
    {DeclineReason::kReplayFailed, "replay_failed",
     "a driver error occurred while the tool drained, snapshotted or replayed the range; the application's "
     "range-exit memory was restored",
     "the application ran on unchanged; rerun with RANGEREPLAY_DEBUG=1 and report the error in the detail"},
    {DeclineReason::kOverlappingRange, "overlapping_range",
     "the range began while another range was being recorded (for example on another thread); ranges cannot overlap",
     "make the expression match only one of the overlapping ranges, or pick instances with --skip/--range-count"},
    {DeclineReason::kRangeNotClosed, "range_not_closed",
     "the range never ended (the process exited or its context was destroyed while it was open)",
     "pop or end the range before the program exits; check that pushes and pops balance"},
    {DeclineReason::kGraphDestroyedInRange, "graph_destroyed_in_range",
     "an executable graph launched in the range was destroyed before the range ended, so a replay could not launch it",
     "destroy executable graphs after the range ends"},
    {DeclineReason::kCollectiveInRange, "collective_in_range",
     "the range launched a collective-communication kernel (NCCL), whose peers in other processes would not replay "
     "with it",
     "put the range around compute work only, or replay it on every rank at once with --collectives replay"},
    {DeclineReason::kModuleGlobalsInRange, "module_globals_in_range",
     "the range launched a kernel whose module has writable module-scope __device__ variables that the tool could "
     "not locate to snapshot, so replays would change them",
     "keep kernels that update __device__ variables out of the range, or pass that state as a cudaMalloc'd buffer"},
    {DeclineReason::kPeerDeclined, "peer_declined",
     "with --collectives replay every rank replays a range or none does, and another rank of the job declined this "
     "one (the detail names the rank and its reason)",
     "see that rank's report for its reason and fix that"},
    {DeclineReason::kRendezvousFailed, "rendezvous_failed",
     "with --collectives replay the ranks could not meet (a rank did not arrive within the timeout or left) or "
     "reached different ranges or pass counts, so no rank replayed the range alone",
     "profile every rank with the same options and ranges; check that the ranks can reach the rendezvous endpoint "
     "(--rendezvous host:port, or MASTER_ADDR and MASTER_PORT + 1)"},
    {DeclineReason::kNondeterministicApplication, "nondeterministic_application",
     "application range replay re-ran the application once per pass, and a later run's range launched a different "
     "kernel sequence (names, grids, blocks or launch order) than the first run's, so its passes cannot be merged",
     "make the range's work deterministic across runs (fixed seeds, fixed problem sizes), or narrow the range to "
     "the part that is"},
    {DeclineReason::kWriteSetLearned, "write_set_learned",
     "a region too large to snapshot whole had no write-set prediction yet, and its chunks not zero at the range's "
     "entry did not fit the snapshot tiers (or the range changed more than 1 GiB, or --snapshot-host-limit, of chunks "
     "that held only zeros); this instance measured by digests which chunks the range writes",
     "raise or drop the --snapshot-*-limit caps where the detail's shortfall fits the memory left free; otherwise "
     "nothing: the next instance of the range snapshots the chunks this one wrote and replays when digests prove "
     "it wrote no others"},
    {DeclineReason::kWriteSetExceeded, "write_set_exceeded",
     "the range changed chunks of a region too large to snapshot whole outside the chunks its snapshot held, "
     "chunks that did not hold only zeros at its entry (measured by digests), so a replay could not restore them",
     "nothing: the prediction grew by the changed chunks and the next instance of the range snapshots them; a range "
     "that writes different memory every instance keeps declining"},
    {DeclineReason::kAppRangeIncomplete, "app_range_incomplete",
     "application range replay's runs ended before the one that collects the range's last pass (the first run "
     "failed, a later run failed or was stopped, the runs would exceed --max-app-runs, or the application ran as "
     "several processes), so the range has no values",
     "profile again without what ended the runs (see the warning the launcher printed), or raise --max-app-runs"},
    {DeclineReason::kNoContext, "no_context",
     "no CUDA context was current on the thread that began the range (the range began before that thread's first "
     "CUDA call), so the tool could not tell which context's work the range measures",
     "make a CUDA call on that thread before the range begins (cudaSetDevice or cudaFree(0) binds the runtime's "
     "context to it)"},
    {DeclineReason::kCounterRangesMismatch, "counter_ranges_mismatch",
     "CUPTI returned a different number of counter ranges than the pass opened (a lead-in flush and one per kernel, "
     "or one per range of a batch or of the standing pass), so its values cannot be matched to their kernels or "
     "ranges",
     "select the range alone (--range-list, or a --kernel-range of its window only), which let such ranges replay, "
     "or profile again; --fallback app-range measures it, one set of values for the range, by re-running the "
     "application"},
    {DeclineReason::kProcessEnded, "process_ended",
     "the process ended (a signal, abort, _exit or a crash) before the range's counters were read: it was waiting "
     "for a batched replay or for the standing one-pass counter pass, and its report was rebuilt from the journal",
     "let the application exit normally (a longer time limit, no kill), or profile with --batch-ranges off so "
     "that each range is finished at its end"},
}};

const ReasonInfo& info(DeclineReason reason) {
  const auto index = static_cast<std::size_t>(reason);
  if (index >= kReasons.size() || kReasons[index].reason != reason) {
    // The table and the enum disagree: a programming error, caught by tests.
    std::fprintf(stderr, "rangereplay: decline reason %zu missing from the table\n", index);
    std::abort();
  }
  return kReasons[index];
}

constexpr std::array<DeclineReason, kReasons.size()> make_all() {
  std::array<DeclineReason, kReasons.size()> all{};
  for (std::size_t i = 0; i < kReasons.size(); ++i) all[i] = kReasons[i].reason;
  return all;
}
constexpr std::array<DeclineReason, kReasons.size()> kAll = make_all();

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::span<const DeclineReason> all_decline_reasons() { return kAll; }

std::string_view decline_reason_name(DeclineReason reason) { return info(reason).name; }

std::optional<DeclineReason> decline_reason_from_name(std::string_view name) {
  for (const ReasonInfo& r : kReasons) {
    if (r.name == name) return r.reason;
  }
  return std::nullopt;
}

std::string_view decline_reason_explanation(DeclineReason reason) { return info(reason).explanation; }

std::string_view decline_reason_fix(DeclineReason reason) { return info(reason).fix; }

std::string decline_report_detail(DeclineReason reason, std::string_view detail) {
  std::string out;
  if (!detail.empty()) {
    out.append(detail);
    out.append("; ");
  }
  out.append(decline_reason_fix(reason));
  return out;
}

bool Eligibility::decline(DeclineReason reason, std::string detail) {
  if (reason_) {
    ++later_declines_;
    return false;
  }
  reason_ = reason;
  detail_ = std::move(detail);
  return true;
}

void Eligibility::observe_operation(std::uint64_t context_id, int device, bool runs_kernels) {
  ++operations_;
  if (runs_kernels) ++kernel_operations_;
  // A second device is the more specific cause (its context differs too),
  // and the one with a direct fix: it is checked first.
  if (!device_) {
    device_ = device;
  } else if (*device_ != device) {
    decline(DeclineReason::kMultipleDevices,
            "operations on devices " + std::to_string(*device_) + " and " + std::to_string(device));
  }
  if (!context_) {
    context_ = context_id;
  } else if (*context_ != context_id) {
    decline(DeclineReason::kMultipleContexts, "operations on contexts " + hex(*context_) + " and " + hex(context_id));
  }
  if (operations_ == limits_.max_operations + 1) {
    decline(DeclineReason::kTooManyOperations,
            "more than " + std::to_string(limits_.max_operations) + " operations recorded");
  }
}

void Eligibility::observe_captured_host_bytes(std::uint64_t bytes) {
  const std::uint64_t before = captured_host_bytes_;
  captured_host_bytes_ = bytes > std::numeric_limits<std::uint64_t>::max() - before
                             ? std::numeric_limits<std::uint64_t>::max()
                             : before + bytes;
  if (before <= limits_.max_captured_host_bytes && captured_host_bytes_ > limits_.max_captured_host_bytes) {
    decline(DeclineReason::kHostDataTooLarge, std::to_string(captured_host_bytes_) +
                                                  " bytes of host-to-device source data, cap " +
                                                  std::to_string(limits_.max_captured_host_bytes));
  }
}

void Eligibility::finish() {
  if (kernel_operations_ == 0) {
    decline(DeclineReason::kNoKernelInRange,
            "no kernel or graph launch among " + std::to_string(operations_) + " recorded operations");
  }
}

}  // namespace rangereplay
