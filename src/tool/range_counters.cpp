// RangeCounters (range_counters.h): the counter set-up, pass 0's start and
// stop, the counter image sized to a recorded pass 0, the cache flush and
// lead-in hooks of a replayed pass, the evaluation and the standing pass.
#include "tool/range_counters.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/elapsed.h"
#include "core/base/environment.h"
#include "cuda/cu_status.h"
#include "tool/context_scope.h"
#include "tool/controller_helpers.h"
#include "tool/counter_setup.h"
#include "tool/logic/counter_session.h"
#include "tool/logic/range_report.h"

namespace rangereplay::tool {

namespace {
using Clock = std::chrono::steady_clock;

// The report's device name and driver version ("13.0"), where the driver
// answers.
void note_device(report::Report& report, CUdevice device) {
  char name[256] = {};
  if (cuDeviceGetName(name, sizeof name, device) == CUDA_SUCCESS) report.device_name = name;
  int driver = 0;
  if (cuDriverGetVersion(&driver) == CUDA_SUCCESS)
    report.driver_version = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
}
}  // namespace

std::optional<Decline> RangeCounters::admit(CUcontext ctx) {
  if (counters_ && counters_context_ != ctx) {
    // Only this range: later ranges in the profiled context still run.
    return Decline{DeclineReason::kMultipleContexts,
                   "range in a second context; only the first profiled context is supported"};
  }
  if (counters_failed_) return counters_failed_;
  if (std::optional<Decline> failed = ensure_counters(ctx)) {
    // A capture kept the set-up on the tool's thread from ending: this range
    // only (the next one takes the set-up).
    if (failed->reason == DeclineReason::kStreamCaptureActive) return failed;
    counters_failed_ = std::move(failed);
    parts_.report.errors.push_back(counters_failed_->detail);
    if (!parts_.config.quiet) std::fprintf(stderr, "rangereplay: %s\n", counters_failed_->detail.c_str());
    return counters_failed_;
  }
  return std::nullopt;
}

void RangeCounters::at_exit() {
  exiting_ = true;
  if (counters_) parts_.report.time_budget->first_pass_start_ms = counters_->first_pass_start_ms();
}

std::optional<Decline> RangeCounters::ensure_counters(CUcontext ctx) {
  if (counters_) {
    if (counters_context_ != ctx)
      return Decline{DeclineReason::kMultipleContexts,
                     "range in a second context; only one context per process is profiled"};
    return std::nullopt;
  }
  auto start = Clock::now();
  StatusOr<CounterSetup> setup = make_counter_setup(ctx);
  Status s = setup.status();
  const auto create_stream = [this]() -> Status {
    RR_CU(cuStreamCreate(&tool_stream_, CU_STREAM_NON_BLOCKING));
    return ok_status();
  };
  if (s.ok()) s = create_stream();
  if (s.ok()) flush_.bind(setup->device, tool_stream_);
  // The L2 flush: with --cache-control all before every counted pass; with
  // none after the entry snapshot and after each replay's restore, so the
  // tool's dirty lines are written back before the counters start. A
  // one-pass list under none neither snapshots nor restores: no flush.
  if (s.ok() && (parts_.config.cache_control == CacheControl::kAll || setup->session->pass_count() > 1)) {
    if (Status flush = flush_.create(); !flush.ok()) {
      // The ranges still run, without a flush: the report says so (the
      // cache control that held is none), and why.
      parts_.report.errors.push_back(
          flush.message() +
          "; the passes start from the cache state as the application and the tool left it (cache control "
          "none, and replayed passes may count the tool's write-backs as DRAM writes); free device memory for it");
      parts_.report.cache_control = std::string(name_of(kCacheControlNames, CacheControl::kNone));
    }
  }
  if (!s.ok()) return decline_of(s, DeclineReason::kCountersUnavailable);
  counters_ = std::move(setup->session);
  // Under a flush, whole-range passes open with a lead-in counter range in
  // which the flush runs once more, after CUPTI's start: what the start
  // leaves dirty in L2 is written back there, not in the range's counters
  // (PassFlush::end_lead_in; its values are dropped in evaluate).
  // RANGEREPLAY_WHOLE_RANGE_LEAD_IN=0 leaves it out, to measure its cost.
  if (flush_.exists() && !parts_.config.app_range && !environment::whole_range_lead_in_off())
    s = counters_->backend().set_lead_in(true);
  if (!s.ok()) return decline_of(s, DeclineReason::kCountersUnavailable);
  counters_context_ = ctx;
  counters_device_ = setup->device;
  // Not in application range replay runs: their passes configure the
  // object for application replay, which would replace it after a warm-up
  // in user replay.
  if (!environment::counter_warm_up_off() && !parts_.config.app_range) {
    // CUPTI's first start of the process, before the first range's pass 0
    // (its time is in the report's setup_ms, not the range's).
    parts_.mutex.set_stage("configuring counters: warm-up pass");
    if (Status w = counters_->warm_up(); !w.ok())
      parts_.report.errors.push_back("the counter warm-up pass failed (" + w.message() +
                                     "); the first range's counters may include CUPTI's first-start work");
  }
  parts_.report.chip_name = setup->chip;
  parts_.report.counter_backend = setup->backend;
  parts_.report.metrics = std::move(setup->metrics);
  parts_.report.missing_metrics = std::move(setup->missing);
  parts_.report.pass_count = counters_->pass_count();
  parts_.report.setup_ms = ms_since(start);
  note_device(parts_.report, setup->device);
  return std::nullopt;
}

CounterSessionOptions counter_session_options(const ProfileConfig& config) {
  CounterSessionOptions options;
  // Application range replay counts whole ranges in their own execution.
  options.whole_range_metrics = config.range_metrics == RangeMetrics::kWholeRange || config.app_range.has_value();
  // Under --cache-control all a standing pass still holds: only work between
  // a push and its pop is counted, so the flush before each push is not.
  options.standing_pass = !environment::standing_pass_off() && !config.app_range;
  options.max_kernels_per_range = environment::max_kernels_per_range().value_or(0);
  return options;
}

StatusOr<CounterSetup> RangeCounters::make_counter_setup(CUcontext ctx) {
  if (parts_.prewarm != nullptr) {
    // The set-up a tool thread began at the application's first allocation:
    // waited for here (it takes no lock of the tool), adopted when it was
    // made in this context.
    parts_.mutex.set_stage("configuring counters: waiting for the set-up on the tool's thread");
    if (std::optional<StatusOr<CounterSetup>> made = parts_.prewarm->take(ctx, kPrewarmWait)) {
      if (made->ok()) debug("counters set up on the tool's thread before the first range%s", "");
      return std::move(*made);
    }
  }
  const CounterSetupHooks hooks{[this](const char* stage) { parts_.mutex.set_stage(stage); },
                                [](const std::string& line) { debug("%s", line); }};
  // Device-side CUPTI calls fail while the metric host warm-up runs.
  parts_.mutex.set_stage("configuring counters: metric host library");
  if (Status host = metric_host_ready(); !host.ok()) return host;
  // A failing step names its reason where the fact is known (CUPTI's
  // privileges, an unknown metric: cupti_status.h, metric_catalog.h).
  return set_up_counters(ctx, parts_.config.metrics, parts_.config.metric_set, counter_session_options(parts_.config),
                         hooks);
}

Status RangeCounters::start_counting_pass0(ActiveRange& range) {
  Status s = ok_status();
  parts_.mutex.set_stage("range begin: starting pass 0");
  // Under all every counted pass starts cold. Under none the entry snapshot
  // of a multi-pass range (its copy's writes, dirty in L2) is drained, so
  // that no byte the tool moved is counted as the range's; a range without
  // one starts from the cache as the application left it, even once a
  // capture's range made a flush buffer for a one-pass list (prepare_pass0).
  const bool flush_before_pass0 =
      flush_.exists() && (parts_.config.cache_control == CacheControl::kAll || range.snapshot.has_value());
  auto c = Clock::now();
  if (counters_->standing_pass_eligible()) {
    // The pass opens before the flush, which runs and ends before the push:
    // what CUPTI's start leaves dirty in L2 is written back outside every
    // pushed range, as for the ranges after the first.
    s = counters_->standing().open(range.name);
    if (s.ok() && flush_before_pass0) s = flush_.flush_and_wait();
    if (s.ok()) s = push_standing_range(range);
    debug("standing pass: range pushed: %s", s.to_string());
  } else {
    if (flush_before_pass0) {  // runs and ends before the counters start
      s = flush_.flush_and_wait();
      debug("caches flushed before pass 0: %s", s.to_string());
    }
    if (s.ok()) s = counters_->backend().resize(counters_->counter_ranges_for(range.name));
    if (s.ok()) s = counters_->backend().begin_range();
    debug("set config: %s", s.to_string());
    if (s.ok()) {
      s = counters_->start_pass(range.name);
      // A failed lead-in leaves no pass open behind the decline: the next
      // range could not configure its counters inside it.
      if (s.ok()) s = flush_.end_lead_in(*counters_, range.name);
      if (!s.ok() && counters_->in_pass()) counters_->end_pass().status().ignore();
    }
    debug("pass 0 started: %s", s.to_string());
  }
  range.record.timings.counters_ms += ms_since(c);
  return s;
}

bool RangeCounters::can_record_pass0_only() const { return counters_ && !counters_->standing_pass_eligible(); }

bool RangeCounters::end_counted_pass0(const ActiveRange& range) {
  if (!range.snapshot || standing_counter_range(range.counters) || !counters_ || !counters_->in_pass()) return false;
  const RangeContextScope in_range_context(range.ctx);
  counters_->end_pass().status().ignore();
  return true;
}

bool RangeCounters::stop_pass0(ActiveRange& range, bool drained, std::size_t kernel_count) {
  auto& t = range.record.timings;
  if (standing_counter_range(range.counters) != nullptr) {
    // The standing pass stays open: close this range's counter range only.
    auto c = Clock::now();
    Status popped = counters_->backend().pop_range();
    t.counters_ms += ms_since(c);
    debug("standing pass: range popped: %s", popped.to_string());
    if (!popped.ok()) decline(range, DeclineReason::kCountersUnavailable, popped.message());
    return true;
  }
  if (const auto* recording = std::get_if<Recording>(&range.state); recording != nullptr && recording->counting_pass0) {
    auto c = Clock::now();
    auto done = counters_->end_pass();
    t.counters_ms += ms_since(c);
    debug("pass 0 stopped%s", "");
    bool all_submitted = false;
    if (!done.ok()) {
      decline(range, DeclineReason::kCountersUnavailable, done.status().message());
    } else {
      all_submitted = *done;
    }
    if (kernel_count > counters_->backend().max_ranges() && parts_.config.range_metrics == RangeMetrics::kPerKernel)
      range.record.notes.push_back(std::to_string(kernel_count) + " kernels, more than the " +
                                   std::to_string(counters_->backend().max_ranges()) +
                                   " the counter image held; set RANGEREPLAY_MAX_KERNELS_PER_RANGE higher");
    return all_submitted;
  }
  if (drained && kernel_count > 0 && !range.eligibility.declined()) {
    auto c = Clock::now();
    Status configured = size_counters_to_pass0(range, kernel_count);
    t.counters_ms += ms_since(c);
    debug("set config%s for %ld kernels", "", static_cast<long>(kernel_count));
    if (!configured.ok()) decline(range, DeclineReason::kCountersUnavailable, configured.message());
  }
  return false;
}

CounterLayout RangeCounters::own_layout(const ActiveRange& range) const {
  return layout_after_recording_pass0(parts_.config.range_metrics == RangeMetrics::kPerKernel,
                                      !range.program.graph_execs().empty(), environment::user_kernel_ranges(),
                                      flush_.exists());
}

CounterLayout RangeCounters::batch_layout() const {
  return batched_layout(parts_.config.range_metrics == RangeMetrics::kPerKernel, environment::user_kernel_ranges(),
                        flush_.exists());
}

void RangeCounters::restore_configured_mode(const ActiveRange& range) {
  if (counter_mode(range.counters, counters_->configured_mode()) != counters_->configured_mode())
    counters_->backend().set_mode(counters_->configured_mode()).ignore();
}

Status RangeCounters::size_counters_to_pass0(ActiveRange& range, std::size_t kernel_count,
                                             std::optional<CounterLayout> layout) {
  // (Under --range-metrics whole every range is measured whole.) With
  // RANGEREPLAY_KERNEL_RANGES=user the replay pushes a user range around each
  // kernel it submits; CUPTI's auto ranges (the default) cost the same per
  // kernel and pass on the H200 (docs/performance.md). Under a cache flush,
  // CUPTI's auto ranges get one more counter range: the lead-in flush each
  // replayed pass runs first.
  range.counters = layout ? *layout : own_layout(range);
  const CounterMode mode = counter_mode(range.counters, counters_->configured_mode());
  Status configured = mode != counters_->configured_mode() ? counters_->backend().set_mode(mode) : ok_status();
  if (const auto* whole = std::get_if<WholeRange>(&range.counters); whole != nullptr && whole->graph_launches) {
    range.record.notes.push_back(
        "graph launches in this range: its metrics are for the whole range, not per kernel (CUPTI's per-kernel "
        "ranges fail on replayed graph launches)");
  }
  if (configured.ok()) configured = counters_->backend().resize(counter_ranges(range.counters, kernel_count));
  if (configured.code() == StatusCode::kResourceExhausted)
    configured = resource_exhausted(configured.message() +
                                    "; narrow the range, collect fewer metrics, or use --range-metrics whole");
  if (configured.ok()) configured = counters_->backend().begin_range();
  return configured;
}

bool RangeCounters::ends_profiled_context(const TeardownParams& teardown) const {
  switch (teardown.what) {
    case ContextTeardown::kNone: return false;
    case ContextTeardown::kContext: return teardown.context == counters_context_;
    case ContextTeardown::kPrimaryReset:
    case ContextTeardown::kPrimaryRelease: return teardown.device == counters_device_;
  }
  return false;
}

Status RangeCounters::push_standing_range(ActiveRange& range) {
  RR_ASSIGN_OR_RETURN(std::size_t counter_range, counters_->standing().push(range.name));
  range.counters = StandingRange{counter_range};
  return ok_status();
}

void RangeCounters::flush_standing_pass(const char* why) {
  if (!counters_ || !counters_->standing().is_open()) return;
  parts_.mutex.set_stage("flushing the standing pass");
  const auto start = Clock::now();
  counters_->standing().flush(why, parts_.report.ranges, RangeReporter(parts_.config.quiet));
  if (!exiting_) parts_.report.time_budget->standing_flushes_ms += ms_since(start);
}

Status RangeCounters::evaluate(ActiveRange& range) {
  auto start = Clock::now();
  RR_ASSIGN_OR_RETURN(std::size_t dropped, counters_->backend().decode());
  RR_ASSIGN_OR_RETURN(auto values, counters_->backend().evaluate());
  range.record.timings.decode_ms += ms_since(start);
  const bool whole_range_lead_in = counters_->backend().pass_has_lead_in();
  if (has_lead_in_flush(range.counters) || whole_range_lead_in) {
    // Every pass's first counter range was the lead-in flush's: the first
    // auto range, one more than the range's kernels, or the whole-range
    // lead-in before the range's own. Any other count, or a range dropped
    // from a full image, could shift every value by one.
    const std::size_t kernels = range.program.kernels().size();
    if (values.size() != lead_in_counter_ranges(kernels, whole_range_lead_in) || dropped > 0) {
      // CUPTI's names for the ranges it did return may say which launch went
      // uncounted.
      return check_lead_in_ranges(values.size(), kernels, whole_range_lead_in, dropped,
                                  range_names_or_none(counters_->backend()));
    }
    values.erase(values.begin());
    range.record.notes.push_back(whole_range_lead_in
                                     ? "every counted pass flushed L2 again after its counters started, in a counter "
                                       "range of its own that is left out"
                                     : "every replayed pass flushed L2 again after its counters started, as its first "
                                       "kernel (that kernel's counter range is left out)");
  }
  record_kernels(range, values);
  if (dropped) range.record.notes.push_back(std::to_string(dropped) + " counter ranges dropped by CUPTI");
  return ok_status();
}

void RangeCounters::record_kernels(ActiveRange& range, const std::vector<std::vector<double>>& values) {
  const bool per_kernel = per_kernel_values(range.counters);
  tool::record_kernels(range.record, range.program, per_kernel, counters_->columns(), values);
}

}  // namespace rangereplay::tool
