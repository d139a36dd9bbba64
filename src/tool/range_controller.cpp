// Range lifecycle: begin (drain, snapshot, start pass 0), end (replay window:
// restore, re-submit, counter passes, restore exit state), evaluation.
// The data flow is in docs/architecture.md.
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/environment.h"
#include "cuda/cu_status.h"
#include "cuda/digest_plan.h"
#include "cuda/replayer.h"
#include "cupti/cupti_status.h"
#include "cupti/device_counters.h"
#include "report/demangle.h"
#include "tool/profiler_tool.h"

namespace rangereplay::tool {

namespace {
using Clock = std::chrono::steady_clock;
// Kernels per range the counter data image holds when a one-pass range's
// kernel count is not known yet: as many as fit in kCounterImageBudgetBytes,
// at most 2048; RANGEREPLAY_MAX_KERNELS_PER_RANGE overrides it. (The image
// costs ~9 KB per metric and kernel on GH100, and is copied at every range.)
constexpr std::size_t kCounterImageBudgetBytes = std::size_t{64} << 20;
std::size_t default_counter_ranges(std::size_t bytes_per_range) {
  if (const std::optional<std::size_t> n = environment::max_kernels_per_range()) return *n;
  return std::clamp<std::size_t>(kCounterImageBudgetBytes / std::max<std::size_t>(bytes_per_range, 1), 1, 2048);
}

// The snapshot tiers as the user capped them (0 = no cap); a pinned arena
// by the copy engines, or by the mapped kernel when it has many spans.
SnapshotOptions snapshot_options(const ProfileConfig& config) {
  SnapshotOptions options;
  options.device_limit_bytes = config.snapshot_device_limit;
  options.host_limit_bytes = config.snapshot_host_limit;
  options.copy.pinned_method = PinnedCopyMethod::kAuto;
  return options;
}

// RANGEREPLAY_TEST_CORRUPT_RESTORES=1 (tests only) overwrites the first 16
// bytes of every snapshot region after each entry restore.
bool corrupt_restores_for_tests() { return environment::test_corrupt_restores(); }

// RANGEREPLAY_DEBUG=1 traces the range lifecycle on stderr, each line with
// the milliseconds since the previous one (where the time goes).
void debug(const char* fmt, const std::string& a = "", long b = 0) {
  static const bool on = debug_enabled();
  if (!on) return;
  static Clock::time_point last = Clock::now();
  const double since = ms_since(last);
  last = Clock::now();
  std::fprintf(stderr, "rangereplay[debug] +%8.2f ms: ", since);
  std::fprintf(stderr, fmt, a.c_str(), b);
  std::fprintf(stderr, "\n");
}

}  // namespace

void ProfilerTool::decline(ActiveRange& range, DeclineReason reason, std::string detail) {
  range.eligibility.decline(reason, std::move(detail));  // the first decline reason wins
}

void ProfilerTool::report_decline(ActiveRange& range) {
  const std::optional<DeclineReason> reason = range.eligibility.reason();
  if (reason) record_decline(range.record, *reason, range.eligibility.detail());
}

void ProfilerTool::record_decline(report::RangeRecord& record, DeclineReason reason, const std::string& detail) {
  record.declined = true;
  record.decline_reason = std::string(decline_reason_name(reason));
  record.decline_detail = decline_report_detail(reason, detail);
  if (!config_.quiet)
    std::fprintf(stderr, "rangereplay: range %u '%s' declined: %s (%s)\n", record.index + 1, record.name.c_str(),
                 record.decline_reason.c_str(), detail.c_str());
}

Status ProfilerTool::ensure_counters(CUcontext ctx) {
  if (session_) {
    if (session_->context() != ctx)
      return failed_precondition("range in a second context; only one context per process is profiled");
    return ok_status();
  }
  auto start = Clock::now();
  debug("configuring counters%s (%ld metrics)", "", static_cast<long>(config_.metrics.size()));
  CUdevice device = 0;
  RR_CU(cuCtxGetDevice(&device));
  mutex_.set_stage("configuring counters: chip name");
  RR_ASSIGN_OR_RETURN(std::string chip, cupti::chip_name_of_device(static_cast<int>(device)));
  debug("chip %s", chip);
  mutex_.set_stage("configuring counters: range profiler enable");
  RR_ASSIGN_OR_RETURN(auto session, cupti::RangeProfilerSession::enable(ctx));
  mutex_.set_stage("configuring counters: counter availability");
  RR_ASSIGN_OR_RETURN(auto availability, cupti::counter_availability_image(ctx));
  debug("range profiler enabled%s", "");
  mutex_.set_stage("configuring counters: config image");
  RR_ASSIGN_OR_RETURN(evaluator_, MetricEvaluator::create(chip, availability, config_.metrics));
  debug("config image built%s, %ld passes", "", static_cast<long>(evaluator_->pass_count()));
  const auto mode = configured_counter_mode();
  mutex_.set_stage("configuring counters: counter data image");
  RR_RETURN_IF_ERROR(session->configure(evaluator_->config_image(), config_.metrics, 1, mode));
  debug("counter data image configured%s (%ld bytes)", "", static_cast<long>(session->counter_data_bytes()));
  RR_CU(cuStreamCreate(&tool_stream_, CU_STREAM_NON_BLOCKING));
  session_ = std::move(session);
  pass_count_ = evaluator_->pass_count();
  report_.chip_name = chip;
  report_.pass_count = pass_count_;
  report_.setup_ms = ms_since(start);
  char name[256] = {};
  if (cuDeviceGetName(name, sizeof name, device) == CUDA_SUCCESS)
    report_.device_name = name;
  int driver = 0;
  if (cuDriverGetVersion(&driver) == CUDA_SUCCESS)
    report_.driver_version = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
  return ok_status();
}

std::size_t ProfilerTool::counter_ranges_for(const std::string& range_name) const {
  const std::size_t fallback = default_counter_ranges(session_->bytes_per_range());
  auto it = kernels_by_range_name_.find(range_name);
  if (it == kernels_by_range_name_.end()) return fallback;
  // A quarter more than last time, within the budget, never below last time
  // (but never above the largest image).
  return std::min(session_->most_ranges(),
                  std::max(it->second, std::min(fallback, it->second + it->second / 4 + 8)));
}

void ProfilerTool::progress(const ActiveRange& range, std::size_t pass) {
  if (config_.quiet) return;
  std::string total = config_.range_count ? "/" + std::to_string(config_.range_count) : "";
  // A range whose pass 0 only records runs one pass more than CUPTI needs.
  const std::uint32_t passes = pass_count_ + (range.counting_pass0 ? 0 : 1);
  std::fprintf(stderr, "rangereplay: range %u%s '%s': pass %zu/%u\n", range.index + 1, total.c_str(),
               range.name.c_str(), pass, passes);
}

void ProfilerTool::begin_range(const range::RangeEvent& event, CUcontext ctx) {
  // Which matches are profiled (--skip/--range-count/--range-list) was
  // decided by the trigger's RangeSelector: every kBegin is profiled.
  const std::string& name = event.name;
  // No range is profiled before the launcher's checks pass.
  mutex_.set_stage("range begin: waiting at the launcher gate");
  pass_gate();
  debug("begin range '%s' (match %ld)", name, static_cast<long>(event.match_index));
  // Module loads from now until the range ends are its own.
  modules_.open_range_window();

  InToolScope guard;
  auto range = std::make_unique<ActiveRange>();
  range->index = static_cast<std::uint32_t>(event.match_index);
  range->name = name;
  range->source = event.source;
  range->ctx = ctx;
  CUdevice device = 0;
  if (ctx != nullptr && cuCtxGetDevice(&device) == CUDA_SUCCESS) range->device = static_cast<int>(device);
  range->record.index = range->index;
  range->record.name = name;

  if (captures_.open_captures() > 0 || captures_.beginning() > 0) {
    // The drain, the snapshot and the counter set-up would each make a call
    // that an open capture forbids, and invalidate the application's graph.
    // The range runs as the application's own, untouched. (range_beginning_
    // was set before this read: see the handshake in capture_tracking.cpp.)
    const std::string open = captures_.describe_open();
    decline(*range, DeclineReason::kStreamCaptureActive,
            (open.empty() ? std::string("a stream capture was beginning on another thread") : open) +
                " when the range began; the tool made no call a capture forbids");
  } else if (session_ && session_->context() != ctx) {
    // Only this range: later ranges in the profiled context still run.
    decline(*range, DeclineReason::kMultipleContexts,
            "range in a second context; only the first profiled context is supported");
  } else if (counters_failed_) {
    decline(*range, counters_reason_, counters_error_);
  } else if (Status s = ensure_counters(ctx); !s.ok()) {
    counters_failed_ = true;
    counters_reason_ = s.code() == StatusCode::kPermissionDenied    ? DeclineReason::kCountersNotPermitted
                       : s.code() == StatusCode::kInvalidArgument    ? DeclineReason::kUnknownMetric
                       : s.code() == StatusCode::kFailedPrecondition ? DeclineReason::kMultipleContexts
                                                                     : DeclineReason::kCountersUnavailable;
    counters_error_ = s.message();
    report_.errors.push_back(s.message());
    if (!config_.quiet) std::fprintf(stderr, "rangereplay: %s\n", s.message().c_str());
    decline(*range, counters_reason_, counters_error_);
  }
  if (range->eligibility.declined()) {
    active_ = std::move(range);
    return;
  }
  release_left_over_state();

  // Drain the application's earlier work so the snapshot sees settled memory.
  const auto begin_start = Clock::now();
  auto sync_start = begin_start;
  mutex_.set_stage("range begin: draining the context (cuCtxSynchronize)");
  if (Status s = cu_status(cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__); !s.ok()) {
    decline(*range, DeclineReason::kReplayFailed, s.message());
    active_ = std::move(range);
    return;
  }
  range->record.timings.sync_ms += ms_since(sync_start);
  debug("drained%s", "");

  if (pass_count_ > 1) {
    mutex_.set_stage("range begin: capturing the entry snapshot");
    auto capture_start = Clock::now();
    std::vector<MemoryRange> regions;
    {
      // Every allocation the range's kernels can write: all but virtual
      // mappings the range's device has no read-write access to (its kernels
      // cannot change them, and the snapshot's copies could not reach them).
      auto lock = inventory_.lock();
      for (Allocation& a : inventory_.regions_locked()) {
        if (!a.writable_by(range->device)) {
          if (a.kind == AllocationKind::kDevice || a.kind == AllocationKind::kStreamOrdered)
            range->other_device_memory.push_back(a.range);
          continue;
        }
        // Pinned host memory, and managed memory attached to the host: host
        // threads may write it while the replay window runs, so it is
        // captured at its first use by a kernel instead (host_regions.cpp).
        if (a.kind == AllocationKind::kMappedHost || (a.kind == AllocationKind::kManaged && a.host_attached)) {
          range->host_mapped.push_back(a.range);
          continue;
        }
        range->allocations.push_back(std::move(a));
      }
      const auto by_start = [](const MemoryRange& x, const MemoryRange& y) { return x.start() < y.start(); };
      std::sort(range->host_mapped.begin(), range->host_mapped.end(), by_start);
      std::sort(range->other_device_memory.begin(), range->other_device_memory.end(), by_start);
      for (const auto& a : range->allocations) regions.push_back(a.range);
    }
    range->record.regions = static_cast<std::uint32_t>(regions.size());
    // Entry and exit states are planned together here (snapshot.h), so a
    // snapshot that does not fit declines the range before pass 0.
    if (!snapshot_storage_) snapshot_storage_ = std::make_unique<SnapshotStorage>(snapshot_options(config_), ctx);
    auto snap = Snapshot::create(*snapshot_storage_, regions, kSnapshotStates, tool_stream_);
    Status s = snap.ok() ? snap->capture(SnapshotState::kEntry, tool_stream_) : snap.status();
    if (s.ok()) s = cu_status(cuStreamSynchronize(tool_stream_), "cuStreamSynchronize", __FILE__, __LINE__);
    if (!s.ok()) {
      decline(*range,
              s.code() == StatusCode::kResourceExhausted ? DeclineReason::kSnapshotDoesNotFit
                                                         : DeclineReason::kReplayFailed,
              s.message());
      active_ = std::move(range);
      return;
    }
    range->record.footprint_bytes = snap->bytes();
    range->record.tiers = snap->tiers();
    for (const std::string& note : snap->plan().notes) range->record.notes.push_back("snapshot storage: " + note);
    if (snap->narrow_items() > 0)
      range->record.notes.push_back(std::to_string(snap->narrow_items()) +
                                    " snapshot copy items of regions not 16-byte aligned use narrower vectors");
    range->snapshot.emplace(std::move(snap).value());
    if (config_.restore == RestoreMode::kDifferential) plan_differential_restore(*range);
    range->record.restore =
        std::string(name_of(kRestoreModeNames, range->restore_plan ? RestoreMode::kDifferential : RestoreMode::kFull));
    range->record.timings.capture_ms += ms_since(capture_start);
    debug("entry snapshot captured%s (%ld bytes)", "", static_cast<long>(range->record.footprint_bytes));
  }

  // Per-kernel multi-pass: pass 0 only records; the counter image is sized to
  // its kernels at range end and every counter pass is replayed. Otherwise
  // pass 0 counts, with the image sized from the last range of this name.
  range->counting_pass0 = !(pass_count_ > 1 && config_.range_metrics == RangeMetrics::kPerKernel);
  Status s = ok_status();
  mutex_.set_stage("range begin: starting pass 0");
  if (range->counting_pass0 && standing_pass_eligible()) {
    auto c = Clock::now();
    s = push_standing_range(*range);
    debug("standing pass: range pushed: %s", s.to_string());
    range->record.timings.counters_ms += ms_since(c);
  } else if (range->counting_pass0) {
    auto c = Clock::now();
    s = session_->resize(counter_ranges_for(name));
    if (s.ok()) s = session_->begin_range();
    debug("set config: %s", s.to_string());
    if (s.ok()) s = session_->start_pass(name);
    debug("pass 0 started: %s", s.to_string());
    range->record.timings.counters_ms += ms_since(c);
  }
  range->record.timings.begin_ms = ms_since(begin_start);
  if (!s.ok()) {
    decline(*range, DeclineReason::kCountersUnavailable, s.message());
  } else {
    range->profiled = true;
    progress(*range, 1);
  }
  active_ = std::move(range);
}

void ProfilerTool::capture_begins_in_range(const char* call) {
  ToolLock lock = lock_tool(call);
  InToolScope scope;
  if (!active_ || !active_->profiled || active_->counters_closed) return;
  decline(*active_, DeclineReason::kStreamCaptureActive,
          std::string(call) + " inside the range: captured work does not execute");
  close_range_counters(*active_);
}

void ProfilerTool::close_range_counters(ActiveRange& range) {
  // The capture has not begun yet: these calls are still allowed. They run
  // on the thread beginning the capture, with the range's context made
  // current for them.
  range.counters_closed = true;
  debug("counters of declined range '%s' closed before a stream capture", range.name);
  const bool pushed = range.ctx != nullptr && cuCtxPushCurrent(range.ctx) == CUDA_SUCCESS;
  if (range.standing_counter_range) {
    session_->pop_range().ignore();
    range.standing_counter_range.reset();
  } else if (session_ && session_->in_pass()) {
    session_->end_pass().status().ignore();
  }
  range.program.ops.clear();
  range.restore_plan.reset();
  range.snapshot.reset();
  if (pushed) {
    CUcontext popped = nullptr;
    cuCtxPopCurrent(&popped);
  }
}

void ProfilerTool::release_left_over_state() {
  // Called when a range begins with no capture open.
  if (counters_left_running_) {
    counters_left_running_ = false;
    if (standing_open_) {
      flush_standing_pass("a range ended while a stream capture was open");
    } else if (session_ && session_->in_pass()) {
      session_->end_pass().status().ignore();
    }
  }
  parked_.clear();
}

void ProfilerTool::apply_module_events(ActiveRange& range, std::vector<ModuleEvent> events) {
  for (ModuleEvent& e : events) {
    if (!range.profiled) continue;
    switch (e.kind) {
      case ModuleEvent::Kind::kLoaded: ++range.modules_loaded; break;
      case ModuleEvent::Kind::kLoadDeclines:
        decline(range, DeclineReason::kModuleLoadInRange, std::move(e.detail));
        break;
      case ModuleEvent::Kind::kUnloaded:
        decline(range, DeclineReason::kModuleUnloadInRange, std::move(e.detail));
        break;
    }
  }
}

void ProfilerTool::end_range() {
  if (!active_) return;
  InToolScope guard;
  std::unique_ptr<ActiveRange> range = std::move(active_);
  std::vector<ModuleEvent> module_events = modules_.close_range_window();
  range->unloads_at_end = modules_.unloads();
  apply_module_events(*range, std::move(module_events));
  debug("end range '%s': %ld ops recorded", range->name, static_cast<long>(range->program.ops.size()));
  range->window_start = Clock::now();
  auto& t = range->record.timings;

  if (!range->profiled || range->counters_closed || captures_.open_captures() > 0) {
    // Nothing of the tool's runs on the GPU for this range: it was declined
    // when it began (nothing was recorded or started), or a capture began
    // inside it (its counters were closed then) or is open now (a drain would
    // invalidate it). Its end makes no CUDA or CUPTI call.
    if (range->profiled && !range->counters_closed) {
      decline(*range, DeclineReason::kStreamCaptureActive,
              captures_.describe_open() + " when the range ended; the tool made no call that could invalidate it");
      // Its counters and GPU buffers stay as they are until no capture is
      // open: the next range's begin stops and frees them.
      counters_left_running_ = true;
    }
    range->eligibility.finish();
    range->record.passes = 1;
    report_range(*range);
    // Freeing is a call a capture forbids: with one open, the buffers wait
    // for the next range's begin; otherwise they go with the range now.
    if ((range->snapshot || range->restore_plan) && captures_.open_captures() > 0) parked_.push_back(std::move(range));
    return;
  }
  auto sync_start = Clock::now();
  mutex_.set_stage("range end: draining the context (cuCtxSynchronize)");
  Status s = cu_status(cuCtxSynchronize(), "cuCtxSynchronize", __FILE__, __LINE__);
  t.sync_ms += ms_since(sync_start);
  mutex_.set_stage("range end: stopping pass 0");
  bool all_submitted = false;
  const std::size_t kernel_count = range->program.kernels().size();
  if (range->profiled && range->standing_counter_range) {
    // The standing pass stays open: close this range's counter range only.
    auto c = Clock::now();
    Status popped = session_->pop_range();
    t.counters_ms += ms_since(c);
    debug("standing pass: range popped: %s", popped.to_string());
    if (!popped.ok()) decline(*range, DeclineReason::kCountersUnavailable, popped.message());
    all_submitted = true;
  } else if (range->profiled && range->counting_pass0) {
    auto c = Clock::now();
    auto done = session_->end_pass();
    t.counters_ms += ms_since(c);
    debug("pass 0 stopped%s", "");
    if (!done.ok()) {
      decline(*range, DeclineReason::kCountersUnavailable, done.status().message());
    } else {
      all_submitted = *done;
    }
    if (kernel_count > session_->max_ranges() && config_.range_metrics == RangeMetrics::kPerKernel)
      range->record.notes.push_back(std::to_string(kernel_count) + " kernels, more than the " +
                                    std::to_string(session_->max_ranges()) +
                                    " the counter image held; set RANGEREPLAY_MAX_KERNELS_PER_RANGE higher");
  } else if (range->profiled && s.ok() && kernel_count > 0 && !range->eligibility.declined()) {
    // Pass 0 only recorded: size the image to its kernels, then set the
    // configuration; every counter pass is a replay.
    auto c = Clock::now();
    // A replayed graph launch under CUPTI's auto ranges made
    // cuptiRangeProfilerStop fail (CUPTI_ERROR_UNKNOWN; H200, CUDA 13.0):
    // such a range is measured as one user range per pass instead.
    range->whole_range_counters = !range->program.graph_execs().empty();
    Status configured = ok_status();
    if (range->whole_range_counters) {
      configured = session_->set_mode(cupti::RangeProfilerSession::Mode::kWholeRange);
      range->record.notes.push_back(
          "graph launches in this range: its metrics are for the whole range, not per kernel (CUPTI's per-kernel "
          "ranges fail on replayed graph launches)");
    }
    if (configured.ok()) configured = session_->resize(kernel_count);
    if (configured.code() == StatusCode::kResourceExhausted)
      configured = resource_exhausted(configured.message() +
                                      "; narrow the range, collect fewer metrics, or use --range-metrics whole");
    if (configured.ok()) configured = session_->begin_range();
    t.counters_ms += ms_since(c);
    debug("set config%s for %ld kernels", "", static_cast<long>(kernel_count));
    if (!configured.ok()) decline(*range, DeclineReason::kCountersUnavailable, configured.message());
  }
  if (range->profiled && !range->eligibility.declined()) kernels_by_range_name_[range->name] = kernel_count;
  if (!s.ok()) decline(*range, DeclineReason::kReplayFailed, s.message());
  range->eligibility.finish();  // no kernel in range

  range->record.passes = 1;
  mutex_.set_stage("range end: replay window");
  if (!range->eligibility.declined() && !all_submitted) {
    if (Status w = replay_window(*range); !w.ok())
      decline(*range,
              modules_.unloads() != range->unloads_at_end ? DeclineReason::kModuleUnloadInRange
                                                          : DeclineReason::kReplayFailed,
              w.message());
  }
  if (!range->eligibility.declined() && range->standing_counter_range) {
    record_kernels(*range, {});  // the values come when the standing pass is flushed
  } else if (!range->eligibility.declined()) {
    if (Status e = evaluate(*range); !e.ok()) decline(*range, DeclineReason::kCountersUnavailable, e.message());
  }
  if (range->whole_range_counters) {
    // Back to the configured mode for the next range.
    session_->set_mode(configured_counter_mode()).ignore();
  }
  mutex_.set_stage("range end: report");
  report_range(*range);
  if (standing_open_ && standing_pushed_ >= session_->max_ranges()) flush_standing_pass("its counter image is full");
}

void ProfilerTool::report_range(ActiveRange& range) {
  report_decline(range);
  if (range.program.skipped_device_to_host)
    range.record.notes.push_back(std::to_string(range.program.skipped_device_to_host) +
                                 " device-to-host copies (or writes into pinned host memory) were not re-executed in replays");
  if (range.modules_loaded == 1) {
    range.record.notes.push_back("1 module loaded inside the range (lazy loading); it has no module-scope variables");
  } else if (range.modules_loaded > 1) {
    range.record.notes.push_back(std::to_string(range.modules_loaded) +
                                 " modules loaded inside the range (lazy loading); none has module-scope variables");
  }
  auto& t = range.record.timings;
  t.window_ms = ms_since(range.window_start);
  t.other_ms = std::max(0.0, t.window_ms - t.counters_ms - t.kernels_ms - t.restore_ms);
  const bool pending = range.standing_counter_range && !range.eligibility.declined();
  report_.ranges.push_back(std::move(range.record));
  if (pending) standing_pending_.push_back({report_.ranges.size() - 1, *range.standing_counter_range});
}

cupti::RangeProfilerSession::Mode ProfilerTool::configured_counter_mode() const {
  return config_.range_metrics == RangeMetrics::kWholeRange ? cupti::RangeProfilerSession::Mode::kWholeRange
                                                            : cupti::RangeProfilerSession::Mode::kPerKernel;
}

bool ProfilerTool::standing_pass_eligible() const {
  return !environment::standing_pass_off() && pass_count_ == 1 && config_.range_metrics == RangeMetrics::kWholeRange;
}

Status ProfilerTool::push_standing_range(ActiveRange& range) {
  if (!standing_open_) {
    RR_RETURN_IF_ERROR(session_->set_mode(cupti::RangeProfilerSession::Mode::kUserRanges));
    RR_RETURN_IF_ERROR(session_->resize(std::min(kStandingRanges, session_->most_ranges())));
    RR_RETURN_IF_ERROR(session_->begin_range());
    RR_RETURN_IF_ERROR(session_->start_pass(range.name));
    standing_open_ = true;
    standing_pushed_ = 0;
    debug("standing pass opened%s for %ld ranges", "", static_cast<long>(session_->max_ranges()));
  }
  // CUPTI merges user ranges of one name into one counter range (seen on the
  // H200: two `step` ranges gave one range with their sum): each gets its own.
  RR_RETURN_IF_ERROR(session_->push_range(range.name + "#" + std::to_string(standing_pushed_)));
  range.standing_counter_range = standing_pushed_++;
  return ok_status();
}

void ProfilerTool::flush_standing_pass(const char* why) {
  if (!standing_open_) return;
  standing_open_ = false;
  mutex_.set_stage("flushing the standing pass");
  auto start = Clock::now();
  std::vector<std::vector<double>> values;
  Status s = session_->end_pass().status();
  if (s.ok()) s = session_->decode().status();
  if (s.ok()) {
    auto v = evaluator_->evaluate(session_->counter_data());
    if (v.ok()) values = std::move(v).value();
    s = v.status();
  }
  session_->set_mode(configured_counter_mode()).ignore();
  debug("standing pass flushed: %s", std::string(why) + ": " + s.to_string());
  const double ms = ms_since(start);
  for (const StandingPending& p : standing_pending_) {
    report::RangeRecord& record = report_.ranges[p.record_index];
    record.timings.decode_ms += ms / static_cast<double>(standing_pending_.size());
    if (s.ok() && p.counter_range < values.size()) {
      record.range_metrics = metric_values(values[p.counter_range]);
      record.notes.push_back("one-pass metrics collected in a CUPTI pass left open across " +
                             std::to_string(standing_pushed_) + " ranges (flushed: " + why + ")");
    } else {
      record_decline(record, DeclineReason::kCountersUnavailable,
                     s.ok() ? "CUPTI returned " + std::to_string(values.size()) + " counter ranges for " +
                                  std::to_string(standing_pushed_) + " pushed"
                            : s.message());
    }
  }
  standing_pending_.clear();
  standing_pushed_ = 0;
}

void ProfilerTool::plan_differential_restore(ActiveRange& range) {
  // One region per entry piece (a region split over the device and pinned
  // tiers is two regions); the snapshot address is device-accessible either
  // way, so the digest kernel copies changed chunks back from either tier.
  std::vector<DigestRegion> regions;
  std::vector<std::uint32_t> allocations;
  for (const storage::StatePiece& piece : range.snapshot->pieces(SnapshotState::kEntry)) {
    regions.push_back({piece.app, DevicePtr(piece.copy)});
    allocations.push_back(piece.region);  // Snapshot::create's regions are range.allocations, in order
  }
  // The entry digests are of the application's memory (device reads), which
  // the capture just copied: same bytes, faster than reading pinned copies.
  auto plan = DigestPlan::create(regions, DigestPlanOptions{}, tool_stream_);
  Status s = plan.ok() ? plan->digest_entry(tool_stream_) : plan.status();
  if (s.ok()) s = cu_status(cuStreamSynchronize(tool_stream_), "cuStreamSynchronize", __FILE__, __LINE__);
  if (!s.ok()) {
    range.record.notes.push_back(
        "differential restore unavailable for this range, every pass restored all snapshot bytes: " + s.message());
    return;
  }
  range.restore_plan.emplace(std::move(plan).value());
  range.digest_allocations = std::move(allocations);
}

Status ProfilerTool::replay_window(ActiveRange& range) {
  auto& t = range.record.timings;
  if (!range.snapshot) return internal_error("multi-pass range without a snapshot");
  // Other threads' frees and allocations wait until the window ends.
  auto inventory_lock = inventory_.lock();
  RR_ASSIGN_OR_RETURN(Replayer replayer, Replayer::create(range.program));

  // With differential restore, one digest plan serves the whole window: the
  // exit capture, every entry restore, --verify and the exit hand-back.
  DigestPlan* const plan = range.restore_plan ? &*range.restore_plan : nullptr;
  const bool verify_with_plan = plan != nullptr && config_.verify;

  // The application's own range-exit state, restored at the end of the window.
  // Differential: capture_changed digests every chunk (the exit digests) and
  // copies only the chunks that differ from the entry digests into one span
  // of the exit state's storage; restore_exit later takes a changed chunk
  // from there and an unchanged one from the entry snapshot (same bytes).
  // That is sound only when every changed chunk got a slot: the Snapshot
  // plans the exit state at full size, but capture_changed needs one
  // contiguous arena, and the exit state may be split over two tiers or its
  // slots (256-byte multiples) may not fit. On any overflow the full exit
  // capture overwrites that storage and the exit is restored in full.
  auto capture_start = Clock::now();
  bool exit_differential = false;
  if (plan != nullptr) {
    const std::optional<storage::ArenaSpan> exit_arena =
        range.snapshot->exclusive_span(SnapshotState::kExit, kernels::kExitSlotAlignment);
    RR_RETURN_IF_ERROR(plan->capture_changed(tool_stream_, exit_arena ? exit_arena->address : 0,
                                             exit_arena ? exit_arena->bytes : 0));
    RR_RETURN_IF_ERROR(plan->read_back(tool_stream_));
    RR_CU(cuStreamSynchronize(tool_stream_));
    const auto& captured = plan->host_counters();
    exit_differential = captured.capture_overflow_chunks == 0;
    if (!exit_differential)
      range.record.notes.push_back(std::to_string(captured.capture_overflow_chunks) +
                                   " changed chunks did not fit the exit state's arena span; the exit state was "
                                   "captured and restored in full");
  }
  if (!exit_differential) RR_RETURN_IF_ERROR(range.snapshot->capture(SnapshotState::kExit, tool_stream_));
  RR_CU(cuStreamSynchronize(tool_stream_));
  RR_RETURN_IF_ERROR(capture_globals_exit(range));
  t.capture_ms += ms_since(capture_start);
  // From here on, any early return must still hand the application its own
  // range-exit state (and leave no counter pass open).
  struct ExitStateGuard {
    ProfilerTool* tool;
    Snapshot* snapshot;
    DigestPlan* exit_plan;  // non-null: the exit state is in the plan (capture_changed)
    ActiveRange* range;
    bool armed = true;
    ~ExitStateGuard() {
      if (!armed) return;
      if (tool->session_->in_pass()) tool->session_->end_pass().status().ignore();
      if (exit_plan != nullptr) {
        exit_plan->restore_exit(tool->tool_stream_).ignore();
      } else {
        snapshot->restore(SnapshotState::kExit, tool->tool_stream_).ignore();
      }
      tool->restore_globals(*range, /*exit_state=*/true).ignore();
      cuStreamSynchronize(tool->tool_stream_);
    }
  } exit_state_guard{this, &*range.snapshot, exit_differential ? plan : nullptr, &range};

  // --verify with --restore full: the application's own range-exit digests,
  // before any replay, from a digest-only plan. (Differential restore has
  // them already: the plan's exit digests.)
  std::optional<DigestPlan> verifier;
  if (config_.verify && plan == nullptr) {
    auto verify_start = Clock::now();
    if (auto digests = exit_digests(range); digests.ok()) {
      verifier.emplace(std::move(digests).value());
    } else {
      range.record.notes.push_back("--verify unavailable for this range: " + digests.status().message());
    }
    t.verify_ms += ms_since(verify_start);
  }

  // ev[0]..ev[1]: the restore; ev[3]..ev[2]: the replayed work, from after
  // CUPTI's pass start (the stream idles while the host starts the pass).
  // The guard owns every event created so far, so a failed creation leaks
  // none of the earlier ones.
  CUevent ev[4] = {nullptr, nullptr, nullptr, nullptr};
  struct EventGuard {
    CUevent* ev;
    ~EventGuard() {
      for (int i = 0; i < 4; ++i)
        if (ev[i] != nullptr) cuEventDestroy(ev[i]);
    }
  } event_guard{ev};
  for (auto& e : ev) RR_CU(cuEventCreate(&e, CU_EVENT_DEFAULT));

  bool all_submitted = false;
  std::size_t pass = 1;
  const std::size_t max_passes = 4 * std::max<std::uint32_t>(pass_count_, 1) + 8;
  while (!all_submitted) {
    if (pass >= max_passes) return internal_error("CUPTI asked for more passes than the metric list needs");
    progress(range, pass + 1);
    debug("replay pass %s%ld", "", static_cast<long>(pass));
    RR_CU(cuEventRecord(ev[0], tool_stream_));
    if (plan != nullptr) {
      // Copies back only the chunks whose digest differs from the entry's,
      // recording the digests of the memory it found (the previous pass's
      // result) and the restored bytes. Without --verify the chunks the
      // previous pass changed (capture_changed's or the last restore's dirty
      // flags) are copied without being digested first (a replay writes the
      // chunks the application wrote): a range that rewrites its whole
      // footprint then costs one copy, not a digest and a copy. Every other
      // chunk is still digested, so a chunk changed only by this replay is
      // found. --verify needs the digest of every chunk: kDigestAll.
      RR_RETURN_IF_ERROR(plan->restore(tool_stream_, config_.verify ? ChunkRestoreMode::kDigestAll
                                                                     : ChunkRestoreMode::kCopyPredicted));
    } else {
      RR_RETURN_IF_ERROR(range.snapshot->restore(SnapshotState::kEntry, tool_stream_));
    }
    RR_RETURN_IF_ERROR(restore_globals(range, /*exit_state=*/false));
    if (corrupt_restores_for_tests()) {
      // Test-only (tests/e2e/verify.py): a restore that left bytes wrong, so
      // --verify must report divergence and the exit hand-back must still
      // give the application its own bytes.
      for (const auto& a : range.allocations)
        RR_CU(cuMemsetD8Async(a.range.start().address(), 0xA5, std::min<std::uint64_t>(a.range.size(), 16),
                              tool_stream_));
    }
    RR_CU(cuEventRecord(ev[1], tool_stream_));
    // The plan's counters and digests to the host, after the timed restore.
    if (plan != nullptr) RR_RETURN_IF_ERROR(plan->read_back(tool_stream_));
    // The restore is ordered before the replayed work by the stream itself,
    // but the restore kernel must finish before the counters start, or its
    // traffic would be counted with the first replayed kernel.
    RR_CU(cuStreamSynchronize(tool_stream_));
    std::uint64_t restored_bytes = range.snapshot->bytes();
    if (plan != nullptr) {
      restored_bytes = plan->host_counters().restored_bytes;
      // The memory this restore found is the previous replay's result.
      if (verify_with_plan && !range.record.pass_records.empty()) {
        auto verify_start = Clock::now();
        record_divergences(range, plan->table(), plan->host_digests(), plan->host_exit_digests(),
                           range.record.pass_records.back());
        t.verify_ms += ms_since(verify_start);
      }
    }
    auto c = Clock::now();
    RR_RETURN_IF_ERROR(session_->start_pass(range.name));
    t.counters_ms += ms_since(c);
    RR_CU(cuEventRecord(ev[3], tool_stream_));
    if (modules_.unloads() != range.unloads_at_end)
      return failed_precondition("a module was unloaded by another thread while the range was being replayed; its "
                                 "kernels cannot be launched again");
    auto submit_start = Clock::now();
    RR_RETURN_IF_ERROR(replayer.submit(tool_stream_));
    t.replay_submit_ms += ms_since(submit_start);
    RR_CU(cuEventRecord(ev[2], tool_stream_));
    RR_CU(cuEventSynchronize(ev[2]));
    c = Clock::now();
    RR_ASSIGN_OR_RETURN(all_submitted, session_->end_pass());
    t.counters_ms += ms_since(c);
    float restore_ms = 0, kernels_ms = 0;
    RR_CU(cuEventElapsedTime(&restore_ms, ev[0], ev[1]));
    RR_CU(cuEventElapsedTime(&kernels_ms, ev[3], ev[2]));
    t.restore_ms += restore_ms;
    t.kernels_ms += kernels_ms;
    range.record.pass_records.push_back({static_cast<std::uint32_t>(pass), restored_bytes, {}});
    if (verifier) {
      auto verify_start = Clock::now();
      RR_RETURN_IF_ERROR(compare_with_exit(range, *verifier, range.record.pass_records.back()));
      t.verify_ms += ms_since(verify_start);
    }
    ++pass;
  }
  range.record.passes = static_cast<std::uint32_t>(pass);
  if (range.host_captured_bytes > 0)
    range.record.notes.push_back(std::to_string(range.host_captured_bytes) +
                                 " bytes of pinned host memory passed to kernels were restored with the snapshot");
  if (!range.counting_pass0)
    range.record.notes.push_back("pass 0 ran without counters (it sized the counter data to its " +
                                 std::to_string(range.program.kernels().size()) + " kernels); all " +
                                 std::to_string(pass - 1) + " counter passes were replays");

  // The last replay's result, for --verify, when the exit restore below will
  // not digest it (restore_exit does).
  if (verify_with_plan && !exit_differential) {
    auto verify_start = Clock::now();
    RR_RETURN_IF_ERROR(plan->digest(tool_stream_));
    RR_CU(cuStreamSynchronize(tool_stream_));
    record_divergences(range, plan->table(), plan->host_digests(), plan->host_exit_digests(),
                       range.record.pass_records.back());
    t.verify_ms += ms_since(verify_start);
  }

  // The guard stays armed until the hand-back has completed: if a step here
  // fails, it restores the exit state again (best effort, every step).
  auto restore_start = Clock::now();
  if (exit_differential) {
    // Digests every chunk against the exit digests and copies back only the
    // ones that differ: the application's memory ends byte-identical to its
    // own range exit.
    RR_RETURN_IF_ERROR(plan->restore_exit(tool_stream_));
    if (verify_with_plan) RR_RETURN_IF_ERROR(plan->read_back(tool_stream_));
  } else {
    RR_RETURN_IF_ERROR(range.snapshot->restore(SnapshotState::kExit, tool_stream_));
  }
  RR_RETURN_IF_ERROR(restore_globals(range, /*exit_state=*/true));
  RR_CU(cuStreamSynchronize(tool_stream_));
  exit_state_guard.armed = false;
  t.restore_ms += ms_since(restore_start);
  if (verify_with_plan && exit_differential) {
    auto verify_start = Clock::now();
    record_divergences(range, plan->table(), plan->host_digests(), plan->host_exit_digests(),
                       range.record.pass_records.back());
    t.verify_ms += ms_since(verify_start);
  }
  return ok_status();
}

Status ProfilerTool::evaluate(ActiveRange& range) {
  auto start = Clock::now();
  RR_ASSIGN_OR_RETURN(std::size_t dropped, session_->decode());
  RR_ASSIGN_OR_RETURN(auto values, evaluator_->evaluate(session_->counter_data()));
  range.record.timings.decode_ms += ms_since(start);
  record_kernels(range, values);
  if (dropped) range.record.notes.push_back(std::to_string(dropped) + " counter ranges dropped by CUPTI");
  return ok_status();
}

std::vector<report::MetricValue> ProfilerTool::metric_values(const std::vector<double>& v) const {
  const auto& names = evaluator_->metrics();
  const auto& units = evaluator_->units();
  std::vector<report::MetricValue> out;
  for (std::size_t m = 0; m < names.size() && m < v.size(); ++m) out.push_back({names[m], units[m], v[m]});
  return out;
}

void ProfilerTool::record_kernels(ActiveRange& range, const std::vector<std::vector<double>>& values) {
  // Plain launches and graph kernel nodes, with the counter range of each
  // (map_counter_ranges: CUPTI's auto range may count a graph launch as one
  // range or one per kernel node; core/graph_nodes.h).
  const bool per_kernel = config_.range_metrics == RangeMetrics::kPerKernel && !range.whole_range_counters;
  const auto kernels = range.program.kernels();
  const CounterRangeMap ranges = map_counter_ranges(range.program.launch_units(), values.size());
  std::vector<std::uint64_t> streams;  // launch stream of each kernel
  for (const auto& op : range.program.ops) {
    if (const auto* k = std::get_if<KernelLaunchOp>(&op)) streams.push_back(k->stream);
    if (const auto* g = std::get_if<GraphLaunchOp>(&op); g != nullptr && g->kernels)
      streams.insert(streams.end(), g->kernels->size(), g->stream);
  }
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelLaunchOp& k = *kernels[i];
    report::KernelRecord kr;
    kr.index = static_cast<std::uint32_t>(i);
    kr.mangled_name = k.name;
    kr.name = report::demangle(k.name);
    kr.stream_id = i < streams.size() ? streams[i] : k.stream;
    kr.grid = {k.grid[0], k.grid[1], k.grid[2]};
    kr.block = {k.block[0], k.block[1], k.block[2]};
    kr.shared_mem_bytes = k.shared_mem_bytes;
    kr.launch_index = k.launch_index;
    if (per_kernel && i < ranges.kernel_range.size() &&
        ranges.kernel_range[i] && *ranges.kernel_range[i] < values.size())
      kr.metrics = metric_values(values[*ranges.kernel_range[i]]);
    range.record.kernels.push_back(std::move(kr));
  }
  if (!per_kernel && !values.empty()) range.record.range_metrics = metric_values(values[0]);
  if (per_kernel) {
    if (ranges.layout == CounterRangeLayout::kMismatch) {
      range.record.notes.push_back("CUPTI returned " + std::to_string(values.size()) + " kernel ranges for " +
                                   std::to_string(kernels.size()) + " recorded kernels");
    } else if (ranges.layout == CounterRangeLayout::kPerLaunch) {
      // Each graph launch was measured as one counter range: its kernels get
      // no per-kernel values; the launch's values are listed here.
      for (std::size_t g = 0; g < ranges.graph_range.size(); ++g) {
        if (!ranges.graph_range[g] || *ranges.graph_range[g] >= values.size()) continue;
        std::string note = "graph launch " + std::to_string(g + 1) + " was measured as one counter range:";
        for (const auto& m : metric_values(values[*ranges.graph_range[g]]))
          note += " " + m.name + "=" + std::to_string(m.value);
        range.record.notes.push_back(std::move(note));
      }
    }
  }
}

}  // namespace rangereplay::tool
