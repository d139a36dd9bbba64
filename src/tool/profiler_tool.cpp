// ProfilerTool: set-up, callback dispatch and the report at exit (see
// profiler_tool.h). Every callback returns at once while the current thread
// runs the tool's own work (in_tool()), and outside a range every callback
// but allocation tracking, range markers and (with --kernel-range, until the
// last window) kernel launches costs one or two atomic loads.
//
// Range selection lives in the core range layer behind RangeTrigger: this
// file only turns NVTX and driver callbacks into its calls (names, domains,
// registered strings, thread numbers; NVTX parameters are decoded by
// nvtx_calls.h) and acts on the RangeEvents it returns.
#include "tool/profiler_tool.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>

#include "core/base/elapsed.h"
#include "core/config/metric_sets.h"
#include "core/interprocess/launcher_gate.h"
#include "cupti/cupti_status.h"
#include "report/report_json.h"
#include "report/time_budget.h"
#include "tool/logic/nvtx_calls.h"

namespace rangereplay::tool {

namespace {
thread_local bool t_in_tool = false;

// Set when an exception reached the callback: the tool then stays out of the
// way for the rest of the process (no exception may cross into CUPTI or the
// driver, and a tool in an unknown state must not touch the application's
// memory again). RAII guards in the tool (InToolScope, locks, the replay
// window's exit-state guard) have run during the unwinding.
std::atomic<bool> g_tool_stopped{false};

void stop_tool(const char* what) noexcept {
  if (g_tool_stopped.exchange(true)) return;
  std::fprintf(stderr,
               "rangereplay: internal error (%s); profiling stopped, the application continues. Please report it "
               "with RANGEREPLAY_DEBUG=1 output.\n",
               what);
}

void CUPTIAPI callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) noexcept {
  if (t_in_tool || g_tool_stopped.load(std::memory_order_relaxed)) return;
  auto* tool = static_cast<ProfilerTool*>(userdata);
  try {
    switch (domain) {
      case CUPTI_CB_DOMAIN_DRIVER_API: tool->on_driver_api(cbid, static_cast<const CUpti_CallbackData*>(data)); break;
      case CUPTI_CB_DOMAIN_NVTX: tool->on_nvtx(cbid, static_cast<const CUpti_NvtxData*>(data)); break;
      case CUPTI_CB_DOMAIN_RESOURCE: tool->on_resource(cbid, static_cast<const CUpti_ResourceData*>(data)); break;
      default: break;
    }
  } catch (const std::exception& e) {
    stop_tool(e.what());
  } catch (...) {
    stop_tool("unknown exception");
  }
}

// Launch number of this thread's launch in flight whose API_EXIT ends a
// kernel window (set at its API_ENTER).
thread_local std::optional<std::uint64_t> t_window_end_launch;
// The number of the kernel launch this thread is making (kernel_launches_),
// set at its API_ENTER, read when the launch is recorded.
thread_local std::int64_t t_launch_index = -1;

}  // namespace

std::uint64_t tool_thread_number() {
  static std::atomic<std::uint64_t> next{1};
  thread_local const std::uint64_t number = next.fetch_add(1, std::memory_order_relaxed);
  return number;
}

bool in_tool() { return t_in_tool; }
std::int64_t current_launch_index() { return t_launch_index; }
InToolScope::InToolScope() : previous_(t_in_tool) { t_in_tool = true; }
InToolScope::~InToolScope() { t_in_tool = previous_; }

ProfilerTool& ProfilerTool::instance() {
  static ProfilerTool* tool = new ProfilerTool();  // never destroyed: callbacks may outlive statics
  return *tool;
}

namespace {

// NVTX hands its events to the CUPTI library that NVTX_INJECTION64_PATH names
// (loaded at the application's first NVTX call). The tool's CUPTI is the copy
// the process had loaded when the tool started; when the application brought
// its own (PyTorch loads libcupti for Kineto), the launcher's path names a
// second copy whose NVTX events reach no subscriber, and no range ever
// matched (seen on the H200 with torch 2.11). Point the variable at the copy
// in use; it takes effect when the application's first NVTX call comes after
// CUDA's initialization (the tool's), as in PyTorch.
void point_nvtx_at_loaded_cupti() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) == 0 || info.dli_fname == nullptr) return;
  char loaded[PATH_MAX];
  if (realpath(info.dli_fname, loaded) == nullptr) return;
  const char* named = std::getenv(environment::kNvtxInjection);
  char named_real[PATH_MAX];
  if (named != nullptr && realpath(named, named_real) != nullptr && std::strcmp(named_real, loaded) == 0) return;
  setenv(environment::kNvtxInjection, loaded, 1);
  if (debug_enabled())
    std::fprintf(stderr, "rangereplay[debug] NVTX_INJECTION64_PATH set to the CUPTI in use: %s\n", loaded);
}

}  // namespace

namespace {

// Runs the tool's exit step `step` from an atexit handler: no exception
// leaves it.
void at_exit_guarded(void (ProfilerTool::*step)()) noexcept {
  try {
    (ProfilerTool::instance().*step)();
  } catch (const std::exception& e) {
    stop_tool(e.what());
  } catch (...) {
    stop_tool("unknown exception at exit");
  }
}

// The report's process id, host name and the environment variables `config`
// names (and the ranks' variables) that are set here.
void record_process_identity(report::Report& report, const ProfileConfig& config) {
  report.process_id = static_cast<std::uint32_t>(::getpid());
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) report.host_name = host;
  const auto record = [&report](const std::string& name) {
    if (const char* value = std::getenv(name.c_str())) (*report.environment)[name] = value;
  };
  for (const std::string& name : config.report_environment) record(name);
  for (const char* name : kRankVariables) record(name);
}

}  // namespace

Status ProfilerTool::initialize() {
  // The launcher gate is taken now and waited at when the first range
  // begins: the application starts while the launcher runs its device checks
  // (cuInit, metric names), and a failed check kills it before any range is
  // profiled. The wait, if any, counts in the launcher's launcher_ms.
  report_.time_budget->tool_start_clock_ms = monotonic_ms();
  const bool debug = debug_enabled();
  HeldLauncherGate gate = take_launcher_gate();
  if (debug)
    std::fprintf(stderr, "rangereplay[debug] injection: launcher gate %s\n",
                 gate.held() ? "taken, waited at when the first range begins" : gate_outcome_name(gate.wait().outcome));
  ranges_.hold_gate(std::move(gate));
  const auto start = std::chrono::steady_clock::now();
  Status s = configure_and_subscribe();
  if (debug)
    std::fprintf(stderr, "rangereplay[debug] injection: config read, CUPTI subscribe, domains enabled %.3f ms\n",
                 ms_since(start));
  return s;
}

Status ProfilerTool::configure_and_subscribe() {
  const std::optional<std::string>& path = environment::config_path();
  if (!path)
    return failed_precondition("RANGEREPLAY_CONFIG is not set; start the application with `rangereplay profile`");
  RR_ASSIGN_OR_RETURN(config_, read_profile_config(*path));
  RR_RETURN_IF_ERROR(trigger_.configure(config_));
  report_.tool_version = "0.1.0";
  report_.command = config_.command;
  record_process_identity(report_, config_);
  journal_ = std::make_unique<report::JournalWriter>(
      report::journal_path_for(report_path_for_process(config_, report_.process_id)));
  // The requested list, each set role in its GH100 spelling, until the
  // counters are set up on the device's chip (RangeCounters::ensure_counters
  // puts the chip's list and what it lacks in the report).
  RR_ASSIGN_OR_RETURN(ResolvedMetrics requested, resolve_metric_list(config_.metrics, config_.metric_set,
                                                                     [](const std::string&) { return true; }));
  report_.metrics = std::move(requested.metrics);
  report_.range_metrics = std::string(name_of(kRangeMetricsNames, config_.range_metrics));
  report_.verify = config_.verify;
  report_.cache_control = std::string(name_of(kCacheControlNames, config_.cache_control));

  // Before the callbacks, which read it: the counter set-up on a tool thread
  // (not for application range replay's runs, which configure their own).
  prewarm_wanted_ = environment::counter_prewarm() && !config_.app_range;
  point_nvtx_at_loaded_cupti();
  CUpti_SubscriberHandle subscriber = nullptr;
  RR_CUPTI(cuptiSubscribe(&subscriber, callback, this));
  for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CB_DOMAIN_NVTX}) {
    if (const CUptiResult r = cuptiEnableDomain(1, subscriber, domain); r != CUPTI_SUCCESS) {
      // No callback of a half-made subscription may run behind the
      // "profiling disabled" the caller prints.
      cuptiUnsubscribe(subscriber);
      return cupti_status(r, "cuptiEnableDomain", __FILE__, __LINE__);
    }
  }
  // A child forked without exec inherits the subscription, and maybe a tool
  // lock some other thread of the parent held at the fork, whose owner does
  // not exist in the child: every callback of the child returns at once.
  pthread_atfork(nullptr, nullptr, [] { g_tool_stopped.store(true, std::memory_order_relaxed); });
  enabled_ = true;
  std::atexit([] { at_exit_guarded(&ProfilerTool::finish); });
  return ok_status();
}

void ProfilerTool::sync_journal() noexcept {
  if (!journal_) return;
  try {
    const std::vector<std::size_t> unsettled = ranges_.unsettled_records();
    const bool was_on = journal_->error().empty();
    if (Status s = journal_->sync(report_, unsettled); !s.ok() && was_on) {
      std::fprintf(stderr,
                   "rangereplay: %s; finished ranges are kept in memory and written at exit only (a kill then "
                   "loses them)\n",
                   s.message().c_str());
    }
  } catch (...) {
    journal_->disable();  // out of memory for the list: the report is still written at exit
  }
}

bool ProfilerTool::exiting_inside_the_tool() const {
  if (!mutex_.held_by(tool_thread_number())) return false;
  std::fprintf(stderr,
               "rangereplay: the process is exiting from inside the profiler's callback on this thread (a signal "
               "handler called exit); the report is left to the launcher, which rebuilds it from the journal\n");
  return true;
}

bool ProfilerTool::forked_child() const { return static_cast<std::uint32_t>(::getpid()) != report_.process_id; }

void ProfilerTool::replay_deferred_at_exit() {
  if (forked_child() || finished_.load() || g_tool_stopped.load(std::memory_order_relaxed) ||
      !ranges_.deferred().has_pending())
    return;
  if (exiting_inside_the_tool()) return;
  ToolLock lock = lock_tool("process exit");
  InToolScope scope;
  ranges_.deferred().flush_pending("the process is exiting");
}

void ProfilerTool::finish() {
  // A child forked without exec runs its parent's exit handlers: it has the
  // parent's state from before the fork (and maybe a lock another thread
  // held then), so it neither waits for the lock nor writes a report.
  if (forked_child() || finished_.exchange(true) || !enabled_) return;
  // exit() called on a thread that is inside the tool (an application signal
  // handler that ran during a callback): the lock is this thread's own and
  // the tool's state half-changed, so nothing is written; the journal holds
  // every finished range and the launcher rebuilds the report from it. Nor
  // is the warm-up waited for: this thread may hold the host API's lock the
  // warm-up thread waits for.
  if (exiting_inside_the_tool()) return;
  // The warm-up thread may be inside CUPTI's host library: it ends before the
  // process does.
  metric_host_warm_up_.finish();
  counter_prewarm_.finish();
  ToolLock lock = lock_tool("process exit");
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  report_.time_budget->exit_start_clock_ms = monotonic_ms();
  // Calls outside ranges stop waiting for the lock before the exit flush.
  range_open_.store(false, std::memory_order_relaxed);
  ranges_.at_exit();
  report::sum_range_times(report_);
  const auto write_start = std::chrono::steady_clock::now();
  if (Status s = report::write_report_json(report_, report_path_for_process(config_, report_.process_id)); !s.ok()) {
    std::fprintf(stderr, "rangereplay: %s\n", s.message().c_str());
    // The journal keeps the finished ranges; the launcher rebuilds the report
    // from it. The ranges at_exit settled or declined are synced first: once
    // the journal is off, this lock's release no longer writes them.
    if (journal_) {
      sync_journal();
      journal_->disable();
    }
  } else if (journal_) {
    if (Status removed = journal_->remove(); !removed.ok())
      std::fprintf(stderr, "rangereplay: %s\n", removed.message().c_str());
  }
  if (debug_enabled())
    std::fprintf(stderr, "rangereplay[debug] injection: report written %.3f ms\n", ms_since(write_start));
}

void ProfilerTool::on_range_event(const range::RangeEvent& event, CUcontext ctx) {
  switch (event.kind) {
    case range::RangeEventKind::kBegin:
      first_range_begun_.store(true, std::memory_order_relaxed);
      range_beginning_.store(true, std::memory_order_seq_cst);
      ranges_.begin(event, ctx);
      break;
    case range::RangeEventKind::kEnd:
      ranges_.end();
      if (ranges_.deferred().has_pending() && !exit_replay_registered_) {
        // Registered after the runtime's own exit handler, so it runs before
        // it: the deferred ranges are replayed while the application's
        // modules are still loaded.
        exit_replay_registered_ = true;
        std::atexit([] { at_exit_guarded(&ProfilerTool::replay_deferred_at_exit); });
      }
      break;
    case range::RangeEventKind::kDeclinedOverlap: ranges_.record_overlapping(event); break;
    case range::RangeEventKind::kSkipped: break;
  }
  range_open_.store(ranges_.active() != nullptr, std::memory_order_seq_cst);
  range_beginning_.store(false, std::memory_order_seq_cst);
}

void ProfilerTool::on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  if (!trigger_.listens_to_nvtx()) return;
  // Decoded before the lock: a call that changes no range (a mark, a thread
  // or category name) does not wait out another thread's replay window.
  const std::uint64_t thread = tool_thread_number();
  NvtxCall call = decode_nvtx_call(cbid, *data);
  if (call.kind == NvtxCallKind::kIgnored) return;
  ToolLock lock = lock_tool("NVTX");
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  on_nvtx_locked(thread, std::move(call));
}

void ProfilerTool::on_nvtx_locked(std::uint64_t thread, NvtxCall call) {
  // A domain created before the tool subscribed has no known name: it gets
  // one no expression can name, so its ranges never match by accident.
  auto domain_name = [&](const void* d) -> std::string {
    if (d == nullptr) return "";
    auto it = nvtx_domains_.find(d);
    if (it != nvtx_domains_.end()) return it->second;
    char buf[48];
    std::snprintf(buf, sizeof buf, "<unnamed domain %p>", d);
    return buf;
  };
  // The range's message: its text, or the registered string it names (empty
  // when the string is unknown).
  auto message = [&]() -> std::string {
    if (call.string == nullptr) return std::move(call.text);
    auto it = nvtx_strings_.find(call.string);
    return it == nvtx_strings_.end() ? std::string() : it->second;
  };

  std::optional<range::RangeEvent> event;
  switch (call.kind) {
    case NvtxCallKind::kPush: event = trigger_.on_push(thread, domain_name(call.domain), message()); break;
    case NvtxCallKind::kPop: event = trigger_.on_pop(thread, domain_name(call.domain)); break;
    case NvtxCallKind::kStart:
      event = trigger_.on_start(thread, domain_name(call.domain), message(), call.range_id);
      break;
    case NvtxCallKind::kEnd: event = trigger_.on_end(thread, call.range_id); break;
    case NvtxCallKind::kDomainCreated: nvtx_domains_[call.domain] = std::move(call.text); break;
    case NvtxCallKind::kDomainDestroyed: nvtx_domains_.erase(call.domain); break;
    case NvtxCallKind::kStringRegistered: nvtx_strings_[call.string] = std::move(call.text); break;
    case NvtxCallKind::kIgnored: break;
  }
  if (!event) return;
  CUcontext ctx = nullptr;
  if (event->kind == range::RangeEventKind::kBegin) cuCtxGetCurrent(&ctx);
  on_range_event(*event, ctx);
}

void ProfilerTool::maybe_prewarm_counters(const CUpti_CallbackData* data) {
  // After the call, when it succeeded in a context and no range has begun:
  // the application uses the GPU, and the counters are not set up yet.
  if (data->callbackSite != CUPTI_API_EXIT || data->context == nullptr || !call_succeeded(data) ||
      first_range_begun_.load(std::memory_order_relaxed) || forked_child())
    return;
  CUdevice device = 0;
  {
    InToolScope scope;
    if (cuCtxGetDevice(&device) != CUDA_SUCCESS) return;
  }
  CounterPrewarm::Request request{data->context, device, config_.metrics, config_.metric_set,
                                  counter_session_options(config_)};
  if (counter_prewarm_.start(std::move(request)) && debug_enabled_)
    std::fprintf(stderr, "rangereplay[debug] %s: the counter set-up starting on a tool thread\n",
                 data->functionName != nullptr ? data->functionName : "first allocation");
}

void ProfilerTool::on_launch_site(const DriverCall& call, const CUpti_CallbackData* data) {
  if (prewarm_wanted_ && !counter_prewarm_.started()) maybe_prewarm_counters(data);
  if (data->callbackSite == CUPTI_API_EXIT) {
    if (!t_window_end_launch) return;
    const std::uint64_t index = *t_window_end_launch;
    t_window_end_launch.reset();
    ToolLock lock = lock_tool(data->functionName);
    // Driver calls made while holding mutex_ must not reach our own callbacks.
    InToolScope scope;
    // The window's last launch has been submitted: the range may end.
    if (auto event = trigger_.after_launch(tool_thread_number(), index)) on_range_event(*event, data->context);
    return;
  }
  if (data->callbackSite != CUPTI_API_ENTER) return;
  if (const CaptureState& captures = record_.captures();
      captures.open_captures() > 0 && captures.is_capturing(capture_key(call, call.decode(data->functionParams)))) {
    // Captured into a graph: it does not execute now, so it is no kernel
    // launch of the process (a kernel window does not count it) and no work
    // of a range (RangeController::capture_begins).
    t_launch_index = -1;
    return;
  }
  t_launch_index = static_cast<std::int64_t>(kernel_launches_.fetch_add(1, std::memory_order_relaxed));
  // While ranges are deferred, launches wait for the tool's lock too: a batch
  // replayed between ranges must not run beside another thread's work.
  if (!trigger_.counts_launches() && !range_open_.load(std::memory_order_relaxed) && !ranges_.deferred().has_pending())
    return;
  ToolLock lock = lock_tool(data->functionName);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  if (trigger_.counts_launches()) {
    // Numbering, beginning and recording happen under one lock, so a window
    // holds exactly the launches numbered into it.
    range::RangeTrigger::Launch launch = trigger_.on_launch(tool_thread_number());
    if (launch.before) on_range_event(*launch.before, data->context);
    if (launch.ends_after) t_window_end_launch = launch.index;
  }
  record_.observe_launch(call, data);
}

void ProfilerTool::on_driver_api(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  // The call's row (driver_calls.h) says where it goes; a call without one
  // only matters inside a range.
  const DriverCall* call = find_driver_call(cbid);
  if (call != nullptr && call->kind == CallKind::kKernelLaunch) {
    on_launch_site(*call, data);
    return;
  }
  // Threads are numbered in the order their first call other than a launch
  // reaches the tool (tool_thread_number): range selection and capture modes
  // name threads by these numbers.
  static_cast<void>(tool_thread_number());
  // RANGEREPLAY_DEBUG: every driver call other than a launch made while a
  // range is open, so that what a framework does inside a step can be read.
  if (debug_enabled_ && data->callbackSite == CUPTI_API_ENTER && range_open_.load(std::memory_order_relaxed))
    std::fprintf(stderr, "rangereplay[debug] thread %llu in range: %s\n",
                 static_cast<unsigned long long>(tool_thread_number()),
                 data->functionName != nullptr ? data->functionName : "?");
  if (data->callbackSite == CUPTI_API_ENTER && ranges_.deferred().has_pending() &&
      record_.captures().open_captures() == 0)
    record_.replay_deferred_before_untracked_write(call, data);
  if (call == nullptr) {
    record_.observe_if_in_range(nullptr, data);
    return;
  }
  switch (call->kind) {
    case CallKind::kCaptureBegin:
    case CallKind::kCaptureEnd:
    case CallKind::kCaptureModeExchange:
    case CallKind::kEventRecord:
    case CallKind::kStreamWaitEvent:
    case CallKind::kEventDestroy:
    case CallKind::kStreamDestroy:
      record_.on_capture_api(*call, data);
      // The capture counts as beginning now: the counter set-up on the tool's
      // thread ends its call in flight before the driver begins it.
      if (call->kind == CallKind::kCaptureBegin && data->callbackSite == CUPTI_API_ENTER)
        counter_prewarm_.before_capture();
      break;
    case CallKind::kAllocation:
      if (prewarm_wanted_ && !counter_prewarm_.started()) maybe_prewarm_counters(data);
      record_.on_memory_api(*call, data);
      break;
    case CallKind::kFree: record_.on_memory_api(*call, data); break;
    case CallKind::kGraphInstantiate:
    case CallKind::kGraphExecUpdate:
    case CallKind::kGraphExecDestroy:
    case CallKind::kGraphExecKernelNodeParams:
    case CallKind::kGraphExecNodeParams:
    case CallKind::kGraphExecChildGraph:
    case CallKind::kGraphExecChange:
      // Executable-graph lifecycle, tracked in and out of ranges (graph_recording.cpp).
      record_.on_graph_exec_api(*call, data);
      break;
    case CallKind::kStreamAttachMemory: record_.on_stream_attach_memory(*call, data); break;
    case CallKind::kPhysicalAllocation: record_.on_physical_allocation(*call, data); break;
    case CallKind::kProfilerStart:
    case CallKind::kProfilerStop: on_profiler_api(*call, data); break;
    case CallKind::kTeardown: on_teardown_api(*call, data); break;
    default:
      // Graph launches, host functions, memsets and copies: the recorder's.
      break;
  }
  record_.observe_by_row(*call, data);
}

void ProfilerTool::on_profiler_api(const DriverCall& call, const CUpti_CallbackData* data) {
  if (!trigger_.listens_to_profiler_api()) return;
  // cuProfilerStart begins a range once it has returned; cuProfilerStop ends
  // it before it runs.
  const bool start = call.kind == CallKind::kProfilerStart;
  if (data->callbackSite != (start ? CUPTI_API_EXIT : CUPTI_API_ENTER)) return;
  ToolLock lock = lock_tool(data->functionName);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  const std::uint64_t thread = tool_thread_number();
  if (auto event = start ? trigger_.on_profiler_start(thread) : trigger_.on_profiler_stop(thread))
    on_range_event(*event, data->context);
}

void ProfilerTool::on_teardown_api(const DriverCall& call, const CUpti_CallbackData* data) {
  // Deferred ranges are replayed, and before a context's end the standing
  // pass is read, while their context and kernels exist.
  const bool ends_context = call.decode != nullptr;
  // The set-up made on a tool thread is dropped while its context exists.
  if (data->callbackSite == CUPTI_API_ENTER && ends_context)
    counter_prewarm_.before_context_end(call.decode(data->functionParams).teardown);
  if (data->callbackSite == CUPTI_API_ENTER && (ranges_.deferred().has_pending() || ends_context)) {
    ToolLock lock = lock_tool(data->functionName);
    // Driver calls made while holding mutex_ must not reach our own callbacks.
    InToolScope scope;
    ranges_.before_teardown(data->functionName,
                            ends_context ? call.decode(data->functionParams).teardown : TeardownParams{});
  } else if (data->callbackSite == CUPTI_API_EXIT && ends_context && call_succeeded(data)) {
    ToolLock lock = lock_tool(data->functionName);
    InToolScope scope;
    ranges_.after_context_teardown(data->functionName, call.decode(data->functionParams).teardown);
  }
}

void ProfilerTool::on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData* data) {
  // The application's first context: a process that will use the GPU. Only
  // a thread starts here (host-only work, no lock of the tool), so the
  // callback returns at once.
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && environment::metric_host_warm_up() && !forked_child() &&
      metric_host_warm_up_.start() && debug_enabled_)
    std::fprintf(stderr, "rangereplay[debug] first context: CUPTI's metric host library starting on a tool thread\n");
  // Module loads and unloads: the record session's module registry.
  record_.on_resource(cbid, data);
}

}  // namespace rangereplay::tool
