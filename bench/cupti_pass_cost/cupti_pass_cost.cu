// cupti_pass_cost: where the time of one hardware-counter pass goes, for each
// counter path CUPTI offers, and whether the values of the cheaper paths equal
// the Range Profiler's. One GPU; six memory-bound kernels over --mb MiB form
// the range; the metric lists are the tool's own `--set full` and
// `--set single-pass` (src/core/config/metric_sets.cpp, compiled in).
//
//   cupti_pass_cost --parts a|b|c|d|e|h|u [--mb 256] [--rounds 3] [--interval-ns 20000] [--windows 25]
//                   [--big-ranges 2048] [--chip GH100] [--setup-on main|thread|capture|capture-relaxed]
//                   [--empty-pass one-pass|full|none]
//
// Parts (one or more letters; each part is best run in a process of its own,
// as run.sh does, so that no part inherits another's CUPTI state):
//   a  Range Profiler API as the tool drives it (src/cupti/range_profiler_session.cpp):
//      per range the blank image copied and SetConfig at pass 0, per pass
//      Start [PushRange] kernels [PopRange] Stop, per range DecodeData.
//      Variants: 1-range image, a context synchronize before Start, a large
//      image (maxRangesPerPass), empty passes, per-kernel auto ranges, the
//      one-pass list.
//   b  The older Profiler API (cupti_profiler_target.h, deprecated in CUDA 13.0)
//      with user replay: its own NVPW config image and counter-data prefix, as
//      its SetConfig documents; per pass BeginPass EnableProfiling [PushRange]
//      kernels [PopRange] DisableProfiling EndPass. Variants: one session for
//      every range, a session per range, per-kernel auto ranges.
//   c  PM sampling (cupti_pmsampling.h) with a single-pass config: c1 Start and
//      Stop around each window, c2 another config each window (what each pass of
//      a multi-pass list would cost), c3 one Start for every window with the
//      samples shared out to the windows by %globaltimer stamps, c4 c1 with
//      the counter data image sized to the window's samples.
//   d  PM sampling started inside an open Range Profiler pass: does it start,
//      does it count, and are the range's values unchanged.
//   e  The counter set-up before the first range (profiler initialize, chip,
//      availability, config images, Enable, a first empty pass, the full
//      list's image), on the application's thread or on a helper thread while
//      the application's thread launches kernels or holds a global-mode stream
//      capture open (--setup-on main|thread|capture|capture-relaxed); the
//      empty pass of the one-pass list, of the full list, or none
//      (--empty-pass); then ranges counted with the object it made, against a
//      fresh a1. Alone in its process: it times first-use costs.
//   u  Per-kernel values: a5 (automatic ranges), a7 (a user range pushed
//      from the host around each kernel) and a8 (the same behind a gate the
//      host opens once every call is queued, cuStreamWaitValue32 on a
//      host-mapped flag), with a1 as the values' reference.
//   h  Host side only (no GPU): pass counts of the lists through CUPTI's host
//      API and through NVPW's raw-metrics config, and how much of the full
//      list PM sampling can collect.
//
// What each table means is in README.md beside this file. Exit status: 0 when
// every part ran, 1 when a part failed (its rows are marked and left out of the
// sums), 2 for a bad command line.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <nvperf_cuda_host.h>
#include <nvperf_host.h>
#include <nvperf_target.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/config/metric_sets.h"
#include "cuda/kernels/cache_flush_kernel.h"
#include "cupti/cupti_params.h"

namespace rangereplay::bench::pass_cost {
namespace {

// ------------------------------------------------------------------ failures

// Prints one line naming the call and CUPTI's, NVPW's or CUDA's answer; false.
bool failed(const char* call, const std::string& why, int line) {
  std::printf("  ! line %d: %s -> %s\n", line, call, why.c_str());
  return false;
}
// CUPTI's or the driver's text for `r`; "" for success.
std::string error_text(CUptiResult r) {
  const char* text = "?";
  if (r == CUPTI_SUCCESS) return "";
  cuptiGetResultString(r, &text);
  return text;
}
std::string error_text(CUresult r) {
  const char* text = "?";
  if (r == CUDA_SUCCESS) return "";
  cuGetErrorString(r, &text);
  return text;
}
bool succeeded(CUptiResult r, const char* call, int line) {
  return r == CUPTI_SUCCESS || failed(call, error_text(r), line);
}
bool succeeded(CUresult r, const char* call, int line) {
  return r == CUDA_SUCCESS || failed(call, error_text(r), line);
}
bool succeeded(cudaError_t r, const char* call, int line) {
  return r == cudaSuccess || failed(call, cudaGetErrorString(r), line);
}
bool succeeded(NVPA_Status r, const char* call, int line) {
  return r == NVPA_STATUS_SUCCESS || failed(call, "NVPA status " + std::to_string(static_cast<int>(r)), line);
}
bool succeeded(bool r, const char* call, int line) { return r || failed(call, "false", line); }

// Returns false from the enclosing function when `call` fails.
#define PC_TRY(call)                                       \
  do {                                                     \
    if (!succeeded((call), #call, __LINE__)) return false; \
  } while (0)

// NVPW's one request struct whose size macro is not <Type>_STRUCT_SIZE.
NVPA_RawMetricRequest raw_metric_request(const char* name) {
  NVPA_RawMetricRequest r{};
  r.structSize = NVPA_RAW_METRIC_REQUEST_STRUCT_SIZE;
  r.pMetricName = name;
  r.isolated = 1;
  r.keepInstances = 1;
  return r;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

std::vector<const char*> c_strings(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(n.c_str());
  return out;
}

// ------------------------------------------------------------------ the log of timings and values

// What a timed call is part of: set-up (once per variant), one counter pass,
// one range (all of its passes), or the workload and host work that is not
// CUPTI's (left out of the CUPTI sums, but inside the range's wall time).
enum class Kind : char { kSetup = 'S', kPass = 'P', kRange = 'R', kWork = 'W' };

struct Row {
  std::string variant;
  Kind kind;
  std::string call;
  std::vector<double> ms;  // one entry per measured call
};

struct Variant {
  std::string name;
  bool ok = true;                           // false: a call failed; shown, left out of the summary
  std::size_t passes = 0;                   // counter passes per range (windows: 1)
  std::size_t kernels = 0;                  // kernels per pass; 0 for empty passes
  std::vector<double> range_ms;             // wall time of each measured range: its first call to its last
  std::vector<double> pass_ms;              // wall time of each measured pass: before Start to after Stop
  std::vector<double> first_range_pass_ms;  // the passes of the first measured range, in order
  double first_start_ms = -1;               // the variant's first Start (its warm-up range's), when timed
};

// Metrics whose values are compared between the paths. Instruction counts must
// be equal; the byte and sector counts within 2 %. Durations and cycles are
// printed but never compared: a sum over per-kernel ranges or over samples
// leaves out the gaps between kernels that a whole range counts.
const std::vector<std::string> kExactMetrics = {"smsp__inst_executed.sum"};
const std::vector<std::string> kCloseMetrics = {"dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors.sum"};
const std::vector<std::string> kShownMetrics = {"gpu__time_duration.sum", "gpc__cycles_elapsed.max"};

const std::vector<std::string>& compared_metrics() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> names = kExactMetrics;
    names.insert(names.end(), kCloseMetrics.begin(), kCloseMetrics.end());
    names.insert(names.end(), kShownMetrics.begin(), kShownMetrics.end());
    return names;
  }();
  return all;
}
bool is_compared(const std::string& metric) {
  return std::find(compared_metrics().begin(), compared_metrics().end(), metric) != compared_metrics().end();
}

// The reference every other value source is compared with.
constexpr const char* kReferenceSource = "a1 range profiler";

struct Log {
  bool measuring = false;  // false during warm-up: only set-up calls are kept then
  std::vector<Row> rows;
  std::deque<Variant> variants;  // a deque: references stay valid as variants are added
  std::map<std::string, std::map<std::string, std::vector<double>>> values;  // metric -> source -> per range
  double workload_ms = 0;      // launch and wait of the 6 kernels without counters (median)
  double workload_gpu_ms = 0;  // their GPU time by events (median)

  Variant& variant(const std::string& name) {
    for (auto& v : variants)
      if (v.name == name) return v;
    variants.emplace_back();
    variants.back().name = name;
    return variants.back();
  }
  void record(const std::string& variant_name, Kind kind, const std::string& call, double ms) {
    if (!measuring && kind != Kind::kSetup) return;
    for (auto& r : rows)
      if (r.variant == variant_name && r.call == call) return r.ms.push_back(ms);
    rows.push_back(Row{variant_name, kind, call, {ms}});
  }
};

Log g_log;

// Times `call` and records it under (V, name) once it succeeded; a failed call
// returns false from the enclosing function and is never recorded (a failure
// must not read as a fast call). V is the variant name in scope.
#define PC_TIMED(kind, name, call)                          \
  do {                                                      \
    const double started_ = now_ms();                       \
    const auto result_ = (call);                            \
    const double ms_ = now_ms() - started_;                 \
    if (!succeeded(result_, #call, __LINE__)) return false; \
    g_log.record(V, kind, name, ms_);                       \
  } while (0)

// ------------------------------------------------------------------ the workload: 6 memory-bound kernels

#define PC_INDEX                                                            \
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; \
  if (i >= n) return
__global__ void copy_kernel(const double* a, double* c, std::size_t n) {
  PC_INDEX;
  c[i] = a[i];
}
// Part k's copy as a kernel: the same work as copy_kernel under another
// name, so that no counter range of the tool's work could be merged with
// the range's first kernel by name.
__global__ void tool_copy_kernel(const double* a, double* c, std::size_t n) {
  PC_INDEX;
  c[i] = a[i];
}
__global__ void scale_kernel(double* b, const double* c, std::size_t n) {
  PC_INDEX;
  b[i] = 0.4 * c[i];
}
__global__ void add_kernel(const double* a, const double* b, double* c, std::size_t n) {
  PC_INDEX;
  c[i] = a[i] + b[i];
}
__global__ void triad_kernel(double* a, const double* b, const double* c, std::size_t n) {
  PC_INDEX;
  a[i] = b[i] + 0.4 * c[i];
}
__global__ void increment_kernel(double* a, std::size_t n) {
  PC_INDEX;
  a[i] += 1.0;
}
__global__ void fma_kernel(const double* a, double* b, const double* c, std::size_t n) {
  PC_INDEX;
  b[i] = a[i] * c[i] + b[i];
}
// Writes the GPU's ns timer (%globaltimer), which c3 compares with the PM
// samples' timestamps.
__global__ void stamp_kernel(unsigned long long* out) {
  unsigned long long t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  *out = t;
}

// Three arrays of mb/3 MiB each and the 6 kernels over them on one stream.
// Replayed passes run the kernels again on the data the last pass left: the
// counts compared here (instructions, bytes, sectors) do not depend on the
// values.
// Work of the tool's kind queued before the range's kernels inside a pass
// (part k): what a replayed pass runs before a member's work (its restore,
// the L2 flush), done by a device-to-device cudaMemcpyAsync, by a kernel,
// or as a memset; and the L2 flush three ways: the tool's kernel (a read of
// twice the L2), the same kernel launched in a second context of the tool's
// own (which the range's context's automatic ranges might not count), and
// the same read by the copy engines (chunks of the buffer copied, one after
// the other, into one small destination, so that few dirty lines are left).
enum class ToolWork { kNone, kCopyEngine, kCopyKernel, kMemset, kFlushKernel, kFlushOtherContext, kFlushCopyEngine };

const char* name_of(ToolWork w) {
  switch (w) {
    case ToolWork::kNone: return "none";
    case ToolWork::kCopyEngine: return "cudaMemcpyAsync device to device";
    case ToolWork::kCopyKernel: return "copy kernel";
    case ToolWork::kMemset: return "cudaMemsetAsync";
    case ToolWork::kFlushKernel: return "L2 flush kernel";
    case ToolWork::kFlushOtherContext: return "L2 flush kernel in a second context";
    case ToolWork::kFlushCopyEngine: return "L2 flush by copy-engine copies into one small buffer";
  }
  return "?";
}

class Workload {
 public:
  static constexpr std::size_t kKernels = 6;
  ~Workload() {
    for (double* p : {a_, b_, c_}) cudaFree(p);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    for (cudaEvent_t e : {begin_, end_})
      if (e != nullptr) cudaEventDestroy(e);
    if (gate_host_ != nullptr) cuMemFreeHost(gate_host_);
    if (flush_ != nullptr) cudaFree(flush_);
    if (flush_sink_ != nullptr) cudaFree(flush_sink_);
    if (other_ != nullptr) cuCtxDestroy(other_);  // frees its buffer and stream with it
  }
  bool allocate(std::size_t mib) {
    n_ = mib * 1024 * 1024 / sizeof(double) / 3;
    blocks_ = static_cast<unsigned>((n_ + 255) / 256);
    for (double** p : {&a_, &b_, &c_}) {
      PC_TRY(cudaMalloc(p, n_ * sizeof(double)));
      PC_TRY(cudaMemset(*p, 0, n_ * sizeof(double)));
    }
    PC_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    PC_TRY(cudaEventCreate(&begin_));
    PC_TRY(cudaEventCreate(&end_));
    // The memsets ran on the legacy stream, which a non-blocking stream does
    // not wait for.
    PC_TRY(cudaDeviceSynchronize());
    return true;
  }
  // Queues the range's work; false when a launch failed. Without events for
  // a capture (part e), whose graph then holds the kernels alone.
  bool launch(bool with_events = true) {
    if (with_events) PC_TRY(cudaEventRecord(begin_, stream_));
    copy_kernel<<<blocks_, 256, 0, stream_>>>(a_, c_, n_);
    scale_kernel<<<blocks_, 256, 0, stream_>>>(b_, c_, n_);
    add_kernel<<<blocks_, 256, 0, stream_>>>(a_, b_, c_, n_);
    triad_kernel<<<blocks_, 256, 0, stream_>>>(a_, b_, c_, n_);
    increment_kernel<<<blocks_, 256, 0, stream_>>>(a_, n_);
    fma_kernel<<<blocks_, 256, 0, stream_>>>(a_, b_, c_, n_);
    PC_TRY(cudaGetLastError());
    if (with_events) PC_TRY(cudaEventRecord(end_, stream_));
    return true;
  }
  // The same 6 kernels, `around(i, true)` before and `around(i, false)`
  // after kernel i's launch (a counter range pushed and popped from the
  // host). With `gated`, the stream first waits on a host flag, set once
  // every kernel and range call is queued, so that the GPU runs them back
  // to back, with no wait for the host between a push and its kernel. A
  // second thread sets the flag after 50 ms at the latest: on an H100 the
  // range calls wait for the GPU, and a gate opened only by this thread
  // never opened (the first pass hung). `gate_opened_late` says whether
  // that thread had to open it. False when a launch or the gate failed.
  bool launch_each(const std::function<bool(std::size_t, bool)>& around, bool gated) {
    if (gated) {
      if (gate_host_ == nullptr) {
        PC_TRY(cuMemHostAlloc(reinterpret_cast<void**>(&gate_host_), sizeof(std::uint32_t), CU_MEMHOSTALLOC_DEVICEMAP));
        PC_TRY(cuMemHostGetDevicePointer(&gate_device_, gate_host_, 0));
      }
      *reinterpret_cast<volatile std::uint32_t*>(gate_host_) = 0;
      PC_TRY(cuStreamWaitValue32(stream_, gate_device_, 1, CU_STREAM_WAIT_VALUE_EQ));
    }
    PC_TRY(cudaEventRecord(begin_, stream_));
    const std::function<void()> kernels[kKernels] = {
        [&] { copy_kernel<<<blocks_, 256, 0, stream_>>>(a_, c_, n_); },
        [&] { scale_kernel<<<blocks_, 256, 0, stream_>>>(b_, c_, n_); },
        [&] { add_kernel<<<blocks_, 256, 0, stream_>>>(a_, b_, c_, n_); },
        [&] { triad_kernel<<<blocks_, 256, 0, stream_>>>(a_, b_, c_, n_); },
        [&] { increment_kernel<<<blocks_, 256, 0, stream_>>>(a_, n_); },
        [&] { fma_kernel<<<blocks_, 256, 0, stream_>>>(a_, b_, c_, n_); }};
    std::atomic<bool> queued{false};
    std::thread opener;
    if (gated) {
      opener = std::thread([this, &queued] {
        const double until = now_ms() + 50;
        while (!queued.load() && now_ms() < until) std::this_thread::sleep_for(std::chrono::microseconds(50));
        if (!queued.load()) {
          gate_opened_late = true;
          *reinterpret_cast<volatile std::uint32_t*>(gate_host_) = 1;
        }
      });
    }
    bool ok = true;
    for (std::size_t i = 0; i < kKernels && ok; ++i) {
      ok = around(i, true);
      if (ok) kernels[i]();
      ok = ok && around(i, false);
    }
    if (gated) {
      queued.store(true);
      *reinterpret_cast<volatile std::uint32_t*>(gate_host_) = 1;  // released even after a failure
      opener.join();
    }
    PC_TRY(cudaGetLastError());
    PC_TRY(cudaEventRecord(end_, stream_));
    return ok;
  }
  // Queues `work` on the range's stream (part k): a device-to-device copy of
  // one array by cudaMemcpyAsync (the driver picks the engine), the same
  // copy by a kernel, or a memset of it; nothing for kNone. False when it
  // failed.
  bool launch_tool_work(ToolWork work) {
    const std::size_t bytes = n_ * sizeof(double);
    switch (work) {
      case ToolWork::kNone: return true;
      case ToolWork::kCopyEngine: PC_TRY(cudaMemcpyAsync(c_, a_, bytes, cudaMemcpyDeviceToDevice, stream_)); break;
      case ToolWork::kCopyKernel: tool_copy_kernel<<<blocks_, 256, 0, stream_>>>(a_, c_, n_); break;
      case ToolWork::kMemset: PC_TRY(cudaMemsetAsync(c_, 0, bytes, stream_)); break;
      case ToolWork::kFlushKernel:
      case ToolWork::kFlushOtherContext:
      case ToolWork::kFlushCopyEngine: return allocate_flush() && launch_flush(work);
    }
    PC_TRY(cudaGetLastError());
    return true;
  }
  // The flush's buffers (twice the L2) in the range's context and, for
  // kFlushOtherContext, in a second context made here; once (part k makes
  // them before its first pass; later calls find them made).
  bool allocate_flush() {
    if (flush_ != nullptr) return true;
    int device = 0, l2 = 0;
    PC_TRY(cudaGetDevice(&device));
    PC_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    flush_bytes_ = 2 * static_cast<std::size_t>(l2);
    flush_bytes_ -= flush_bytes_ % kFlushChunk;
    PC_TRY(cudaMalloc(&flush_, flush_bytes_));
    PC_TRY(cudaMemset(flush_, 1, flush_bytes_));
    PC_TRY(cudaMalloc(&flush_sink_, kFlushChunk));
    CUdevice cu_device = 0;
    PC_TRY(cuDeviceGet(&cu_device, device));
    PC_TRY(cuCtxCreate(&other_, nullptr, 0, cu_device));  // pushed: current until popped below
    bool ok = succeeded(cuMemAlloc(&other_flush_, flush_bytes_), "cuMemAlloc (second context)", __LINE__) &&
              succeeded(cuMemsetD8(other_flush_, 1, flush_bytes_), "cuMemsetD8 (second context)", __LINE__) &&
              succeeded(cuMemAlloc(&other_sink_, kFlushChunk), "cuMemAlloc (second context)", __LINE__) &&
              succeeded(cuStreamCreate(&other_stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate", __LINE__) &&
              succeeded(cuCtxSynchronize(), "cuCtxSynchronize (second context)", __LINE__);
    CUcontext popped = nullptr;
    ok = succeeded(cuCtxPopCurrent(&popped), "cuCtxPopCurrent", __LINE__) && ok;
    PC_TRY(cudaDeviceSynchronize());
    std::printf("L2 flush buffers: %zu bytes (twice the L2), in the range's context and a second one\n", flush_bytes_);
    return ok;
  }
  // The L2 flush of part k, queued before the range's kernels: the tool's
  // kernel on the range's stream; the same kernel in the second context,
  // waited for before returning; or the buffer copied by the copy engines in
  // kFlushChunk pieces into one chunk-sized destination.
  bool launch_flush(ToolWork work) {
    // The tool's own flush kernel (cuda/kernels/cache_flush_kernel.h).
    const auto flush = [this](CUdeviceptr buffer, CUdeviceptr sink, CUstream stream) {
      const Status launched = kernels::launch_l2_flush(buffer, flush_bytes_, sink, stream);
      if (!launched.ok()) std::printf("FAILED: %s\n", launched.message().c_str());
      return launched.ok();
    };
    if (work == ToolWork::kFlushKernel) {
      if (!flush(reinterpret_cast<CUdeviceptr>(flush_), reinterpret_cast<CUdeviceptr>(flush_sink_),
                 reinterpret_cast<CUstream>(stream_)))
        return false;
    } else if (work == ToolWork::kFlushOtherContext) {
      // The range's work so far must be done first, as the tool's flush is
      // ordered after its restore.
      PC_TRY(cudaStreamSynchronize(stream_));
      PC_TRY(cuCtxPushCurrent(other_));
      const bool ok = flush(other_flush_, other_sink_, other_stream_) &&
                      succeeded(cuStreamSynchronize(other_stream_), "cuStreamSynchronize (second context)", __LINE__);
      CUcontext popped = nullptr;
      PC_TRY(cuCtxPopCurrent(&popped));
      if (!ok) return false;
    } else {
      for (std::size_t offset = 0; offset < flush_bytes_; offset += kFlushChunk)
        PC_TRY(cudaMemcpyAsync(flush_sink_, static_cast<const char*>(flush_) + offset, kFlushChunk,
                               cudaMemcpyDeviceToDevice, stream_));
    }
    PC_TRY(cudaGetLastError());
    return true;
  }
  cudaError_t wait() const { return cudaStreamSynchronize(stream_); }
  bool gate_opened_late = false;  // launch_each's gate was opened by its timer thread
  // GPU time of the last launch() in ms; negative when the events cannot say.
  double gpu_ms() const {
    float ms = 0;
    return cudaEventElapsedTime(&ms, begin_, end_) == cudaSuccess ? ms : -1.0;
  }
  cudaStream_t stream() const { return stream_; }

 private:
  std::size_t n_ = 0;
  unsigned blocks_ = 0;
  double* a_ = nullptr;
  double* b_ = nullptr;
  double* c_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t begin_ = nullptr;
  cudaEvent_t end_ = nullptr;
  std::uint32_t* gate_host_ = nullptr;  // launch_each's gate: host-mapped, read by cuStreamWaitValue32
  CUdeviceptr gate_device_ = 0;
  static constexpr std::size_t kFlushChunk = std::size_t{1} << 20;  // the copy-engine flush's piece and destination
  static_assert(kFlushChunk >= kernels::kCacheFlushBlocks * sizeof(unsigned), "the flush kernel's result words");
  std::size_t flush_bytes_ = 0;
  void* flush_ = nullptr;       // twice the L2, in the range's context
  void* flush_sink_ = nullptr;  // kFlushChunk bytes: the kernel's result words, the copies' destination
  CUcontext other_ = nullptr;   // the second context, with its own buffer, sink and stream
  CUdeviceptr other_flush_ = 0;
  CUdeviceptr other_sink_ = 0;
  CUstream other_stream_ = nullptr;
};

// ------------------------------------------------------------------ set-up shared by the parts

// Where the first range's counter set-up runs. The tool makes its counters
// ready on the application's thread when the first range begins
// (src/tool/range_counters.cpp: set_up_counters, then the first Start pays a
// first-use cost); part e times the same calls there (`main`) and on a helper
// thread while the application's thread goes on (`thread`), or while it holds
// a global-mode stream capture open (`capture`, and `capture-relaxed` with the
// helper in relaxed capture mode, cuThreadExchangeStreamCaptureMode). Each
// mode in a process of its own: first-use costs come once per process.
enum class SetupOn { kMain, kThread, kCapture, kCaptureRelaxed };

// The list of part e's empty pass, made after the set-up to pay the first
// Start's cost before the first range: the one-pass list (`one-pass`, every
// pass submitted in one), the full list the ranges count (`full`: pass 1 of
// its passes, the object then configured anew by the first range), or none.
enum class EmptyPass { kOnePass, kFull, kNone };

const char* name_of(EmptyPass e) {
  switch (e) {
    case EmptyPass::kOnePass: return "one-pass";
    case EmptyPass::kFull: return "full";
    case EmptyPass::kNone: return "none";
  }
  return "?";
}

const char* name_of(SetupOn on) {
  switch (on) {
    case SetupOn::kMain: return "main";
    case SetupOn::kThread: return "thread";
    case SetupOn::kCapture: return "capture";
    case SetupOn::kCaptureRelaxed: return "capture-relaxed";
  }
  return "?";
}

struct Options {
  std::string parts = "a";
  std::size_t mib = 256;
  int rounds = 3;
  std::uint64_t interval_ns = 20000;
  std::size_t windows = 25;
  std::size_t big_ranges = 2048;
  std::string chip = "GH100";                  // for part h only; a GPU run asks the device
  SetupOn setup_on = SetupOn::kMain;           // part e only
  EmptyPass empty_pass = EmptyPass::kOnePass;  // part e only
};

struct Setup {
  Options options;
  int device = 0;
  CUcontext ctx = nullptr;
  std::string chip;
  std::vector<std::uint8_t> availability;                // range profiler's counter availability (empty: part h)
  std::vector<std::string> full, single;                 // the tool's --set full and --set single-pass
  std::vector<std::uint8_t> full_config, single_config;  // CUPTI host API images (range profiler)
  std::size_t full_passes = 0, single_passes = 0;
  CUpti_Profiler_Host_Object* host = nullptr;  // range profiler host object, for evaluation
  Workload work;
};

CUptiResult host_initialize(CUpti_ProfilerType type, const std::string& chip,
                            const std::vector<std::uint8_t>& availability, CUpti_Profiler_Host_Object** object) {
  auto p = RR_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  p.profilerType = type;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  const CUptiResult r = cuptiProfilerHostInitialize(&p);
  *object = r == CUPTI_SUCCESS ? p.pHostObject : nullptr;
  return r;
}

void host_deinitialize(CUpti_Profiler_Host_Object* object) {
  if (object == nullptr) return;
  auto p = RR_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
  p.pHostObject = object;
  cuptiProfilerHostDeinitialize(&p);
}

// The config image of `names` from a fresh host object of `type`, and its pass
// count. Every name must be accepted: a list that lost names would be timed as
// a cheaper list than the tool's. `quiet` leaves the failure unprinted (the PM
// metric choice tries names that may not fit).
bool host_config(CUpti_ProfilerType type, const std::string& chip, const std::vector<std::uint8_t>& availability,
                 const std::vector<std::string>& names, std::vector<std::uint8_t>& image, std::size_t& passes,
                 bool quiet = false) {
  CUpti_Profiler_Host_Object* object = nullptr;
  if (host_initialize(type, chip, availability, &object) != CUPTI_SUCCESS)
    return quiet ? false : failed("HostInitialize", chip, __LINE__);
  std::vector<const char*> c_names = c_strings(names);
  auto add = RR_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = object;
  add.ppMetricNames = c_names.data();
  add.numMetrics = c_names.size();
  const CUptiResult added = cuptiProfilerHostConfigAddMetrics(&add);
  auto size = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = object;
  bool ok = added == CUPTI_SUCCESS && cuptiProfilerHostGetConfigImageSize(&size) == CUPTI_SUCCESS;
  if (ok) {
    image.assign(size.configImageSize, 0);
    auto get = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    get.pHostObject = object;
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    ok = cuptiProfilerHostGetConfigImage(&get) == CUPTI_SUCCESS;
  }
  host_deinitialize(object);
  if (!ok) {
    if (quiet) return false;
    // Name the refused metrics, one by one.
    std::printf("  ! the host API refused the list of %zu metrics; refused alone:", names.size());
    for (const auto& n : names) {
      std::vector<std::uint8_t> one;
      std::size_t p = 0;
      if (!host_config(type, chip, availability, {n}, one, p, true)) std::printf(" %s", n.c_str());
    }
    std::printf("\n");
    return false;
  }
  auto count = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  count.configImageSize = image.size();
  count.pConfigImage = image.data();
  if (cuptiProfilerHostGetNumOfPasses(&count) != CUPTI_SUCCESS)
    return quiet ? false : failed("GetNumOfPasses", "", __LINE__);
  passes = count.numOfPasses;
  return true;
}

// Values of the compared metrics that `names` holds, for range `range` of a
// Range Profiler or PM-sampling image, appended to g_log.values[metric][source].
bool evaluate_into_log(CUpti_Profiler_Host_Object* host, const std::vector<std::uint8_t>& image,
                       const std::vector<std::size_t>& ranges, const std::vector<std::string>& names,
                       const std::string& source) {
  for (const auto& metric : compared_metrics()) {
    if (std::find(names.begin(), names.end(), metric) == names.end()) continue;
    double total = 0;  // summed over `ranges` (per-kernel ranges of one pass)
    for (std::size_t range : ranges) {
      double value = 0;
      const char* name = metric.c_str();
      auto p = RR_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
      p.pHostObject = host;
      p.pCounterDataImage = image.data();
      p.counterDataImageSize = image.size();
      p.rangeIndex = range;
      p.ppMetricNames = &name;
      p.numMetrics = 1;
      p.pMetricValues = &value;
      PC_TRY(cuptiProfilerHostEvaluateToGpuValues(&p));
      total += value;
    }
    g_log.values[metric][source].push_back(total);
  }
  return true;
}

// Whether NVPW says the GPU's clocks are locked (a pass might lock and unlock
// them, which would cost time in Start and Stop). Informational.
std::string clock_status(int cuda_device) {
  static std::optional<std::size_t> nvpw_index;
  static bool asked = false;
  if (!asked) {
    asked = true;
    auto init = RR_CUPTI_PARAMS(NVPW_InitializeTarget_Params);
    auto count = RR_CUPTI_PARAMS(NVPW_GetDeviceCount_Params);
    if (NVPW_InitializeTarget(&init) == NVPA_STATUS_SUCCESS && NVPW_GetDeviceCount(&count) == NVPA_STATUS_SUCCESS) {
      int domain = -1, bus = -1, slot = -1;
      cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, cuda_device);
      cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, cuda_device);
      cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, cuda_device);
      std::vector<NVPW_PciBusId> ids(count.numDevices);
      auto get = RR_CUPTI_PARAMS(NVPW_Device_GetPciBusIds_Params);
      get.pBusIds = ids.data();
      get.numDevices = ids.size();
      if (NVPW_Device_GetPciBusIds(&get) == NVPA_STATUS_SUCCESS) {
        for (std::size_t i = 0; i < ids.size(); ++i) {
          if (static_cast<int>(ids[i].domain) == domain && ids[i].bus == bus && ids[i].device == slot) nvpw_index = i;
        }
      }
    }
  }
  if (!nvpw_index) return "unknown (no NVPW device for this GPU)";
  auto p = RR_CUPTI_PARAMS(NVPW_Device_GetClockStatus_Params);
  p.deviceIndex = *nvpw_index;
  if (NVPW_Device_GetClockStatus(&p) != NVPA_STATUS_SUCCESS) return "unknown (GetClockStatus failed)";
  static const char* const kNames[] = {"unknown", "locked to rated TDP", "boost enabled", "boost disabled", "locked",
                                       "unlocked"};
  return p.clockStatus < 6 ? kNames[p.clockStatus] : "status " + std::to_string(static_cast<int>(p.clockStatus));
}

// The 6 kernels without any counter session: the baseline every pass is
// compared with (host launch and wait, and GPU time by events).
bool measure_workload(Setup& s) {
  std::vector<double> wall, gpu;
  for (int i = 0; i < 22; ++i) {
    const double t0 = now_ms();
    PC_TRY(s.work.launch());
    PC_TRY(s.work.wait());
    if (i < 2) continue;  // first launches load the module and warm the caches
    wall.push_back(now_ms() - t0);
    gpu.push_back(s.work.gpu_ms());
  }
  g_log.workload_ms = median(wall);
  g_log.workload_gpu_ms = median(gpu);
  std::printf("workload without counters: %zu kernels, launch+wait %.3f ms, GPU time %.3f ms (medians of 20)\n",
              Workload::kKernels, g_log.workload_ms, g_log.workload_gpu_ms);
  return true;
}

// ------------------------------------------------------------------ (a) Range Profiler API

class RangeProfilerObject;

struct RangeVariant {
  std::string name;
  bool one_pass_list = false;            // --set single-pass: one pass per range
  bool auto_ranges = false;              // CUPTI_AutoRange: one counter range per kernel (the tool's per-kernel mode)
  bool kernel_user_ranges = false;       // a user range pushed and popped from the host around each kernel
  bool gated = false;                    // kernel_user_ranges queued behind a gate (Workload::launch_each)
  std::size_t image_ranges = 1;          // ranges the image holds = maxRangesPerPass
  bool sync_context = false;             // cuCtxSynchronize right before each Start
  bool empty = false;                    // no kernels inside the passes
  ToolWork tool_work = ToolWork::kNone;  // part k: queued before the kernels in every pass
  bool print_ranges = false;             // part k: print the counter ranges of the first measured range
  int rounds = 3;                        // measured ranges, after one warm-up range
  const char* value_source = nullptr;
  bool pm_inside = false;  // part d: PM sampling around the kernels of each pass
  // Part e: an object enabled, and a blank image of the full list sized, by
  // the set-up under test; the variant then neither enables nor sizes.
  RangeProfilerObject* ready = nullptr;
  const std::vector<std::uint8_t>* ready_blank = nullptr;
};

bool pm_inside_pass(Setup& s, bool measured);

// A range profiler object that is always left closed: an open pass is stopped
// before the object is disabled, so a failed variant leaves no state behind.
class RangeProfilerObject {
 public:
  RangeProfilerObject() = default;
  RangeProfilerObject(const RangeProfilerObject&) = delete;
  RangeProfilerObject& operator=(const RangeProfilerObject&) = delete;
  ~RangeProfilerObject() { close(); }
  // Stops an open pass and disables the object; the object is then empty.
  void close() {
    if (in_pass) {
      auto stop = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
      stop.pRangeProfilerObject = object;
      cuptiRangeProfilerStop(&stop);
      in_pass = false;
    }
    if (object != nullptr) {
      auto off = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
      off.pRangeProfilerObject = object;
      cuptiRangeProfilerDisable(&off);
      object = nullptr;
    }
  }
  CUpti_RangeProfiler_Object* object = nullptr;
  bool in_pass = false;
};

// SetConfig's parameters for pass 0 of a range of `config` counted into
// `image` (user replay, one nesting level, at most `max_ranges` ranges a pass).
CUpti_RangeProfiler_SetConfig_Params set_config_params(CUpti_RangeProfiler_Object* object,
                                                       const std::vector<std::uint8_t>& config,
                                                       std::vector<std::uint8_t>& image, CUpti_ProfilerRange range,
                                                       std::size_t max_ranges) {
  auto p = RR_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  p.pRangeProfilerObject = object;
  p.configSize = config.size();
  p.pConfig = config.data();
  p.counterDataImageSize = image.size();
  p.pCounterDataImage = image.data();
  p.range = range;
  p.replayMode = CUPTI_UserReplay;
  p.maxRangesPerPass = max_ranges;
  p.numNestingLevels = 1;
  p.minNestingLevel = 1;
  p.passIndex = 0;
  p.targetNestingLevel = 1;
  return p;
}

bool run_range_profiler(Setup& s, const RangeVariant& v) {
  const std::string& V = v.name;
  Variant& result = g_log.variant(V);
  result.kernels = v.empty ? 0 : Workload::kKernels;
  const auto& names = v.one_pass_list ? s.single : s.full;
  const auto& config = v.one_pass_list ? s.single_config : s.full_config;
  const std::size_t expected = v.one_pass_list ? s.single_passes : s.full_passes;
  std::vector<const char*> c_names = c_strings(names);
  // A fresh object per variant, as the tool makes one when the range type
  // changes; part e's variants use the object its set-up made.
  RangeProfilerObject own;
  RangeProfilerObject& rp = v.ready != nullptr ? *v.ready : own;
  if (v.ready == nullptr) {
    auto enable = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    enable.ctx = s.ctx;
    PC_TIMED(Kind::kSetup, "Enable", cuptiRangeProfilerEnable(&enable));
    rp.object = enable.pRangeProfilerObject;
  }
  // CounterDataImageInitialize lays the image out as the object's last
  // GetCounterDataSize asked, so the size wanted is asked last.
  auto image_size = [&](std::size_t ranges, std::size_t& bytes) {
    auto p = RR_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    p.pRangeProfilerObject = rp.object;
    p.pMetricNames = c_names.data();
    p.numMetrics = c_names.size();
    p.maxNumOfRanges = ranges;
    p.maxNumRangeTreeNodes = static_cast<std::uint32_t>(ranges);
    const CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&p);
    bytes = p.counterDataSize;
    return r;
  };
  std::size_t ranges = 1;
  std::vector<std::uint8_t> blank;
  if (v.ready_blank != nullptr) {
    blank = *v.ready_blank;
    std::printf("[%s] %zu metrics, %zu passes expected, the set-up's image of 1 range: %.2f MB\n", V.c_str(),
                names.size(), expected, blank.size() / 1e6);
  } else {
    std::size_t one = 0, two = 0, bytes = 0;
    PC_TRY(image_size(1, one));
    PC_TRY(image_size(2, two));
    const std::size_t per_range = two > one ? two - one : 1;
    // The tool's cap: 2 GiB per image (it keeps the blank and the range's copy).
    ranges = std::clamp<std::size_t>((std::size_t{2} << 30) / per_range, 1, v.image_ranges);
    PC_TRY(image_size(ranges, bytes));
    blank.assign(bytes, 0);
    auto init = RR_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    init.pRangeProfilerObject = rp.object;
    init.counterDataSize = blank.size();
    init.pCounterData = blank.data();
    PC_TIMED(Kind::kSetup, "CounterDataImageInitialize", cuptiRangeProfilerCounterDataImageInitialize(&init));
    std::printf("[%s] %zu metrics, %zu passes expected, image of %zu ranges: %.2f MB (%.1f KB per range)\n", V.c_str(),
                names.size(), expected, ranges, blank.size() / 1e6, per_range / 1e3);
  }
  std::vector<std::uint8_t> image(blank.size());

  for (int round = 0; round <= v.rounds; ++round) {
    g_log.measuring = round > 0;  // round 0 warms up: an object's first range pays first-use costs
    const double range_start = now_ms();
    double t = now_ms();
    std::memcpy(image.data(), blank.data(), image.size());  // the tool's begin_range: the blank image copied
    g_log.record(V, Kind::kRange, "image reset (copy of the blank)", now_ms() - t);
    auto config_params =
        set_config_params(rp.object, config, image, v.auto_ranges ? CUPTI_AutoRange : CUPTI_UserRange, ranges);
    PC_TIMED(Kind::kRange, "SetConfig", cuptiRangeProfilerSetConfig(&config_params));
    std::size_t passes = 0;
    for (bool all_submitted = false; !all_submitted;) {
      // The clock check runs in the warm-up range only, outside every measured pass.
      const bool clocks = round == 0 && passes == 0 && V == "a1_whole_img1";
      if (clocks) std::printf("[%s] clocks before Start: %s\n", V.c_str(), clock_status(s.device).c_str());
      const double pass_start = now_ms();
      if (v.sync_context) PC_TIMED(Kind::kPass, "cuCtxSynchronize", cuCtxSynchronize());
      auto start = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
      start.pRangeProfilerObject = rp.object;
      const double before_start = now_ms();
      PC_TIMED(Kind::kPass, "Start", cuptiRangeProfilerStart(&start));
      if (round == 0 && passes == 0) result.first_start_ms = now_ms() - before_start;
      rp.in_pass = true;
      if (clocks) std::printf("[%s] clocks inside the pass: %s\n", V.c_str(), clock_status(s.device).c_str());
      auto push = RR_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
      push.pRangeProfilerObject = rp.object;
      push.pRangeName = "range";
      const bool one_range = !v.auto_ranges && !v.kernel_user_ranges;
      if (one_range) PC_TIMED(Kind::kPass, "PushRange", cuptiRangeProfilerPushRange(&push));
      if (v.pm_inside) {
        if (!pm_inside_pass(s, round > 0)) return failed("PM sampling inside the pass", V, __LINE__);
      } else if (v.kernel_user_ranges) {
        // The tool's user ranges per kernel: a push before each launch and a
        // pop after it, from the host (named k0 ... k5).
        static const char* const kNames[] = {"k0", "k1", "k2", "k3", "k4", "k5"};
        const auto around = [&](std::size_t i, bool before) {
          if (before) {
            auto kernel_push = RR_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
            kernel_push.pRangeProfilerObject = rp.object;
            kernel_push.pRangeName = kNames[i];
            return succeeded(cuptiRangeProfilerPushRange(&kernel_push), "PushRange (per kernel)", __LINE__);
          }
          auto kernel_pop = RR_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
          kernel_pop.pRangeProfilerObject = rp.object;
          return succeeded(cuptiRangeProfilerPopRange(&kernel_pop), "PopRange (per kernel)", __LINE__);
        };
        PC_TIMED(Kind::kWork, "launch (host)", s.work.launch_each(around, v.gated));
      } else if (!v.empty) {
        if (v.tool_work != ToolWork::kNone)
          PC_TIMED(Kind::kWork, "tool work (host)", s.work.launch_tool_work(v.tool_work));
        PC_TIMED(Kind::kWork, "launch (host)", s.work.launch());
      }
      // The tool waits for the range's work before it ends the pass.
      PC_TIMED(Kind::kWork, "wait for the kernels", s.work.wait());
      auto pop = RR_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
      pop.pRangeProfilerObject = rp.object;
      if (one_range) PC_TIMED(Kind::kPass, "PopRange", cuptiRangeProfilerPopRange(&pop));
      auto stop = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
      stop.pRangeProfilerObject = rp.object;
      PC_TIMED(Kind::kPass, "Stop", cuptiRangeProfilerStop(&stop));
      rp.in_pass = false;
      const double pass_ms = now_ms() - pass_start;
      if (clocks) std::printf("[%s] clocks after Stop: %s\n", V.c_str(), clock_status(s.device).c_str());
      if (round > 0) result.pass_ms.push_back(pass_ms);
      if (round == 1) result.first_range_pass_ms.push_back(pass_ms);
      all_submitted = stop.isAllPassSubmitted != 0;
      if (++passes > 4 * expected + 8) return failed("Stop", "CUPTI asked for far more passes than expected", __LINE__);
    }
    auto decode = RR_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    decode.pRangeProfilerObject = rp.object;
    PC_TIMED(Kind::kRange, "DecodeData", cuptiRangeProfilerDecodeData(&decode));
    const double range_ms = now_ms() - range_start;
    if (v.print_ranges && round == 1) {
      // Whether CUPTI's automatic ranges counted the tool's work as a range
      // of its own: the kernels' ranges and one more, or the kernels' only.
      auto info = RR_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
      info.pCounterDataImage = image.data();
      info.counterDataImageSize = image.size();
      PC_TRY(cuptiRangeProfilerGetCounterDataInfo(&info));
      std::printf("[%s] %zu counter ranges (%zu dropped) for %zu kernels and the tool's work (%s): %s\n", V.c_str(),
                  static_cast<std::size_t>(info.numTotalRanges), static_cast<std::size_t>(decode.numOfRangeDropped),
                  Workload::kKernels, name_of(v.tool_work),
                  info.numTotalRanges + decode.numOfRangeDropped > Workload::kKernels ? "counted as range(s) of its own"
                                                                                      : "not counted");
    }
    if (decode.numOfRangeDropped != 0) {
      return failed("DecodeData", std::to_string(decode.numOfRangeDropped) + " ranges dropped", __LINE__);
    }
    if (passes != expected) {
      std::printf("[%s] CUPTI ran %zu passes where the host API counted %zu\n", V.c_str(), passes, expected);
    }
    result.passes = passes;
    if (round == 0) continue;
    result.range_ms.push_back(range_ms);
    if (v.value_source == nullptr) continue;
    // Values of this round's range (auto ranges: the sum of its per-kernel ranges).
    auto info = RR_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    info.pCounterDataImage = image.data();
    info.counterDataImageSize = image.size();
    PC_TRY(cuptiRangeProfilerGetCounterDataInfo(&info));
    const std::size_t want = v.auto_ranges || v.kernel_user_ranges ? Workload::kKernels : 1;
    // Part k: the tool's counted work comes first; the kernels' ranges are the last.
    const std::size_t skipped =
        v.tool_work != ToolWork::kNone && info.numTotalRanges > want ? info.numTotalRanges - want : 0;
    if (info.numTotalRanges - skipped != want) {
      return failed("GetCounterDataInfo",
                    std::to_string(info.numTotalRanges) + " ranges, " + std::to_string(want) + " expected", __LINE__);
    }
    std::vector<std::size_t> indices(want);
    for (std::size_t r = 0; r < indices.size(); ++r) indices[r] = skipped + r;
    PC_TRY(evaluate_into_log(s.host, image, indices, names, v.value_source));
  }
  g_log.measuring = false;
  return true;
}

// ------------------------------------------------------------------ (b) the older Profiler API

// Config image and counter-data prefix of `names` through NVPW's raw-metrics
// config, the pair the older API's SetConfig and counter data image expect
// (cupti_profiler_target.h: the config is "created by
// NVPW_RawMetricsConfig_GetConfigImage()"). The CUPTI host API's image is not
// used here: its counter scheduling differs from the prefix built below, and a
// config and prefix that disagree give no values to compare.
bool nvpw_images(const std::string& chip, const std::vector<std::uint8_t>& availability,
                 const std::vector<std::string>& names, bool isolated, std::vector<std::uint8_t>& config,
                 std::vector<std::uint8_t>& prefix, std::size_t& passes) {
  static bool host_ready = false;
  if (!host_ready) {
    auto init = RR_CUPTI_PARAMS(NVPW_InitializeHost_Params);
    PC_TRY(NVPW_InitializeHost(&init));
    host_ready = true;
  }
  const std::uint8_t* avail = availability.empty() ? nullptr : availability.data();
  auto scratch_size = RR_CUPTI_PARAMS(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params);
  scratch_size.pChipName = chip.c_str();
  scratch_size.pCounterAvailabilityImage = avail;
  PC_TRY(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&scratch_size));
  std::vector<std::uint8_t> scratch(scratch_size.scratchBufferSize);
  auto evaluator = RR_CUPTI_PARAMS(NVPW_CUDA_MetricsEvaluator_Initialize_Params);
  evaluator.pScratchBuffer = scratch.data();
  evaluator.scratchBufferSize = scratch.size();
  evaluator.pChipName = chip.c_str();
  evaluator.pCounterAvailabilityImage = avail;
  PC_TRY(NVPW_CUDA_MetricsEvaluator_Initialize(&evaluator));
  std::vector<std::string> raw;  // the raw counters the metrics depend on, each once
  bool ok = true;
  for (const auto& metric : names) {
    NVPW_MetricEvalRequest request{};
    auto convert = RR_CUPTI_PARAMS(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params);
    convert.pMetricsEvaluator = evaluator.pMetricsEvaluator;
    convert.pMetricName = metric.c_str();
    convert.pMetricEvalRequest = &request;
    convert.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
    auto deps = RR_CUPTI_PARAMS(NVPW_MetricsEvaluator_GetMetricRawDependencies_Params);
    deps.pMetricsEvaluator = evaluator.pMetricsEvaluator;
    deps.pMetricEvalRequests = &request;
    deps.numMetricEvalRequests = 1;
    deps.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
    deps.metricEvalRequestStrideSize = sizeof(request);
    ok = succeeded(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(&convert), metric.c_str(), __LINE__) &&
         succeeded(NVPW_MetricsEvaluator_GetMetricRawDependencies(&deps), metric.c_str(), __LINE__);  // the count
    if (!ok) break;
    std::vector<const char*> found(deps.numRawDependencies);
    deps.ppRawDependencies = found.data();
    ok = succeeded(NVPW_MetricsEvaluator_GetMetricRawDependencies(&deps), metric.c_str(), __LINE__);
    if (!ok) break;
    for (const char* d : found)
      if (std::find(raw.begin(), raw.end(), d) == raw.end()) raw.emplace_back(d);
  }
  auto destroy = RR_CUPTI_PARAMS(NVPW_MetricsEvaluator_Destroy_Params);
  destroy.pMetricsEvaluator = evaluator.pMetricsEvaluator;
  NVPW_MetricsEvaluator_Destroy(&destroy);
  if (!ok) return false;
  std::vector<NVPA_RawMetricRequest> requests;
  for (const auto& r : raw) {
    requests.push_back(raw_metric_request(r.c_str()));
    requests.back().isolated = isolated ? 1 : 0;
  }
  // One of chip name and availability image: the availability image on a
  // device, the chip name without one (nvperf_cuda_host.h).
  auto create = RR_CUPTI_PARAMS(NVPW_CUDA_RawMetricsConfig_Create_V2_Params);
  create.activityKind = NVPA_ACTIVITY_KIND_PROFILER;
  create.pChipName = avail == nullptr ? chip.c_str() : nullptr;
  create.pCounterAvailabilityImage = avail;
  PC_TRY(NVPW_CUDA_RawMetricsConfig_Create_V2(&create));
  NVPA_RawMetricsConfig* raw_config = create.pRawMetricsConfig;
  auto begin = RR_CUPTI_PARAMS(NVPW_RawMetricsConfig_BeginPassGroup_Params);
  begin.pRawMetricsConfig = raw_config;
  auto add = RR_CUPTI_PARAMS(NVPW_RawMetricsConfig_AddMetrics_Params);
  add.pRawMetricsConfig = raw_config;
  add.pRawMetricRequests = requests.data();
  add.numMetricRequests = requests.size();
  auto end = RR_CUPTI_PARAMS(NVPW_RawMetricsConfig_EndPassGroup_Params);
  end.pRawMetricsConfig = raw_config;
  auto generate = RR_CUPTI_PARAMS(NVPW_RawMetricsConfig_GenerateConfigImage_Params);
  generate.pRawMetricsConfig = raw_config;
  auto get = RR_CUPTI_PARAMS(NVPW_RawMetricsConfig_GetConfigImage_Params);
  get.pRawMetricsConfig = raw_config;
  auto count = RR_CUPTI_PARAMS(NVPW_RawMetricsConfig_GetNumPasses_V2_Params);
  count.pRawMetricsConfig = raw_config;
  ok = succeeded(NVPW_RawMetricsConfig_BeginPassGroup(&begin), "BeginPassGroup", __LINE__) &&
       succeeded(NVPW_RawMetricsConfig_AddMetrics(&add), "RawMetricsConfig_AddMetrics", __LINE__) &&
       succeeded(NVPW_RawMetricsConfig_EndPassGroup(&end), "EndPassGroup", __LINE__) &&
       succeeded(NVPW_RawMetricsConfig_GenerateConfigImage(&generate), "GenerateConfigImage", __LINE__) &&
       succeeded(NVPW_RawMetricsConfig_GetNumPasses_V2(&count), "GetNumPasses_V2", __LINE__) &&
       succeeded(NVPW_RawMetricsConfig_GetConfigImage(&get), "GetConfigImage (size)", __LINE__);
  if (ok) {
    config.assign(get.bytesCopied, 0);
    get.bytesAllocated = config.size();
    get.pBuffer = config.data();
    ok = succeeded(NVPW_RawMetricsConfig_GetConfigImage(&get), "GetConfigImage", __LINE__);
    passes = count.numPasses;
  }
  auto destroy_config = RR_CUPTI_PARAMS(NVPW_RawMetricsConfig_Destroy_Params);
  destroy_config.pRawMetricsConfig = raw_config;
  NVPW_RawMetricsConfig_Destroy(&destroy_config);
  if (!ok) return false;
  auto builder = RR_CUPTI_PARAMS(NVPW_CUDA_CounterDataBuilder_Create_Params);
  builder.pChipName = avail == nullptr ? chip.c_str() : nullptr;
  builder.pCounterAvailabilityImage = avail;
  PC_TRY(NVPW_CUDA_CounterDataBuilder_Create(&builder));
  auto builder_add = RR_CUPTI_PARAMS(NVPW_CounterDataBuilder_AddMetrics_Params);
  builder_add.pCounterDataBuilder = builder.pCounterDataBuilder;
  builder_add.pRawMetricRequests = requests.data();
  builder_add.numMetricRequests = requests.size();
  auto get_prefix = RR_CUPTI_PARAMS(NVPW_CounterDataBuilder_GetCounterDataPrefix_Params);
  get_prefix.pCounterDataBuilder = builder.pCounterDataBuilder;
  ok = succeeded(NVPW_CounterDataBuilder_AddMetrics(&builder_add), "CounterDataBuilder_AddMetrics", __LINE__) &&
       succeeded(NVPW_CounterDataBuilder_GetCounterDataPrefix(&get_prefix), "GetCounterDataPrefix (size)", __LINE__);
  if (ok) {
    prefix.assign(get_prefix.bytesCopied, 0);
    get_prefix.bytesAllocated = prefix.size();
    get_prefix.pBuffer = prefix.data();
    ok = succeeded(NVPW_CounterDataBuilder_GetCounterDataPrefix(&get_prefix), "GetCounterDataPrefix", __LINE__);
  }
  auto destroy_builder = RR_CUPTI_PARAMS(NVPW_CounterDataBuilder_Destroy_Params);
  destroy_builder.pCounterDataBuilder = builder.pCounterDataBuilder;
  NVPW_CounterDataBuilder_Destroy(&destroy_builder);
  return ok;
}

// The older API's counter data image of `ranges` ranges over `prefix`, and its
// scratch buffer.
bool legacy_image(const std::vector<std::uint8_t>& prefix, std::uint32_t ranges, std::vector<std::uint8_t>& image,
                  std::vector<std::uint8_t>& scratch) {
  auto options = RR_CUPTI_PARAMS(CUpti_Profiler_CounterDataImageOptions);
  options.pCounterDataPrefix = prefix.data();
  options.counterDataPrefixSize = prefix.size();
  options.maxNumRanges = ranges;
  options.maxNumRangeTreeNodes = ranges;
  options.maxRangeNameLength = 64;
  auto size = RR_CUPTI_PARAMS(CUpti_Profiler_CounterDataImage_CalculateSize_Params);
  size.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE;
  size.pOptions = &options;
  PC_TRY(cuptiProfilerCounterDataImageCalculateSize(&size));
  image.assign(size.counterDataImageSize, 0);
  auto init = RR_CUPTI_PARAMS(CUpti_Profiler_CounterDataImage_Initialize_Params);
  init.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE;
  init.pOptions = &options;
  init.counterDataImageSize = image.size();
  init.pCounterDataImage = image.data();
  PC_TRY(cuptiProfilerCounterDataImageInitialize(&init));
  auto scratch_size = RR_CUPTI_PARAMS(CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params);
  scratch_size.counterDataImageSize = image.size();
  scratch_size.pCounterDataImage = image.data();
  PC_TRY(cuptiProfilerCounterDataImageCalculateScratchBufferSize(&scratch_size));
  scratch.assign(scratch_size.counterDataScratchBufferSize, 0);
  auto scratch_init = RR_CUPTI_PARAMS(CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params);
  scratch_init.counterDataImageSize = image.size();
  scratch_init.pCounterDataImage = image.data();
  scratch_init.counterDataScratchBufferSize = scratch.size();
  scratch_init.pCounterDataScratchBuffer = scratch.data();
  PC_TRY(cuptiProfilerCounterDataImageInitializeScratchBuffer(&scratch_init));
  return true;
}

// Values of the compared metrics for the given ranges of an older-API image
// (summed), through NVPW's metrics evaluator set up from that image: the
// evaluator its counter data belongs to.
bool evaluate_legacy(const std::string& chip, const std::vector<std::uint8_t>& availability,
                     const std::vector<std::uint8_t>& image, const std::vector<std::size_t>& ranges,
                     const std::vector<std::string>& names, const std::string& source) {
  auto scratch_size = RR_CUPTI_PARAMS(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params);
  scratch_size.pChipName = chip.c_str();
  scratch_size.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  PC_TRY(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&scratch_size));
  std::vector<std::uint8_t> scratch(scratch_size.scratchBufferSize);
  auto init = RR_CUPTI_PARAMS(NVPW_CUDA_MetricsEvaluator_Initialize_Params);
  init.pScratchBuffer = scratch.data();
  init.scratchBufferSize = scratch.size();
  init.pChipName = chip.c_str();
  init.pCounterAvailabilityImage = scratch_size.pCounterAvailabilityImage;
  init.pCounterDataImage = image.data();
  init.counterDataImageSize = image.size();
  PC_TRY(NVPW_CUDA_MetricsEvaluator_Initialize(&init));
  bool ok = true;
  for (const auto& metric : compared_metrics()) {
    if (!ok || std::find(names.begin(), names.end(), metric) == names.end()) continue;
    NVPW_MetricEvalRequest request{};
    auto convert = RR_CUPTI_PARAMS(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params);
    convert.pMetricsEvaluator = init.pMetricsEvaluator;
    convert.pMetricName = metric.c_str();
    convert.pMetricEvalRequest = &request;
    convert.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
    ok = succeeded(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(&convert), metric.c_str(), __LINE__);
    double total = 0;
    for (std::size_t r = 0; ok && r < ranges.size(); ++r) {
      auto attributes = RR_CUPTI_PARAMS(NVPW_MetricsEvaluator_SetDeviceAttributes_Params);
      attributes.pMetricsEvaluator = init.pMetricsEvaluator;
      attributes.pCounterDataImage = image.data();
      attributes.counterDataImageSize = image.size();
      double value = 0;
      auto evaluate = RR_CUPTI_PARAMS(NVPW_MetricsEvaluator_EvaluateToGpuValues_Params);
      evaluate.pMetricsEvaluator = init.pMetricsEvaluator;
      evaluate.pMetricEvalRequests = &request;
      evaluate.numMetricEvalRequests = 1;
      evaluate.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
      evaluate.metricEvalRequestStrideSize = sizeof(request);
      evaluate.pCounterDataImage = image.data();
      evaluate.counterDataImageSize = image.size();
      evaluate.rangeIndex = ranges[r];
      evaluate.isolated = 1;
      evaluate.pMetricValues = &value;
      ok = succeeded(NVPW_MetricsEvaluator_SetDeviceAttributes(&attributes), "SetDeviceAttributes", __LINE__) &&
           succeeded(NVPW_MetricsEvaluator_EvaluateToGpuValues(&evaluate), metric.c_str(), __LINE__);
      total += value;
    }
    if (ok) g_log.values[metric][source].push_back(total);
  }
  auto destroy = RR_CUPTI_PARAMS(NVPW_MetricsEvaluator_Destroy_Params);
  destroy.pMetricsEvaluator = init.pMetricsEvaluator;
  NVPW_MetricsEvaluator_Destroy(&destroy);
  return ok;
}

// The name of range `index` of an older-API image (nested names joined by '/').
std::string legacy_range_name(const std::vector<std::uint8_t>& image, std::size_t index) {
  auto p = RR_CUPTI_PARAMS(NVPW_Profiler_CounterData_GetRangeDescriptions_Params);
  p.pCounterDataImage = image.data();
  p.rangeIndex = index;
  if (NVPW_Profiler_CounterData_GetRangeDescriptions(&p) != NVPA_STATUS_SUCCESS) return "?";
  std::vector<const char*> parts(p.numDescriptions);
  p.ppDescriptions = parts.data();
  if (NVPW_Profiler_CounterData_GetRangeDescriptions(&p) != NVPA_STATUS_SUCCESS) return "?";
  std::string name;
  for (std::size_t i = 0; i < parts.size(); ++i) name += (i ? "/" : "") + std::string(parts[i] ? parts[i] : "");
  return name;
}

struct LegacyVariant {
  std::string name;
  bool session_per_range = false;  // BeginSession/EndSession around every range
  bool auto_ranges = false;        // CUPTI_AutoRange: one counter range per kernel
  const char* value_source = nullptr;
};

// Ends whatever an older-API session still has open, in the order the API
// needs, so a failed variant leaves the context as it found it.
struct LegacyState {
  CUcontext ctx = nullptr;
  bool session = false, configured = false, in_pass = false, enabled = false;
  ~LegacyState() {
    if (enabled) {
      auto p = RR_CUPTI_PARAMS(CUpti_Profiler_DisableProfiling_Params);
      p.ctx = ctx;
      cuptiProfilerDisableProfiling(&p);
    }
    if (in_pass) {
      auto p = RR_CUPTI_PARAMS(CUpti_Profiler_EndPass_Params);
      p.ctx = ctx;
      cuptiProfilerEndPass(&p);
    }
    if (configured) {
      auto p = RR_CUPTI_PARAMS(CUpti_Profiler_UnsetConfig_Params);
      p.ctx = ctx;
      cuptiProfilerUnsetConfig(&p);
    }
    if (session) {
      auto p = RR_CUPTI_PARAMS(CUpti_Profiler_EndSession_Params);
      p.ctx = ctx;
      cuptiProfilerEndSession(&p);
    }
  }
};

bool run_legacy(Setup& s, const LegacyVariant& v, const std::vector<std::uint8_t>& config,
                const std::vector<std::uint8_t>& prefix, std::size_t expected_passes) {
  const std::string& V = v.name;
  Variant& result = g_log.variant(V);
  result.kernels = Workload::kKernels;
  const int rounds = s.options.rounds;
  const std::size_t per_range = v.auto_ranges ? Workload::kKernels : 1;  // counter ranges per range
  LegacyState state;
  state.ctx = s.ctx;
  std::vector<std::uint8_t> image, scratch;
  auto begin_session = [&](std::uint32_t ranges, Kind kind) {
    const double t = now_ms();
    PC_TRY(legacy_image(prefix, ranges, image, scratch));
    g_log.record(V, kind, "counter data image + scratch (initialize)", now_ms() - t);
    auto p = RR_CUPTI_PARAMS(CUpti_Profiler_BeginSession_Params);
    p.ctx = s.ctx;
    p.counterDataImageSize = image.size();
    p.pCounterDataImage = image.data();
    p.counterDataScratchBufferSize = scratch.size();
    p.pCounterDataScratchBuffer = scratch.data();
    p.range = v.auto_ranges ? CUPTI_AutoRange : CUPTI_UserRange;
    p.replayMode = CUPTI_UserReplay;
    p.maxRangesPerPass = per_range;
    p.maxLaunchesPerPass = std::max<std::size_t>(per_range, Workload::kKernels);
    PC_TIMED(kind, "BeginSession", cuptiProfilerBeginSession(&p));
    state.session = true;
    return true;
  };
  // One session: its image holds every round's ranges.
  if (!v.session_per_range) PC_TRY(begin_session(static_cast<std::uint32_t>((rounds + 1) * per_range), Kind::kSetup));
  for (int round = 0; round <= rounds; ++round) {
    g_log.measuring = round > 0;
    const double range_start = now_ms();
    if (v.session_per_range) PC_TRY(begin_session(static_cast<std::uint32_t>(per_range), Kind::kRange));
    // In-app (user) replay: pass 0, target nesting level = minNestingLevel.
    auto set = RR_CUPTI_PARAMS(CUpti_Profiler_SetConfig_Params);
    set.ctx = s.ctx;
    set.pConfig = config.data();
    set.configSize = config.size();
    set.minNestingLevel = 1;
    set.numNestingLevels = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    PC_TIMED(Kind::kRange, "SetConfig", cuptiProfilerSetConfig(&set));
    state.configured = true;
    const std::string range_name = "range" + std::to_string(round);  // one counter range per round in one image
    std::size_t passes = 0;
    for (bool all_submitted = false; !all_submitted;) {
      const double pass_start = now_ms();
      auto begin_pass = RR_CUPTI_PARAMS(CUpti_Profiler_BeginPass_Params);
      begin_pass.ctx = s.ctx;
      PC_TIMED(Kind::kPass, "BeginPass", cuptiProfilerBeginPass(&begin_pass));
      state.in_pass = true;
      auto enable = RR_CUPTI_PARAMS(CUpti_Profiler_EnableProfiling_Params);
      enable.ctx = s.ctx;
      PC_TIMED(Kind::kPass, "EnableProfiling", cuptiProfilerEnableProfiling(&enable));
      state.enabled = true;
      auto push = RR_CUPTI_PARAMS(CUpti_Profiler_PushRange_Params);
      push.ctx = s.ctx;
      push.pRangeName = range_name.c_str();
      push.rangeNameLength = range_name.size();
      if (!v.auto_ranges) PC_TIMED(Kind::kPass, "PushRange", cuptiProfilerPushRange(&push));
      PC_TIMED(Kind::kWork, "launch (host)", s.work.launch());
      PC_TIMED(Kind::kWork, "wait for the kernels", s.work.wait());
      auto pop = RR_CUPTI_PARAMS(CUpti_Profiler_PopRange_Params);
      pop.ctx = s.ctx;
      if (!v.auto_ranges) PC_TIMED(Kind::kPass, "PopRange", cuptiProfilerPopRange(&pop));
      auto disable = RR_CUPTI_PARAMS(CUpti_Profiler_DisableProfiling_Params);
      disable.ctx = s.ctx;
      PC_TIMED(Kind::kPass, "DisableProfiling", cuptiProfilerDisableProfiling(&disable));
      state.enabled = false;
      auto end_pass = RR_CUPTI_PARAMS(CUpti_Profiler_EndPass_Params);
      end_pass.ctx = s.ctx;
      PC_TIMED(Kind::kPass, "EndPass", cuptiProfilerEndPass(&end_pass));
      state.in_pass = false;
      const double pass_ms = now_ms() - pass_start;
      if (round > 0) result.pass_ms.push_back(pass_ms);
      if (round == 1) result.first_range_pass_ms.push_back(pass_ms);
      all_submitted = end_pass.allPassesSubmitted != 0;
      if (++passes > 4 * expected_passes + 8) return failed("EndPass", "far more passes than expected", __LINE__);
    }
    auto flush = RR_CUPTI_PARAMS(CUpti_Profiler_FlushCounterData_Params);  // decodes the submitted passes
    flush.ctx = s.ctx;
    PC_TIMED(Kind::kRange, "FlushCounterData (decode)", cuptiProfilerFlushCounterData(&flush));
    if (flush.numRangesDropped != 0 || flush.numTraceBytesDropped != 0) {
      return failed("FlushCounterData",
                    std::to_string(flush.numRangesDropped) + " ranges and " +
                        std::to_string(flush.numTraceBytesDropped) + " trace bytes dropped",
                    __LINE__);
    }
    auto unset = RR_CUPTI_PARAMS(CUpti_Profiler_UnsetConfig_Params);
    unset.ctx = s.ctx;
    PC_TIMED(Kind::kRange, "UnsetConfig", cuptiProfilerUnsetConfig(&unset));
    state.configured = false;
    if (v.session_per_range) {
      auto end = RR_CUPTI_PARAMS(CUpti_Profiler_EndSession_Params);
      end.ctx = s.ctx;
      PC_TIMED(Kind::kRange, "EndSession", cuptiProfilerEndSession(&end));
      state.session = false;
    }
    const double range_ms = now_ms() - range_start;
    if (passes != expected_passes) {
      std::printf("[%s] CUPTI ran %zu passes where NVPW counted %zu\n", V.c_str(), passes, expected_passes);
    }
    result.passes = passes;
    if (round == 0) continue;
    result.range_ms.push_back(range_ms);
    if (v.value_source == nullptr) continue;
    // This round's counter ranges: the image's last `per_range` ranges, whose
    // names are checked (user ranges: the round's own name).
    auto count = RR_CUPTI_PARAMS(NVPW_CounterData_GetNumRanges_Params);
    count.pCounterDataImage = image.data();
    PC_TRY(NVPW_CounterData_GetNumRanges(&count));
    const std::size_t expected_ranges = v.session_per_range ? per_range : (round + 1) * per_range;
    if (count.numRanges != expected_ranges) {
      return failed("GetNumRanges",
                    std::to_string(count.numRanges) + " ranges, " + std::to_string(expected_ranges) + " expected",
                    __LINE__);
    }
    std::vector<std::size_t> indices;
    for (std::size_t r = count.numRanges - per_range; r < count.numRanges; ++r) indices.push_back(r);
    if (!v.auto_ranges && legacy_range_name(image, indices[0]) != range_name) {
      return failed("range name", legacy_range_name(image, indices[0]) + " where " + range_name + " was expected",
                    __LINE__);
    }
    PC_TRY(evaluate_legacy(s.chip, s.availability, image, indices, s.full, v.value_source));
  }
  g_log.measuring = false;
  return true;
}

// ------------------------------------------------------------------ (c) PM sampling

// A single-pass PM-sampling config of the names of `wanted` that fit: a name
// the host API refuses, or one that would need a second pass, is skipped (PM
// sampling takes single-pass configs only).
void pm_pick(const std::string& chip, const std::vector<std::uint8_t>& availability,
             const std::vector<std::string>& wanted, std::vector<std::string>& chosen,
             std::vector<std::uint8_t>& config) {
  chosen.clear();
  for (const auto& metric : wanted) {
    std::vector<std::string> trial = chosen;
    trial.push_back(metric);
    std::vector<std::uint8_t> image;
    std::size_t passes = 0;
    if (host_config(CUPTI_PROFILER_TYPE_PM_SAMPLING, chip, availability, trial, image, passes, true) && passes == 1) {
      chosen = trial;
      config = image;
    }
  }
}

// Config A holds the compared metrics; B others, so that c2 switches between
// two really different configs.
const std::vector<std::string> kPmConfigA = {"smsp__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
                                             "lts__t_sectors.sum", "gpc__cycles_elapsed.max"};
const std::vector<std::string> kPmConfigB = {"sm__warps_launched.sum", "sm__ctas_launched.sum",
                                             "dram__sectors_read.sum", "smsp__inst_issued.sum", "lts__t_bytes.sum"};

// How much of the full list PM sampling can collect, and into how many
// single-pass configs a greedy pass over the list (in its order) puts it: an
// upper bound on the configs needed.
void pm_coverage(const Setup& s) {
  std::vector<std::string> group, refused;
  std::size_t taken = 0, groups = 0;
  for (const auto& metric : s.full) {
    std::vector<std::uint8_t> image;
    std::size_t passes = 0;
    if (!host_config(CUPTI_PROFILER_TYPE_PM_SAMPLING, s.chip, {}, {metric}, image, passes, true) || passes != 1) {
      refused.push_back(metric);
      continue;
    }
    ++taken;
    std::vector<std::string> trial = group;
    trial.push_back(metric);
    if (host_config(CUPTI_PROFILER_TYPE_PM_SAMPLING, s.chip, {}, trial, image, passes, true) && passes == 1) {
      group = trial;
    } else {
      ++groups;
      group = {metric};
    }
  }
  std::printf("PM sampling takes %zu of the %zu full-list metrics, in %zu single-pass configs (greedy, list order)\n",
              taken, s.full.size(), groups + (group.empty() ? 0 : 1));
  std::printf("PM sampling refuses, e.g.:");
  for (std::size_t i = 0; i < refused.size() && i < 12; ++i) std::printf(" %s", refused[i].c_str());
  std::printf("\n");
}

// One PM-sampling object with its host object for evaluation. Each config's
// counter data image is initialized once, right after its own size query
// (CounterDataImageInitialize takes no metric list: it lays the image out as
// the object's last GetCounterDataSize asked), and every window starts from a
// copy of that blank image.
struct PmSampler {
  CUpti_PmSampling_Object* object = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::string V;  // the variant its timed calls are recorded under
  std::uint64_t interval = 0;
  CUpti_PmSampling_TriggerMode trigger = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  bool started = false;

  ~PmSampler() {
    if (started) {
      auto stop = RR_CUPTI_PARAMS(CUpti_PmSampling_Stop_Params);
      stop.pPmSamplingObject = object;
      cuptiPmSamplingStop(&stop);
    }
    if (object != nullptr) {
      auto off = RR_CUPTI_PARAMS(CUpti_PmSampling_Disable_Params);
      off.pPmSamplingObject = object;
      cuptiPmSamplingDisable(&off);
    }
    host_deinitialize(host);
  }
  CUptiResult try_set_config(const std::vector<std::uint8_t>& config) {
    auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_SetConfig_Params);
    p.pPmSamplingObject = object;
    p.configSize = config.size();
    p.pConfig = config.data();
    p.hardwareBufferSize = std::size_t{256} << 20;
    p.samplingInterval = interval;  // ns (time trigger) or sys clock cycles (sysclk trigger)
    p.triggerMode = trigger;
    p.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;  // overflow is reported
    return cuptiPmSamplingSetConfig(&p);
  }
  bool set_config(const std::vector<std::uint8_t>& config, Kind kind = Kind::kPass) {
    PC_TIMED(kind, "SetConfig", try_set_config(config));
    return true;
  }
  bool blank_image(const std::vector<std::string>& names, std::uint32_t max_samples, std::vector<std::uint8_t>& blank) {
    std::vector<const char*> c_names = c_strings(names);
    auto size = RR_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params);
    size.pPmSamplingObject = object;
    size.pMetricNames = c_names.data();
    size.numMetrics = c_names.size();
    size.maxSamples = max_samples;
    PC_TRY(cuptiPmSamplingGetCounterDataSize(&size));
    blank.assign(size.counterDataSize, 0);
    auto init = RR_CUPTI_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params);
    init.pPmSamplingObject = object;
    init.counterDataSize = blank.size();
    init.pCounterData = blank.data();
    PC_TIMED(Kind::kSetup, "CounterDataImageInitialize", cuptiPmSamplingCounterDataImageInitialize(&init));
    return true;
  }
  bool start(Kind kind = Kind::kPass) {
    auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_Start_Params);
    p.pPmSamplingObject = object;
    PC_TIMED(kind, "Start", cuptiPmSamplingStart(&p));
    started = true;
    return true;
  }
  bool stop(Kind kind = Kind::kPass) {
    auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_Stop_Params);
    p.pPmSamplingObject = object;
    PC_TIMED(kind, "Stop", cuptiPmSamplingStop(&p));
    started = false;
    return true;
  }
  // Decodes the hardware buffer into `image` until CUPTI reports the end of
  // the records; an overflow, a full image or records left over fail (the
  // sums would be short). `completed`: the samples in the image.
  bool decode(std::vector<std::uint8_t>& image, std::size_t& completed, Kind kind = Kind::kPass) {
    const double t = now_ms();
    bool end_of_records = false;
    for (int i = 0; i < 1000 && !end_of_records; ++i) {
      auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_DecodeData_Params);
      p.pPmSamplingObject = object;
      p.pCounterDataImage = image.data();
      p.counterDataImageSize = image.size();
      PC_TRY(cuptiPmSamplingDecodeData(&p));
      if (p.overflow) return failed("DecodeData", "the hardware buffer overflowed: samples lost", __LINE__);
      if (p.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) {
        return failed("DecodeData", "the counter data image is full: samples left undecoded", __LINE__);
      }
      end_of_records = p.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
    }
    if (!end_of_records) return failed("DecodeData", "no end of records after 1000 calls", __LINE__);
    auto info = RR_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params);
    info.pCounterDataImage = image.data();
    info.counterDataImageSize = image.size();
    PC_TRY(cuptiPmSamplingGetCounterDataInfo(&info));
    completed = info.numCompletedSamples;
    g_log.record(V, kind, "DecodeData (+GetCounterDataInfo)", now_ms() - t);
    return true;
  }
  bool sample(const std::vector<std::uint8_t>& image, std::size_t index, const std::vector<std::string>& names,
              std::vector<double>& values, std::uint64_t& begin_ns, std::uint64_t& end_ns) {
    auto info = RR_CUPTI_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params);
    info.pPmSamplingObject = object;
    info.pCounterDataImage = image.data();
    info.counterDataImageSize = image.size();
    info.sampleIndex = index;
    PC_TRY(cuptiPmSamplingCounterDataGetSampleInfo(&info));
    begin_ns = info.startTimestamp;
    end_ns = info.endTimestamp;
    std::vector<const char*> c_names = c_strings(names);
    values.assign(names.size(), 0);
    auto p = RR_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    p.pHostObject = host;
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    p.rangeIndex = index;
    p.ppMetricNames = c_names.data();
    p.numMetrics = c_names.size();
    p.pMetricValues = values.data();
    PC_TRY(cuptiProfilerHostEvaluateToGpuValues(&p));
    return true;
  }
  // The sum of every completed sample of `image`, per name.
  bool sum(const std::vector<std::uint8_t>& image, std::size_t completed, const std::vector<std::string>& names,
           std::vector<double>& totals) {
    totals.assign(names.size(), 0);
    std::vector<double> values;
    std::uint64_t b = 0, e = 0;
    for (std::size_t i = 0; i < completed; ++i) {
      PC_TRY(sample(image, i, names, values, b, e));
      for (std::size_t k = 0; k < names.size(); ++k) totals[k] += values[k];
    }
    return true;
  }
  // Enables PM sampling on `device` and sets `config`, falling back from the
  // ns-interval trigger to the sys-clock one where the chip refuses it.
  bool enable(int device, const std::string& chip, const std::vector<std::uint8_t>& availability,
              std::uint64_t interval_ns, const std::vector<std::uint8_t>& config) {
    PC_TRY(host_initialize(CUPTI_PROFILER_TYPE_PM_SAMPLING, chip, availability, &host));
    auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_Enable_Params);  // device-wide: every context on the GPU
    p.deviceIndex = static_cast<std::size_t>(device);
    PC_TIMED(Kind::kSetup, "Enable", cuptiPmSamplingEnable(&p));
    object = p.pPmSamplingObject;
    interval = interval_ns;
    if (try_set_config(config) == CUPTI_SUCCESS) return true;
    trigger = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
    std::printf("[%s] the ns-interval trigger was refused; sys-clock trigger, %llu cycles\n", V.c_str(),
                static_cast<unsigned long long>(interval));
    PC_TRY(try_set_config(config));
    return true;
  }
};

bool pm_availability(int device, std::vector<std::uint8_t>& availability) {
  auto p = RR_CUPTI_PARAMS(CUpti_PmSampling_GetCounterAvailability_Params);  // PM sampling's own, per device
  p.deviceIndex = static_cast<std::size_t>(device);
  PC_TRY(cuptiPmSamplingGetCounterAvailability(&p));
  availability.assign(p.counterAvailabilityImageSize, 0);
  p.pCounterAvailabilityImage = availability.data();
  PC_TRY(cuptiPmSamplingGetCounterAvailability(&p));
  return true;
}

// Sleep that lets the sample holding the kernels' end complete before Stop:
// four intervals and half a millisecond (an interval in sys-clock cycles is
// taken as ns, an overestimate at clocks above 1 GHz). Part of a window's cost.
void settle(const PmSampler& pm) {
  std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(4 * pm.interval / 1000 + 500)));
}

// One sampled window of the 6 kernels, its calls recorded under pm.V: the
// blank image copied into `image`, Start, the kernels launched and waited
// for, the settle, Stop, and the samples decoded into `image` (`completed`).
bool pm_window(Setup& s, PmSampler& pm, const std::vector<std::uint8_t>& blank, std::vector<std::uint8_t>& image,
               std::size_t& completed) {
  const std::string& V = pm.V;
  double t = now_ms();
  image = blank;
  g_log.record(V, Kind::kPass, "image reset (copy of the blank)", now_ms() - t);
  PC_TRY(pm.start());
  PC_TIMED(Kind::kWork, "launch (host)", s.work.launch());
  PC_TIMED(Kind::kWork, "wait for the kernels", s.work.wait());
  t = now_ms();
  settle(pm);
  g_log.record(V, Kind::kPass, "settle (last sample completes)", now_ms() - t);
  PC_TRY(pm.stop());
  PC_TRY(pm.decode(image, completed));
  return true;
}

// c4: c1 with the image sized to the window: room for twice the samples c1's
// windows held (at least 16), instead of 4096. c1's reset copies a blank
// image of 4096 samples each window; a backend would size it to its window.
// Runs after c3: a failure here (a window that fills the smaller image)
// leaves c1-c3 standing.
bool run_pm_sized_image(Setup& s, PmSampler& pm, const std::vector<std::uint8_t>& config_a,
                        const std::vector<std::string>& names_a, std::size_t blank_a_bytes) {
  std::string& V = pm.V;
  std::vector<std::uint8_t> image;
  std::vector<double> totals;
  std::size_t most = 0;
  for (const Row& r : g_log.rows)
    if (r.variant == "c1_pm_start_stop_per_window" && r.call.rfind("samples per window", 0) == 0)
      for (double n : r.ms) most = std::max(most, static_cast<std::size_t>(n));
  const auto room = static_cast<std::uint32_t>(std::max<std::size_t>(16, 2 * most));
  V = "c4_pm_start_stop_image_sized";
  Variant& c4 = g_log.variant(V);
  c4.kernels = Workload::kKernels;
  c4.passes = 1;
  std::vector<std::uint8_t> blank_sized;
  PC_TRY(pm.set_config(config_a, Kind::kSetup));
  PC_TRY(pm.blank_image(names_a, room, blank_sized));
  std::printf("[c4] image of %u samples: %.2f MB (c1: 4096 samples, %.2f MB)\n", room, blank_sized.size() / 1e6,
              blank_a_bytes / 1e6);
  for (std::size_t w = 0; w < s.options.windows + 2; ++w) {
    g_log.measuring = w >= 2;
    const double window_start = now_ms();
    std::size_t completed = 0;
    PC_TRY(pm_window(s, pm, blank_sized, image, completed));
    const double window_ms = now_ms() - window_start;
    PC_TRY(pm.sum(image, completed, names_a, totals));
    if (w < 2) continue;
    c4.range_ms.push_back(window_ms);
    c4.pass_ms.push_back(window_ms);
    for (std::size_t k = 0; k < names_a.size(); ++k) {
      if (is_compared(names_a[k])) g_log.values[names_a[k]]["c4 PM window, sized image"].push_back(totals[k]);
    }
  }
  g_log.measuring = false;
  return true;
}

bool run_pm_sampling(Setup& s) {
  auto supported = RR_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  CUdevice cu_device = 0;
  PC_TRY(cuDeviceGet(&cu_device, s.device));
  supported.cuDevice = cu_device;
  supported.api = CUPTI_PROFILER_PM_SAMPLING;
  PC_TRY(cuptiProfilerDeviceSupported(&supported));
  if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    return failed("cuptiProfilerDeviceSupported", "PM sampling is not supported on this device", __LINE__);
  }
  std::vector<std::uint8_t> availability;
  PC_TRY(pm_availability(s.device, availability));
  std::vector<std::string> names_a, names_b;
  std::vector<std::uint8_t> config_a, config_b;
  pm_pick(s.chip, availability, kPmConfigA, names_a, config_a);
  pm_pick(s.chip, availability, kPmConfigB, names_b, config_b);
  for (const auto* names : {&names_a, &names_b}) {
    std::printf("[c] single-pass PM config %c:", names == &names_a ? 'A' : 'B');
    for (const auto& m : *names) std::printf(" %s", m.c_str());
    std::printf("\n");
  }
  const auto inst = std::find(names_a.begin(), names_a.end(), "smsp__inst_executed.sum");
  if (inst == names_a.end()) return failed("pm_pick", "PM sampling cannot count smsp__inst_executed.sum", __LINE__);
  const std::size_t inst_index = static_cast<std::size_t>(inst - names_a.begin());

  PmSampler pm;
  pm.V = "c1_pm_start_stop_per_window";
  std::string& V = pm.V;
  if (!pm.enable(s.device, s.chip, availability, s.options.interval_ns, config_a)) return false;
  std::printf("[c] trigger: %s, interval %llu\n",
              pm.trigger == CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL ? "GPU time (ns)" : "sys clock (cycles)",
              static_cast<unsigned long long>(pm.interval));
  std::vector<std::uint8_t> blank_a, blank_b, image;
  // Each blank image is laid out with its own config set, right after its own size query.
  PC_TRY(pm.blank_image(names_a, 4096, blank_a));
  if (!names_b.empty()) {
    PC_TRY(pm.set_config(config_b, Kind::kSetup));
    PC_TRY(pm.blank_image(names_b, 4096, blank_b));
  }

  // c1: Start and Stop around each window's kernels, one config.
  Variant& c1 = g_log.variant(V);
  c1.kernels = Workload::kKernels;
  c1.passes = 1;
  PC_TRY(pm.set_config(config_a, Kind::kSetup));
  std::vector<double> totals;
  for (std::size_t w = 0; w < s.options.windows + 2; ++w) {
    g_log.measuring = w >= 2;  // two warm-up windows
    const double window_start = now_ms();
    std::size_t completed = 0;
    PC_TRY(pm_window(s, pm, blank_a, image, completed));
    const double window_ms = now_ms() - window_start;
    const double t = now_ms();
    PC_TRY(pm.sum(image, completed, names_a, totals));
    g_log.record(V, Kind::kWork, "evaluate samples (host)", now_ms() - t);
    if (w < 2) continue;
    c1.range_ms.push_back(window_ms);
    c1.pass_ms.push_back(window_ms);
    g_log.record(V, Kind::kWork, "samples per window (a count, not ms)", static_cast<double>(completed));
    for (std::size_t k = 0; k < names_a.size(); ++k) {
      if (is_compared(names_a[k])) g_log.values[names_a[k]]["c1 PM window sum"].push_back(totals[k]);
    }
  }
  g_log.measuring = false;

  // c2: another config every window (A, B, A, ...), each window from its own
  // config's blank image: what each pass of a multi-pass list would cost.
  if (!names_b.empty()) {
    V = "c2_pm_config_per_window";
    Variant& c2 = g_log.variant(V);
    c2.kernels = Workload::kKernels;
    c2.passes = 1;
    for (std::size_t w = 0; w < s.options.windows + 2; ++w) {
      g_log.measuring = w >= 2;
      const bool a = w % 2 == 0;
      const double window_start = now_ms();
      PC_TRY(pm.set_config(a ? config_a : config_b));
      std::size_t completed = 0;
      PC_TRY(pm_window(s, pm, a ? blank_a : blank_b, image, completed));
      const double window_ms = now_ms() - window_start;
      PC_TRY(pm.sum(image, completed, a ? names_a : names_b, totals));
      if (a && w >= 2) g_log.values["smsp__inst_executed.sum"]["c2 PM window sum"].push_back(totals[inst_index]);
      if (w < 2) continue;
      c2.range_ms.push_back(window_ms);
      c2.pass_ms.push_back(window_ms);
    }
    g_log.measuring = false;
  }

  // c3: one Start for every window; each window lies between two %globaltimer
  // stamps, and each sample's counts go to the windows it overlaps, in
  // proportion to the overlap. The share of all counted instructions that
  // lands inside windows says whether the two clocks agree.
  V = "c3_pm_one_start_all_windows";
  g_log.measuring = true;
  unsigned long long* stamps = nullptr;  // mapped pinned memory: the kernel writes through the host pointer
  PC_TRY(cudaHostAlloc(&stamps, 2 * s.options.windows * sizeof(unsigned long long), cudaHostAllocMapped));
  std::unique_ptr<unsigned long long, cudaError_t (*)(void*)> stamps_owner(stamps, cudaFreeHost);
  std::vector<std::uint8_t> big_blank;
  PC_TRY(pm.set_config(config_a, Kind::kSetup));
  PC_TRY(pm.blank_image(names_a, 1u << 16, big_blank));
  image = big_blank;
  // The windows, each with an idle gap after it as between a tool's ranges.
  auto windows = [&] {
    for (std::size_t w = 0; w < s.options.windows; ++w) {
      stamp_kernel<<<1, 1, 0, s.work.stream()>>>(stamps + 2 * w);
      PC_TRY(s.work.launch());
      stamp_kernel<<<1, 1, 0, s.work.stream()>>>(stamps + 2 * w + 1);
      PC_TRY(cudaGetLastError());
      PC_TRY(s.work.wait());
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  };
  // The same windows without sampling first: what c3 adds is the difference.
  const double free_start = now_ms();
  PC_TRY(windows());
  const double free_ms = now_ms() - free_start;
  const double all_start = now_ms();
  PC_TRY(pm.start(Kind::kSetup));
  PC_TRY(windows());
  settle(pm);
  std::size_t completed = 0;
  PC_TRY(pm.stop(Kind::kSetup));
  PC_TRY(pm.decode(image, completed, Kind::kSetup));
  const double all_ms = now_ms() - all_start;
  std::vector<double> per_window(s.options.windows, 0), values;
  double counted = 0, attributed = 0;
  std::uint64_t first_begin = 0, last_end = 0;
  for (std::size_t i = 0; i < completed; ++i) {
    std::uint64_t b = 0, e = 0;
    PC_TRY(pm.sample(image, i, names_a, values, b, e));
    if (i == 0) first_begin = b;
    last_end = e;
    counted += values[inst_index];
    for (std::size_t w = 0; w < s.options.windows && e > b; ++w) {
      const double lo = std::max<double>(b, stamps[2 * w]), hi = std::min<double>(e, stamps[2 * w + 1]);
      if (hi > lo) {
        const double share = values[inst_index] * (hi - lo) / static_cast<double>(e - b);
        per_window[w] += share;
        attributed += share;
      }
    }
  }
  g_log.measuring = false;
  std::printf("[c3] %zu windows: %.1f ms sampled (Start to decoded) vs %.1f ms unsampled: %.3f ms per window\n",
              s.options.windows, all_ms, free_ms, (all_ms - free_ms) / static_cast<double>(s.options.windows));
  std::printf("[c3] %zu samples over [%llu, %llu] ns; window stamps [%llu, %llu] ns\n", completed,
              static_cast<unsigned long long>(first_begin), static_cast<unsigned long long>(last_end), stamps[0],
              stamps[2 * s.options.windows - 1]);
  std::printf("[c3] %.4f of the instructions counted fall inside the windows (1: the clocks agree)\n",
              counted > 0 ? attributed / counted : 0.0);
  g_log.values["smsp__inst_executed.sum"]["c3 PM by timestamps"] = per_window;
  if (!run_pm_sized_image(s, pm, config_a, names_a, blank_a.size())) {
    g_log.variant("c4_pm_start_stop_image_sized").ok = false;
    g_log.measuring = false;
    std::printf("[c4] FAILED (c1-c3 stand)\n");
  }
  return true;
}

// ------------------------------------------------------------------ (d) PM sampling inside a Range Profiler pass

// Called inside an open Range Profiler pass with a user range pushed: enables
// PM sampling, samples the pass's kernels, stops and disables it, and checks
// that samples came back. The pass's own values are compared afterwards.
bool pm_inside_pass(Setup& s, bool measured) {
  auto say = [](const char* what, CUptiResult r) {
    const char* text = "?";
    cuptiGetResultString(r, &text);
    std::printf("[d] %-52s %s\n", what, text);
    return r == CUPTI_SUCCESS;
  };
  static std::vector<std::string> names;
  static std::vector<std::uint8_t> config;
  if (config.empty()) pm_pick(s.chip, {}, kPmConfigA, names, config);  // host side, before the timed pass matters
  PmSampler pm;
  pm.V = "d_pm_inside_pass";
  PC_TRY(host_initialize(CUPTI_PROFILER_TYPE_PM_SAMPLING, s.chip, {}, &pm.host));
  auto enable = RR_CUPTI_PARAMS(CUpti_PmSampling_Enable_Params);
  enable.deviceIndex = static_cast<std::size_t>(s.device);
  const CUptiResult enabled = cuptiPmSamplingEnable(&enable);
  if (measured) say("PM sampling Enable inside a range-profiler pass", enabled);
  // Whatever PM sampling does, the pass's kernels run.
  if (enabled != CUPTI_SUCCESS) return s.work.launch();
  pm.object = enable.pPmSamplingObject;
  pm.interval = s.options.interval_ns;
  std::vector<std::uint8_t> blank;
  const CUptiResult configured = pm.try_set_config(config);
  if (measured) say("PM sampling SetConfig", configured);
  if (configured != CUPTI_SUCCESS || !pm.blank_image(names, 4096, blank)) return s.work.launch();
  auto start = RR_CUPTI_PARAMS(CUpti_PmSampling_Start_Params);
  start.pPmSamplingObject = pm.object;
  const CUptiResult started = cuptiPmSamplingStart(&start);
  if (measured) say("PM sampling Start", started);
  pm.started = started == CUPTI_SUCCESS;
  PC_TRY(s.work.launch());
  PC_TRY(s.work.wait());
  if (!pm.started) return true;
  settle(pm);
  auto stop = RR_CUPTI_PARAMS(CUpti_PmSampling_Stop_Params);
  stop.pPmSamplingObject = pm.object;
  const CUptiResult stopped = cuptiPmSamplingStop(&stop);
  pm.started = false;
  if (measured) say("PM sampling Stop", stopped);
  std::size_t completed = 0;
  std::vector<double> totals;
  if (stopped == CUPTI_SUCCESS && pm.decode(blank, completed, Kind::kSetup) &&
      pm.sum(blank, completed, names, totals)) {
    const auto inst = std::find(names.begin(), names.end(), "smsp__inst_executed.sum");
    if (measured && inst != names.end()) {
      const double value = totals[static_cast<std::size_t>(inst - names.begin())];
      std::printf("[d] PM samples inside the pass: %zu, instructions %.0f\n", completed, value);
      g_log.values["smsp__inst_executed.sum"]["d PM inside a pass"].push_back(value);
    }
  } else if (measured) {
    std::printf("[d] PM samples inside the pass could not be decoded\n");
  }
  return true;  // ~PmSampler disables PM sampling
}

// ------------------------------------------------------------------ (e) counters made ready on another thread

// One call of the set-up: its time, its error (empty when it succeeded) and
// the device's free memory after it (-1 where not asked: cuMemGetInfo is not
// called on the helper while another thread captures).
struct ReadyStep {
  std::string call;
  double ms = 0;
  std::string error;
  double free_mib = -1;
};

// What the set-up leaves for the ranges, and how it went. The helper fills
// `steps` in order and publishes each with `finished` (release), and names
// the call it is in with `current` before making it: the application's
// thread can print what finished, and where a set-up hangs, while the helper
// is still inside a call.
struct ReadyCounters {
  static constexpr std::size_t kMostSteps = 24;
  RangeProfilerObject rp;
  std::vector<std::uint8_t> empty_image;  // the empty pass's image: SetConfig keeps its address
  std::vector<std::uint8_t> blank;        // the full list's blank image of one range
  std::array<ReadyStep, kMostSteps> steps;
  std::atomic<std::size_t> finished{0};
  std::atomic<const char*> current{"(not started)"};
  std::atomic<bool> done{false};
  bool ok = false;
  double total_ms = 0;
};

// The config steps' answer: host_config refused the list (the application's
// thread names the refused metrics afterwards).
std::string error_text(bool r) { return r ? "" : "the host API refused the list"; }

double free_mib() {
  std::size_t free = 0, total = 0;
  return cuMemGetInfo(&free, &total) == CUDA_SUCCESS ? static_cast<double>(free) / (1 << 20) : -1;
}

// The tool's set-up, in its order (src/tool/cupti_counters.cpp:
// set_up_counters), from a thread that may not be the application's: the
// context made current, CUPTI's profiler initialized, the host API started
// (the tool's warm-up thread does this at the first context), the chip's
// name, Enable, the counter availability, the full list's config image; then
// what the tool does not do today: one empty pass (the first Start's cost paid
// here) of the list --empty-pass names, and the full list's blank image.
// Stops at the first failure; prints nothing (the caller prints the steps).
void make_counters_ready(Setup& s, ReadyCounters& out, bool relaxed, bool ask_memory) {
  const double started = now_ms();
  auto step = [&](const char* call, auto&& fn) {
    out.current.store(call);
    const double t = now_ms();
    const std::string error = error_text(fn());
    const std::size_t n = out.finished.load(std::memory_order_relaxed);
    if (n < out.steps.size()) {
      out.steps[n] = ReadyStep{call, now_ms() - t, error, ask_memory && error.empty() ? free_mib() : -1};
      out.finished.store(n + 1, std::memory_order_release);
    }
    return error.empty();
  };
  auto finish = [&](bool ok) {
    out.ok = ok;
    out.total_ms = now_ms() - started;
    out.current.store("(done)");
    out.done.store(true);
  };
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  if (relaxed &&
      !step("cuThreadExchangeStreamCaptureMode (relaxed)", [&] { return cuThreadExchangeStreamCaptureMode(&mode); }))
    return finish(false);
  if (!step("cuCtxSetCurrent (the application's context)", [&] { return cuCtxSetCurrent(s.ctx); }))
    return finish(false);
  auto init = RR_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  if (!step("cuptiProfilerInitialize", [&] { return cuptiProfilerInitialize(&init); })) return finish(false);
  auto chips = RR_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params);
  if (!step("host API start (GetSupportedChips; the tool: a warm-up thread)",
            [&] { return cuptiProfilerHostGetSupportedChips(&chips); }))
    return finish(false);
  auto chip = RR_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  chip.deviceIndex = static_cast<std::size_t>(s.device);
  if (!step("cuptiDeviceGetChipName", [&] { return cuptiDeviceGetChipName(&chip); })) return finish(false);
  s.chip = chip.pChipName;
  auto enable = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = s.ctx;
  if (!step("cuptiRangeProfilerEnable", [&] { return cuptiRangeProfilerEnable(&enable); })) return finish(false);
  out.rp.object = enable.pRangeProfilerObject;
  auto avail = RR_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  avail.ctx = s.ctx;
  if (!step("GetCounterAvailability", [&] {
        CUptiResult r = cuptiProfilerGetCounterAvailability(&avail);
        if (r != CUPTI_SUCCESS) return r;
        s.availability.assign(avail.counterAvailabilityImageSize, 0);
        avail.pCounterAvailabilityImage = s.availability.data();
        return cuptiProfilerGetCounterAvailability(&avail);
      }))
    return finish(false);
  if (!step("config image, full list (host API)", [&] {
        return host_config(CUPTI_PROFILER_TYPE_RANGE_PROFILER, s.chip, s.availability, s.full, s.full_config,
                           s.full_passes, true);
      }))
    return finish(false);
  // CounterDataImageInitialize lays the image out as the object's last
  // GetCounterDataSize asked: each list's size is asked right before its image.
  auto blank_of = [&](const std::vector<std::string>& names, std::vector<std::uint8_t>& blank) {
    std::vector<const char*> c_names = c_strings(names);
    auto size = RR_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    size.pRangeProfilerObject = out.rp.object;
    size.pMetricNames = c_names.data();
    size.numMetrics = c_names.size();
    size.maxNumOfRanges = 1;
    size.maxNumRangeTreeNodes = 1;
    CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&size);
    if (r != CUPTI_SUCCESS) return r;
    blank.assign(size.counterDataSize, 0);
    auto init_image = RR_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    init_image.pRangeProfilerObject = out.rp.object;
    init_image.counterDataSize = blank.size();
    init_image.pCounterData = blank.data();
    return cuptiRangeProfilerCounterDataImageInitialize(&init_image);
  };
  const EmptyPass empty = s.options.empty_pass;
  if (empty == EmptyPass::kNone) {
    if (!step("counter data image, full list", [&] { return blank_of(s.full, out.blank); })) return finish(false);
    return finish(true);
  }
  if (empty == EmptyPass::kOnePass) {
    if (!step("config image, one-pass list (not in the tool)", [&] {
          return host_config(CUPTI_PROFILER_TYPE_RANGE_PROFILER, s.chip, s.availability, s.single, s.single_config,
                             s.single_passes, true) &&
                 s.single_passes == 1;
        }))
      return finish(false);
    if (!step("counter data image, one-pass list", [&] { return blank_of(s.single, out.empty_image); }))
      return finish(false);
  } else {
    // The full list's image, and a copy of it for the empty pass (SetConfig
    // keeps the address; the ranges copy `blank` into images of their own).
    if (!step("counter data image, full list", [&] { return blank_of(s.full, out.blank); })) return finish(false);
    out.empty_image = out.blank;
  }
  const bool one_pass = empty == EmptyPass::kOnePass;
  auto config =
      set_config_params(out.rp.object, one_pass ? s.single_config : s.full_config, out.empty_image, CUPTI_UserRange, 1);
  if (!step(one_pass ? "SetConfig (one-pass list)" : "SetConfig (full list)",
            [&] { return cuptiRangeProfilerSetConfig(&config); }))
    return finish(false);
  auto start = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
  start.pRangeProfilerObject = out.rp.object;
  if (!step("Start (empty pass: the first Start)", [&] { return cuptiRangeProfilerStart(&start); }))
    return finish(false);
  out.rp.in_pass = true;
  auto push = RR_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
  push.pRangeProfilerObject = out.rp.object;
  push.pRangeName = "ready";
  auto pop = RR_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
  pop.pRangeProfilerObject = out.rp.object;
  auto stop = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
  stop.pRangeProfilerObject = out.rp.object;
  if (!step("PushRange PopRange Stop (empty pass)", [&] {
        CUptiResult r = cuptiRangeProfilerPushRange(&push);
        if (r == CUPTI_SUCCESS) r = cuptiRangeProfilerPopRange(&pop);
        const CUptiResult stopped = cuptiRangeProfilerStop(&stop);
        out.rp.in_pass = false;
        return r == CUPTI_SUCCESS ? stopped : r;
      }))
    return finish(false);
  if (one_pass) {
    // A one-pass list submits every pass in its first; the object is left
    // with nothing pending.
    if (!step("the empty pass submitted every pass", [&] { return stop.isAllPassSubmitted != 0; }))
      return finish(false);
    auto decode = RR_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    decode.pRangeProfilerObject = out.rp.object;
    if (!step("DecodeData (empty pass)", [&] { return cuptiRangeProfilerDecodeData(&decode); })) return finish(false);
    if (!step("counter data image, full list", [&] { return blank_of(s.full, out.blank); })) return finish(false);
  }
  // kFull: the object is left after pass 1 of the full list's passes; the
  // first range's SetConfig (pass index 0) starts the list anew, and the
  // range's pass count and values say whether that holds.
  finish(true);
}

// The application's thread while the helper makes the counters ready: the 6
// kernels launched and waited for, again and again (at least 10 times), until
// the helper is done or 20 s passed. Returns each iteration's wall time (ms).
bool app_work_during(Setup& s, const ReadyCounters& ready, std::vector<double>& iterations) {
  const double limit = now_ms() + 20000;
  while ((!ready.done.load() || iterations.size() < 10) && now_ms() < limit) {
    const double t = now_ms();
    PC_TRY(s.work.launch());
    PC_TRY(s.work.wait());
    iterations.push_back(now_ms() - t);
  }
  return true;
}

// The same while a global-mode capture of the workload's stream is open: the
// 6 kernels go into the graph every 2 ms, 20 times at most, and the capture
// stays open until the helper is done or 20 s passed; then it ends, and the
// graph is instantiated and launched when it can be. `outcome` says what
// happened to the capture.
bool app_capture_during(Setup& s, const ReadyCounters& ready, std::atomic<bool>& go, std::string& outcome) {
  cudaStream_t stream = s.work.stream();
  PC_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  go.store(true);
  const double limit = now_ms() + 20000;
  std::size_t launches = 0;
  bool launch_failed = false;
  while (!ready.done.load() && now_ms() < limit) {
    if (launches < 20 && !launch_failed) {
      if (s.work.launch(false))
        ++launches;
      else
        launch_failed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  outcome = std::to_string(launches) + " captures of the 6 kernels" +
            (launch_failed ? " (a later launch into the capture failed)" : "") +
            "; EndCapture: " + (ended == cudaSuccess ? "success" : cudaGetErrorName(ended));
  if (ended != cudaSuccess || graph == nullptr) {
    cudaGetLastError();
    return true;
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  cudaError_t ran = made;
  if (made == cudaSuccess) {
    ran = cudaGraphLaunch(exec, stream);
    if (ran == cudaSuccess) ran = cudaStreamSynchronize(stream);
    cudaGraphExecDestroy(exec);
  }
  cudaGraphDestroy(graph);
  outcome +=
      std::string("; the graph ") + (ran == cudaSuccess ? "ran" : std::string("failed: ") + cudaGetErrorName(ran));
  return true;
}

// The steps the set-up finished, one line each.
void print_ready_steps(const std::string& V, const ReadyCounters& ready, double free_before) {
  std::printf("[%s] the set-up's calls (ms; free device memory after each, MiB; before: %.0f):\n", V.c_str(),
              free_before);
  const std::size_t n = std::min(ready.finished.load(std::memory_order_acquire), ready.steps.size());
  for (std::size_t i = 0; i < n; ++i) {
    const ReadyStep& st = ready.steps[i];
    std::printf("[%s]   %-62s %9.2f %10.0f %s\n", V.c_str(), st.call.c_str(), st.ms, st.free_mib,
                st.error.empty() ? "" : ("FAILED: " + st.error).c_str());
  }
}

bool part_ready(Setup& s) {
  const SetupOn on = s.options.setup_on;
  const std::string V =
      std::string("e_ready_on_") + name_of(on) +
      (s.options.empty_pass == EmptyPass::kOnePass ? "" : std::string("_") + name_of(s.options.empty_pass));
  // CUPTI is subscribed to the driver's calls before the application's work,
  // as the tool is from its injection on: CUPTI's own start-up is not timed
  // as the set-up's, and the baseline runs under the same callbacks.
  CUpti_SubscriberHandle subscriber = nullptr;
  PC_TRY(cuptiSubscribe(
      &subscriber, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr));
  PC_TRY(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API));
  PC_TRY(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE));
  if (!s.work.allocate(s.options.mib) || !measure_workload(s)) return false;
  const double free_before = free_mib();
  ReadyCounters ready;
  std::vector<double> iterations;
  std::string capture_outcome;
  if (on == SetupOn::kMain) {
    make_counters_ready(s, ready, false, true);
  } else {
    const bool capture = on != SetupOn::kThread;
    std::atomic<bool> go{!capture};
    std::thread helper([&] {
      while (!go.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
      make_counters_ready(s, ready, on == SetupOn::kCaptureRelaxed, !capture);
    });
    const bool app_ok =
        capture ? app_capture_during(s, ready, go, capture_outcome) : app_work_during(s, ready, iterations);
    go.store(true);  // a capture that failed to begin leaves the helper waiting
    // The application's loops end within 20 s; the helper gets 20 s more. A
    // helper still inside a call then is the answer: the set-up hangs there.
    const double limit = now_ms() + 20000;
    while (!ready.done.load() && now_ms() < limit) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!ready.done.load()) {
      print_ready_steps(V, ready, free_before);
      if (!capture_outcome.empty()) std::printf("[%s] the capture: %s\n", V.c_str(), capture_outcome.c_str());
      std::printf("[%s] set-up HUNG in %s (over 40 s on the helper); exiting without joining it\n", V.c_str(),
                  ready.current.load());
      std::fflush(stdout);
      std::_Exit(3);
    }
    helper.join();
    if (!app_ok) return failed("the application's work during the set-up", V, __LINE__);
  }
  print_ready_steps(V, ready, free_before);
  std::printf("[%s] set-up %s in %.1f ms on the %s thread; device memory it took: %.0f MiB\n", V.c_str(),
              ready.ok ? "done" : "FAILED", ready.total_ms, on == SetupOn::kMain ? "application's" : "helper",
              free_before - free_mib());
  if (!iterations.empty()) {
    std::printf(
        "[%s] the application's thread meanwhile: %zu iterations of the 6 kernels, median %.3f ms, max %.3f ms "
        "(%.3f ms without counters: %.2fx)\n",
        V.c_str(), iterations.size(), median(iterations), *std::max_element(iterations.begin(), iterations.end()),
        g_log.workload_ms, g_log.workload_ms > 0 ? median(iterations) / g_log.workload_ms : 0);
  }
  if (!capture_outcome.empty()) std::printf("[%s] the capture: %s\n", V.c_str(), capture_outcome.c_str());
  if (!ready.ok) {
    // A refused list: its metrics named, from this thread.
    const std::size_t n = ready.finished.load();
    if (n > 0 && ready.steps[n - 1].call.rfind("config image", 0) == 0) {
      std::vector<std::uint8_t> image;
      std::size_t passes = 0;
      host_config(CUPTI_PROFILER_TYPE_RANGE_PROFILER, s.chip, s.availability, s.full, image, passes);
      host_config(CUPTI_PROFILER_TYPE_RANGE_PROFILER, s.chip, s.availability, s.single, image, passes);
      std::printf("[%s] the one-pass list needs %zu passes\n", V.c_str(), passes);
    }
    return true;  // an outcome, not a failure of the probe: the steps say where it stopped
  }
  std::printf("[%s] chip %s: --set full %zu passes, --set single-pass %zu\n", V.c_str(), s.chip.c_str(), s.full_passes,
              s.single_passes);
  PC_TRY(host_initialize(CUPTI_PROFILER_TYPE_RANGE_PROFILER, s.chip, s.availability, &s.host));
  // The ranges on the application's thread with the object the set-up made,
  // then the reference with a fresh object made here.
  RangeVariant with_ready{V};
  with_ready.rounds = s.options.rounds;
  with_ready.ready = &ready.rp;
  with_ready.ready_blank = &ready.blank;
  with_ready.value_source = "e ready counters";
  bool all = run_range_profiler(s, with_ready);
  if (!all) g_log.variant(V).ok = false;
  std::printf("[%s] the first counted Start on the application's thread: %.2f ms\n", V.c_str(),
              g_log.variant(V).first_start_ms);
  ready.rp.close();  // disabled before the reference enables its own
  RangeVariant reference{"a1_whole_img1"};
  reference.rounds = s.options.rounds;
  reference.value_source = kReferenceSource;
  if (!run_range_profiler(s, reference)) {
    g_log.variant(reference.name).ok = false;
    all = false;
  }
  std::printf("[%s] a1's first Start, with CUPTI warm: %.2f ms\n", V.c_str(),
              g_log.variant(reference.name).first_start_ms);
  return all;
}

// ------------------------------------------------------------------ tables

void print_tables() {
  std::printf("\n%-32s %-40s %4s %5s %9s %9s %9s\n", "variant", "call", "kind", "n", "mean_ms", "median_ms", "max_ms");
  for (const Row& r : g_log.rows) {
    const double max = r.ms.empty() ? 0 : *std::max_element(r.ms.begin(), r.ms.end());
    std::printf("%-32s %-40s %4c %5zu %9.3f %9.3f %9.3f\n", r.variant.c_str(), r.call.c_str(),
                static_cast<char>(r.kind), r.ms.size(), mean(r.ms), median(r.ms), max);
  }
  for (const Variant& v : g_log.variants) {
    if (v.first_range_pass_ms.size() < 2) continue;
    std::printf("[%s] pass wall ms by pass index (first measured range):", v.name.c_str());
    for (double x : v.first_range_pass_ms) std::printf(" %.1f", x);
    std::printf("\n");
  }
  // The summary: a range's wall time per pass, less the workload's own time
  // without counters, is what counting costs per pass. It holds the CUPTI
  // calls and whatever CUPTI adds to the work itself (a slower launch or wait
  // under counters). Means, not medians: passes of one range differ by index.
  std::printf("\nCOST PER COUNTED PASS (ms; means over the measured ranges)\n");
  std::printf("%-32s %6s %10s %10s %10s %10s %10s %10s\n", "variant", "passes", "range", "per_pass", "cupti_calls",
              "work", "work_free", "cost");
  for (const Variant& v : g_log.variants) {
    if (!v.ok) {
      std::printf("%-32s FAILED (its rows above are partial and not summed)\n", v.name.c_str());
      continue;
    }
    if (v.passes == 0 || v.range_ms.empty()) continue;
    const double passes = static_cast<double>(v.passes);
    double calls = 0, work = 0;
    for (const Row& r : g_log.rows) {
      if (r.variant != v.name || r.call.find("(a count") != std::string::npos) continue;
      // Per-pass rows: mean per call; per-range rows: a range's calls shared out to its passes.
      const double per_pass = r.kind == Kind::kPass ? mean(r.ms) * (static_cast<double>(r.ms.size()) / v.pass_ms.size())
                              : r.kind == Kind::kRange ? mean(r.ms) / passes
                                                       : 0;
      if (r.kind == Kind::kWork && r.call != "evaluate samples (host)")
        work += mean(r.ms) * (static_cast<double>(r.ms.size()) / v.pass_ms.size());
      calls += per_pass;
    }
    const double per_pass = mean(v.range_ms) / passes;
    const double work_free = v.kernels == 0 ? 0 : g_log.workload_ms;
    std::printf("%-32s %6zu %10.2f %10.3f %10.3f %10.3f %10.3f %10.3f\n", v.name.c_str(), v.passes, mean(v.range_ms),
                per_pass, calls, work, work_free, per_pass - work_free);
  }
  std::printf("(per_pass = range / passes; cost = per_pass - work_free; work = launch + wait under counters)\n");

  // Values: every source against the Range Profiler's whole range.
  std::printf("\nVALUES, one range of the %zu kernels (median over the measured ranges; spread = (max-min)/median)\n",
              Workload::kKernels);
  std::printf("%-26s %-28s %18s %9s %10s %s\n", "metric", "source", "median", "spread", "/a1", "verdict");
  for (const auto& [metric, by_source] : g_log.values) {
    const auto ref = by_source.find(kReferenceSource);
    const double ref_value = ref == by_source.end() ? 0 : median(ref->second);
    const bool exact = std::find(kExactMetrics.begin(), kExactMetrics.end(), metric) != kExactMetrics.end();
    const bool close = std::find(kCloseMetrics.begin(), kCloseMetrics.end(), metric) != kCloseMetrics.end();
    for (const auto& [source, vals] : by_source) {
      const double m = median(vals);
      const auto [lo, hi] = std::minmax_element(vals.begin(), vals.end());
      const double spread = m != 0 ? (*hi - *lo) / m : 0;
      const double ratio = ref_value != 0 ? m / ref_value : 0;
      std::string verdict = "-";
      if (source == kReferenceSource) {
        verdict = exact && *hi != *lo ? "reference NOT stable" : "reference";
      } else if (ref_value == 0) {
        verdict = "no reference";
      } else if (exact) {
        verdict = (*lo == ref_value && *hi == ref_value) ? "equal" : "DIFFERS";
      } else if (close) {
        verdict = std::abs(ratio - 1) <= 0.02 ? "within 2%" : "DIFFERS";
      } else {
        verdict = "not compared (range shape)";
      }
      std::printf("%-26s %-28s %18.0f %9.5f %10.5f %s\n", metric.c_str(), source.c_str(), m, spread, ratio,
                  verdict.c_str());
    }
  }
}

// ------------------------------------------------------------------ parts and main

// Runs each variant in turn; a failed one is marked and the rest still run.
bool run_variants(Setup& s, const std::vector<RangeVariant>& variants) {
  bool all = true;
  for (const auto& v : variants) {
    if (!run_range_profiler(s, v)) {
      g_log.variant(v.name).ok = false;
      all = false;
      std::printf("[%s] FAILED (continuing)\n", v.name.c_str());
    }
  }
  return all;
}

bool part_range_profiler(Setup& s) {
  std::vector<RangeVariant> variants;
  auto add = [&](const char* name) -> RangeVariant& {
    variants.push_back(RangeVariant{name});
    variants.back().rounds = s.options.rounds;
    return variants.back();
  };
  add("a1_whole_img1").value_source = kReferenceSource;  // the tool's whole-range mode, no lead-in
  add("a2_whole_img1_ctxsync").sync_context = true;
  add("a3_whole_img_big").image_ranges = s.options.big_ranges;  // a large image, one range pushed
  add("a4_whole_img1_empty_pass").empty = true;
  RangeVariant& per_kernel = add("a5_auto_per_kernel");  // the tool's per-kernel mode
  per_kernel.auto_ranges = true;
  per_kernel.image_ranges = Workload::kKernels;
  per_kernel.value_source = "a5 auto ranges (sum)";
  RangeVariant& one_pass = add("a6_onepass_list");  // --set single-pass: SetConfig..DecodeData per range
  one_pass.one_pass_list = true;
  one_pass.rounds = std::max(20, s.options.rounds);
  one_pass.value_source = "a6 one-pass list";
  return run_variants(s, variants);
}

// The tool's work inside a pass of CUPTI's automatic ranges (the batch's
// layout: each member's restore and L2 flush run inside the shared pass,
// before its kernels). k1 runs the range's kernels alone; k2 queues a
// device-to-device cudaMemcpyAsync of one array before them, k3
// the same copy as a kernel, k4 a memset of the array. Each prints whether
// CUPTI counted the tool's work as a range of its own; their cost per pass
// against k1's is what the work costs inside a counted pass.
bool part_tool_work(Setup& s) {
  std::vector<RangeVariant> variants;
  auto add = [&](const char* name, ToolWork work, const char* source = nullptr) {
    variants.push_back(RangeVariant{name});
    RangeVariant& v = variants.back();
    v.rounds = std::max(1, s.options.rounds);
    v.auto_ranges = true;
    v.image_ranges = Workload::kKernels + 4;  // room for more than one range of the tool's work
    v.tool_work = work;
    v.print_ranges = true;
    v.value_source = source;
  };
  // The flush's buffers and second context, made before any pass opens (not
  // inside the warm-up range's first pass).
  if (!s.work.allocate_flush()) return false;
  variants.push_back(RangeVariant{"a1_whole_img1"});
  variants.back().value_source = kReferenceSource;
  add("k1_auto_kernels_alone", ToolWork::kNone, "k1 no flush (sum)");
  add("k2_auto_memcpy_dtod", ToolWork::kCopyEngine);
  add("k3_auto_copy_kernel", ToolWork::kCopyKernel);
  add("k4_auto_memset", ToolWork::kMemset);
  add("k5_auto_flush_kernel", ToolWork::kFlushKernel, "k5 flush kernel (sum)");
  add("k6_auto_flush_other_context", ToolWork::kFlushOtherContext, "k6 flush, 2nd context (sum)");
  add("k7_auto_flush_copy_engine", ToolWork::kFlushCopyEngine, "k7 flush, copy engines (sum)");
  return run_variants(s, variants);
}

// Per-kernel values three ways, with a1 for the values' reference: CUPTI's
// automatic ranges (a5, the tool's default, which makes each launch wait),
// a user range pushed and popped from the host around each kernel (a7: the
// range may include the GPU's wait for the host between a push and its
// kernel), and the same queued behind a gate the host opens once every call
// is queued (a8: the GPU runs push, kernel and pop back to back; a timer
// thread opens the gate after 50 ms where the range calls wait for the GPU).
bool part_user_kernel_ranges(Setup& s) {
  std::vector<RangeVariant> variants;
  auto add = [&](const char* name, const char* source) -> RangeVariant& {
    variants.push_back(RangeVariant{name});
    variants.back().rounds = s.options.rounds;
    variants.back().value_source = source;
    return variants.back();
  };
  add("a1_whole_img1", kReferenceSource);
  RangeVariant& automatic = add("a5_auto_per_kernel", "a5 auto ranges (sum)");
  automatic.auto_ranges = true;
  automatic.image_ranges = Workload::kKernels;
  RangeVariant& user = add("a7_user_per_kernel", "a7 user range per kernel (sum)");
  user.kernel_user_ranges = true;
  user.image_ranges = Workload::kKernels;
  RangeVariant& gated = add("a8_user_per_kernel_gated", "a8 the same, gated (sum)");
  gated.kernel_user_ranges = true;
  gated.gated = true;
  gated.image_ranges = Workload::kKernels;
  const bool all = run_variants(s, variants);
  std::printf("[a8_user_per_kernel_gated] the gate %s\n",
              s.work.gate_opened_late ? "was opened by its timer at least once: the range calls waited for the GPU"
                                      : "was opened by the launching thread every time");
  return all;
}

bool part_legacy(Setup& s) {
  // NVPW's counter-data queries (range count and names) live in its target library.
  auto target = RR_CUPTI_PARAMS(NVPW_InitializeTarget_Params);
  PC_TRY(NVPW_InitializeTarget(&target));
  std::vector<std::uint8_t> config, prefix;
  std::size_t passes = 0;
  const double t = now_ms();
  if (!nvpw_images(s.chip, s.availability, s.full, true, config, prefix, passes)) return false;
  std::printf("[b] NVPW raw-metrics config: %zu B, %zu passes; counter data prefix %zu B; %.0f ms\n", config.size(),
              passes, prefix.size(), now_ms() - t);
  // A reference from the Range Profiler in this process, so that the values
  // table of this part has one.
  RangeVariant reference{"a1_whole_img1"};
  reference.rounds = s.options.rounds;
  reference.value_source = kReferenceSource;
  bool all = run_range_profiler(s, reference);
  if (!all) g_log.variant(reference.name).ok = false;
  for (const LegacyVariant& v : {LegacyVariant{"b1_legacy_one_session", false, false, "b1 older API"},
                                 LegacyVariant{"b2_legacy_session_per_range", true, false, "b2 older API"},
                                 LegacyVariant{"b3_legacy_auto_per_kernel", false, true, "b3 older API auto (sum)"}}) {
    if (!run_legacy(s, v, config, prefix, passes)) {
      g_log.variant(v.name).ok = false;
      all = false;
      std::printf("[%s] FAILED (continuing)\n", v.name.c_str());
    }
  }
  return all;
}

bool part_pm(Setup& s) {
  RangeVariant reference{"a1_whole_img1"};
  reference.rounds = s.options.rounds;
  reference.value_source = kReferenceSource;
  bool all = run_range_profiler(s, reference);
  if (!all) g_log.variant(reference.name).ok = false;
  if (!run_pm_sampling(s)) {
    for (const char* name : {"c1_pm_start_stop_per_window", "c2_pm_config_per_window"}) {
      for (auto& v : g_log.variants)
        if (v.name == name) v.ok = false;
    }
    std::printf("[c] FAILED\n");
    return false;
  }
  return all;
}

bool part_pm_inside(Setup& s) {
  // The one-pass list's values without PM sampling, then with PM sampling
  // started inside each pass: the second must equal the first.
  RangeVariant plain{"d_onepass_reference"};
  plain.one_pass_list = true;
  plain.rounds = s.options.rounds;
  plain.value_source = kReferenceSource;
  RangeVariant inside{"d_onepass_pm_inside"};
  inside.one_pass_list = true;
  inside.rounds = s.options.rounds;
  inside.pm_inside = true;
  inside.value_source = "d range profiler, PM inside";
  bool all = true;
  for (const auto* v : {&plain, &inside}) {
    if (!run_range_profiler(s, *v)) {
      g_log.variant(v->name).ok = false;
      all = false;
      std::printf("[%s] FAILED\n", v->name.c_str());
    }
  }
  return all;
}

bool part_host(Setup& s) {
  std::vector<std::uint8_t> config, prefix;
  std::size_t passes = 0;
  for (bool isolated : {true, false}) {
    if (nvpw_images(s.chip, {}, s.full, isolated, config, prefix, passes)) {
      std::printf("NVPW raw-metrics config of the full list (isolated=%d): %zu B, %zu passes; prefix %zu B\n",
                  isolated ? 1 : 0, config.size(), passes, prefix.size());
    }
  }
  std::vector<std::string> names_a, names_b;
  std::vector<std::uint8_t> config_a, config_b;
  pm_pick(s.chip, {}, kPmConfigA, names_a, config_a);
  pm_pick(s.chip, {}, kPmConfigB, names_b, config_b);
  std::printf("PM config A: %zu of %zu names; B: %zu of %zu\n", names_a.size(), kPmConfigA.size(), names_b.size(),
              kPmConfigB.size());
  pm_coverage(s);
  return true;
}

// Parses `--name value` pairs; one line naming the option and exit 2 on bad input.
std::optional<Options> parse(int argc, char** argv) {
  Options o;
  auto number = [](const std::string& name, const std::string& text) -> std::optional<unsigned long long> {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v == 0) {
      std::fprintf(stderr, "cupti_pass_cost: %s takes a positive whole number, not '%s'\n", name.c_str(), text.c_str());
      return std::nullopt;
    }
    return v;
  };
  for (int i = 1; i < argc; i += 2) {
    const std::string name = argv[i];
    if (name == "--help" || name == "-h") {
      std::printf(
          "cupti_pass_cost --parts a|b|c|d|e|h|k|u [--mb 256] [--rounds 3] [--interval-ns 20000] [--windows 25] "
          "[--big-ranges 2048] [--chip GH100] [--setup-on main|thread|capture|capture-relaxed]\n"
          "  [--empty-pass one-pass|full|none]\n");
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "cupti_pass_cost: %s needs a value; see --help\n", name.c_str());
      return std::nullopt;
    }
    const std::string value = argv[i + 1];
    if (name == "--parts") {
      if (value.find_first_not_of("abcdehku") != std::string::npos) {
        std::fprintf(stderr, "cupti_pass_cost: --parts takes letters of abcdehku, not '%s'\n", value.c_str());
        return std::nullopt;
      }
      if (value.find('e') != std::string::npos && value != "e") {
        std::fprintf(stderr, "cupti_pass_cost: part e times first-use costs; run it alone (--parts e), not in '%s'\n",
                     value.c_str());
        return std::nullopt;
      }
      o.parts = value;
    } else if (name == "--setup-on") {
      bool known = false;
      for (SetupOn on : {SetupOn::kMain, SetupOn::kThread, SetupOn::kCapture, SetupOn::kCaptureRelaxed}) {
        if (value == name_of(on)) {
          o.setup_on = on;
          known = true;
        }
      }
      if (!known) {
        std::fprintf(stderr, "cupti_pass_cost: --setup-on takes main, thread, capture or capture-relaxed, not '%s'\n",
                     value.c_str());
        return std::nullopt;
      }
    } else if (name == "--empty-pass") {
      bool known = false;
      for (EmptyPass e : {EmptyPass::kOnePass, EmptyPass::kFull, EmptyPass::kNone}) {
        if (value == name_of(e)) {
          o.empty_pass = e;
          known = true;
        }
      }
      if (!known) {
        std::fprintf(stderr, "cupti_pass_cost: --empty-pass takes one-pass, full or none, not '%s'\n", value.c_str());
        return std::nullopt;
      }
    } else if (name == "--chip") {
      o.chip = value;
    } else {
      const auto v = number(name, value);
      if (!v) return std::nullopt;
      if (name == "--mb")
        o.mib = *v;
      else if (name == "--rounds")
        o.rounds = static_cast<int>(*v);
      else if (name == "--interval-ns")
        o.interval_ns = *v;
      else if (name == "--windows")
        o.windows = *v;
      else if (name == "--big-ranges")
        o.big_ranges = *v;
      else {
        std::fprintf(stderr, "cupti_pass_cost: unknown option '%s'; see --help\n", name.c_str());
        return std::nullopt;
      }
    }
  }
  return o;
}

bool metric_list(const char* set_name, std::vector<std::string>& names) {
  const auto set = find_metric_set(set_name);
  if (!set.ok()) return failed("find_metric_set", set.status().message(), __LINE__);
  names = (*set)->metrics;
  return true;
}

int run(int argc, char** argv) {
  // Line-buffered: a crash inside CUPTI still leaves every line printed before it in the log.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::optional<Options> options = parse(argc, argv);
  if (!options) return 2;
  Setup s;
  s.options = *options;
  if (!metric_list("full", s.full) || !metric_list("single-pass", s.single)) return 1;
  const bool host_only = s.options.parts == "h";
  if (host_only) {
    s.chip = s.options.chip;
  } else {
    if (!succeeded(cudaSetDevice(s.device), "cudaSetDevice", __LINE__) ||
        !succeeded(cudaFree(nullptr), "cudaFree(nullptr)", __LINE__) ||
        !succeeded(cuCtxGetCurrent(&s.ctx), "cuCtxGetCurrent", __LINE__))
      return 1;
    if (s.options.parts == "e") {
      // Part e times CUPTI's set-up itself: none of it runs before.
      const bool ok = part_ready(s);
      print_tables();
      host_deinitialize(s.host);
      return ok ? 0 : 1;
    }
    auto init = RR_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    auto chip = RR_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    chip.deviceIndex = static_cast<std::size_t>(s.device);
    auto avail = RR_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);  // fails while a session is active
    avail.ctx = s.ctx;
    if (!succeeded(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize", __LINE__) ||
        !succeeded(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName", __LINE__) ||
        !succeeded(cuptiProfilerGetCounterAvailability(&avail), "GetCounterAvailability (size)", __LINE__))
      return 1;
    s.chip = chip.pChipName;
    s.availability.assign(avail.counterAvailabilityImageSize, 0);
    avail.pCounterAvailabilityImage = s.availability.data();
    if (!succeeded(cuptiProfilerGetCounterAvailability(&avail), "GetCounterAvailability", __LINE__)) return 1;
  }
  const double t = now_ms();
  if (!host_config(CUPTI_PROFILER_TYPE_RANGE_PROFILER, s.chip, s.availability, s.full, s.full_config, s.full_passes) ||
      !host_config(CUPTI_PROFILER_TYPE_RANGE_PROFILER, s.chip, s.availability, s.single, s.single_config,
                   s.single_passes))
    return 1;
  std::printf(
      "chip %s: --set full %zu metrics -> %zu passes (config %zu B); --set single-pass %zu metrics -> %zu "
      "passes; host API %.0f ms\n",
      s.chip.c_str(), s.full.size(), s.full_passes, s.full_config.size(), s.single.size(), s.single_passes,
      now_ms() - t);
  if (host_only) return part_host(s) ? 0 : 1;
  if (!succeeded(host_initialize(CUPTI_PROFILER_TYPE_RANGE_PROFILER, s.chip, s.availability, &s.host),
                 "HostInitialize (evaluation)", __LINE__) ||
      !s.work.allocate(s.options.mib) || !measure_workload(s))
    return 1;
  bool ok = true;
  for (const char part : s.options.parts) {
    switch (part) {
      case 'a': ok = part_range_profiler(s) && ok; break;
      case 'b': ok = part_legacy(s) && ok; break;
      case 'c': ok = part_pm(s) && ok; break;
      case 'd': ok = part_pm_inside(s) && ok; break;
      case 'h': ok = part_host(s) && ok; break;
      case 'u': ok = part_user_kernel_ranges(s) && ok; break;
      case 'k': ok = part_tool_work(s) && ok; break;
      default: break;
    }
  }
  print_tables();
  host_deinitialize(s.host);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace rangereplay::bench::pass_cost

int main(int argc, char** argv) { return rangereplay::bench::pass_cost::run(argc, argv); }
