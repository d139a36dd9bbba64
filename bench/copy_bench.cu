// Copy-engine benchmark: capture and restore by CopyPlan against the copy
// floor (one cudaMemcpyAsync device-to-device of the same bytes) and against
// CUPTI's checkpoint API on the same allocations, for the footprints and
// region counts of PERFORMANCE.md; plus the pinned host tier by both methods.
// The "var" columns time the copy kernel's kBlockPerItemRun variant (the
// digest kernel's copy loop on the same work stream) beside the default one;
// the default switches only if they measure better.
//
//   copy_bench [out.json] [--max-bytes 256M] [--piece-bytes 4096] [--no-checkpoint]
//
// Device events around each stage (queued behind a short spin kernel so the
// host never starves the GPU), warm-up first, median of many repetitions,
// random data. Prints a table whose last rows are the ratios against the
// targets; writes the raw numbers as JSON to the first non-flag argument.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_checkpoint.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cuda/copy_plan.h"

#include "bench_common.cuh"

namespace {
using namespace rangereplay::bench;

using rangereplay::ArenaCopyList;
using rangereplay::ArenaKind;
using rangereplay::CopyPlan;
using rangereplay::CopyPlanOptions;
using rangereplay::CopySpan;
using rangereplay::DevicePtr;
using rangereplay::PinnedCopyMethod;
using rangereplay::Status;
using rangereplay::StatusOr;
using rangereplay::kernels::CopyKernelVariant;
namespace cp = NV::Cupti::Checkpoint;
using cp::CUpti_Checkpoint;  // named unqualified by CUpti_Checkpoint_STRUCT_SIZE

constexpr std::uint64_t kFootprints[] = {4 * kMiB, 64 * kMiB, 256 * kMiB, 1024 * kMiB, 4096 * kMiB};
constexpr std::uint64_t kPinnedFootprints[] = {64 * kMiB, 256 * kMiB};
constexpr int kRegionCounts[] = {1, 64, 4096};
constexpr std::uint64_t kAllocGranule = 256;  // region sizes and arena offsets are multiples of this
constexpr std::uint64_t kVerifyMaxBytes = 64 * kMiB;

#define CHECK_CUDA(call)                                                                            \
  do {                                                                                              \
    cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

void check_status(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.to_string().c_str());
    std::exit(1);
  }
}

template <typename T>
T value_or_die(StatusOr<T> v, const char* what) {
  if (!v.ok()) check_status(v.status(), what);
  return std::move(v).value();
}

int reps_for(std::uint64_t bytes) {
  if (bytes <= 64 * kMiB) return 100;
  if (bytes <= 256 * kMiB) return 40;
  if (bytes <= 1024 * kMiB) return 15;
  return 9;
}

// Region sizes: random multiples of 256 bytes (0.5x..1.5x the mean) summing to `total`.
std::vector<std::uint64_t> region_sizes(std::uint64_t total, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> weight(0.5, 1.5);
  const std::uint64_t units = total / kAllocGranule;
  std::vector<double> w(count);
  double sum = 0;
  for (double& x : w) sum += (x = weight(rng));
  std::vector<std::uint64_t> sizes(count);
  std::uint64_t used = 0;
  for (int i = 0; i < count; ++i) {
    sizes[i] = 1 + static_cast<std::uint64_t>(static_cast<double>(units - count) * w[i] / sum);
    used += sizes[i];
  }
  for (int i = 0; used < units; i = (i + 1) % count, ++used) ++sizes[i];
  for (std::uint64_t& s : sizes) s *= kAllocGranule;
  return sizes;
}

// The application's memory: one cudaMalloc per region, random contents.
struct AppRegions {
  std::vector<void*> ptrs;
  std::vector<std::uint64_t> sizes;

  AppRegions(std::uint64_t total, int count, std::uint64_t seed) : sizes(region_sizes(total, count, seed)) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      void* p = nullptr;
      CHECK_CUDA(cudaMalloc(&p, sizes[i]));
      ptrs.push_back(p);
      fill_kernel<<<1024, 256>>>(static_cast<std::uint64_t*>(p), sizes[i] / 8, seed_of(i));
      CHECK_CUDA(cudaGetLastError());
    }
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  ~AppRegions() {
    for (void* p : ptrs) cudaFree(p);
  }
  std::uint64_t seed_of(std::size_t i) const { return 0x5EED0000ull + (i << 40) + sizes.size(); }

  // Spans packed one after another in an arena (offsets multiples of 256).
  std::vector<CopySpan> spans() const {
    std::vector<CopySpan> out;
    std::uint64_t offset = 0;
    for (std::size_t i = 0; i < ptrs.size(); ++i) {
      out.push_back({DevicePtr(reinterpret_cast<std::uint64_t>(ptrs[i])), offset, sizes[i]});
      offset += sizes[i];
    }
    return out;
  }

  void zero(cudaStream_t stream) const {
    for (std::size_t i = 0; i < ptrs.size(); ++i) CHECK_CUDA(cudaMemsetAsync(ptrs[i], 0, sizes[i], stream));
  }

  // Every byte equals what fill_kernel wrote.
  bool verify() const {
    std::vector<std::uint64_t> host;
    for (std::size_t i = 0; i < ptrs.size(); ++i) {
      host.resize(sizes[i] / 8);
      CHECK_CUDA(cudaMemcpy(host.data(), ptrs[i], sizes[i], cudaMemcpyDeviceToHost));
      for (std::uint64_t w = 0; w < host.size(); ++w) {
        if (host[w] != splitmix64(seed_of(i) + w)) {
          std::fprintf(stderr, "verify: region %zu word %llu differs\n", i, static_cast<unsigned long long>(w));
          return false;
        }
      }
    }
    return true;
  }
};

// Times stages queued back to back on one stream: stage k runs between
// events k and k + 1.
class StageTimer {
 public:
  StageTimer(cudaStream_t stream, int stages) : stream_(stream), events_(stages + 1), samples_(stages) {
    for (cudaEvent_t& e : events_) CHECK_CUDA(cudaEventCreate(&e));
  }
  ~StageTimer() {
    for (cudaEvent_t& e : events_) cudaEventDestroy(e);
  }
  void begin() {
    spin_kernel<<<1, 1, 0, stream_>>>(200000);  // 200 us
    CHECK_CUDA(cudaGetLastError());
    next_ = 0;
    CHECK_CUDA(cudaEventRecord(events_[next_++], stream_));
  }
  void mark() { CHECK_CUDA(cudaEventRecord(events_[next_++], stream_)); }
  void end(bool keep) {
    CHECK_CUDA(cudaEventSynchronize(events_[next_ - 1]));
    if (!keep) return;
    for (std::size_t k = 0; k + 1 < events_.size(); ++k) {
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, events_[k], events_[k + 1]));
      samples_[k].push_back(ms);
    }
  }
  double median_ms(int stage) const { return median(samples_[stage]); }

 private:
  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;
  std::vector<std::vector<double>> samples_;
  std::size_t next_ = 0;
};

struct CheckpointTimes {
  bool ok = false;
  std::string error;
  double first_save_ms = 0;
  double save_ms = 0;
  double restore_ms = 0;
};

double host_ms(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// cuptiCheckpointSave/Restore with no optimizations, on whatever the context
// holds now (only the application's regions: call before any arena exists).
CheckpointTimes time_checkpoint(int reps) {
  CheckpointTimes t;
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  CUpti_Checkpoint handle;
  std::memset(&handle, 0, sizeof(handle));
  handle.structSize = CUpti_Checkpoint_STRUCT_SIZE;
  handle.ctx = ctx;
  handle.allowOverwrite = 1;
  handle.optimizations = cp::CUPTI_CHECKPOINT_OPT_NONE;
  auto fail = [&](const char* call, CUptiResult r) {
    t.ok = false;
    t.error = std::string(call) + " returned " + std::to_string(static_cast<int>(r));
    return t;
  };
  std::vector<double> saves, restores;
  CHECK_CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < reps + 1; ++i) {
    auto a = std::chrono::steady_clock::now();
    const CUptiResult r = cp::cuptiCheckpointSave(&handle);
    CHECK_CUDA(cudaDeviceSynchronize());
    auto b = std::chrono::steady_clock::now();
    if (r != CUPTI_SUCCESS) return fail("cuptiCheckpointSave", r);
    if (i == 0) {
      t.first_save_ms = host_ms(a, b);
    } else {
      saves.push_back(host_ms(a, b));
    }
  }
  for (int i = 0; i < reps + 1; ++i) {
    auto a = std::chrono::steady_clock::now();
    const CUptiResult r = cp::cuptiCheckpointRestore(&handle);
    CHECK_CUDA(cudaDeviceSynchronize());
    auto b = std::chrono::steady_clock::now();
    if (r != CUPTI_SUCCESS) return fail("cuptiCheckpointRestore", r);
    if (i > 0) restores.push_back(host_ms(a, b));  // the first one is warm-up
  }
  const CUptiResult r = cp::cuptiCheckpointFree(&handle);
  if (r != CUPTI_SUCCESS) return fail("cuptiCheckpointFree", r);
  t.ok = true;
  t.save_ms = median(saves);
  t.restore_ms = median(restores);
  return t;
}

struct Options {
  std::string json_path;
  std::uint64_t max_bytes = 4096 * kMiB;
  std::uint32_t piece_bytes = rangereplay::kDefaultPieceBytes;
  bool checkpoint = true;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--max-bytes") {
      o.max_bytes = parse_bytes(value());
    } else if (a == "--piece-bytes") {
      o.piece_bytes = static_cast<std::uint32_t>(std::stoul(value()));
    } else if (a == "--no-checkpoint") {
      o.checkpoint = false;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: copy_bench [out.json] [--max-bytes 256M] [--piece-bytes 4096] [--no-checkpoint]\n");
      std::exit(0);
    } else if (!a.empty() && a[0] != '-' && o.json_path.empty()) {
      o.json_path = a;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

CopyPlan make_plan(const std::vector<ArenaCopyList>& arenas, CopyPlanOptions options, cudaStream_t stream) {
  return value_or_die(CopyPlan::create(arenas, options, stream), "CopyPlan::create");
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaFree(nullptr));  // creates and binds the primary context
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  int runtime = 0;
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  nlohmann::json out;
  out["device"] = prop.name;
  out["sm_count"] = prop.multiProcessorCount;
  out["driver_version"] = driver;
  out["runtime_version"] = runtime;
  out["piece_bytes"] = opt.piece_bytes;
  out["max_bytes"] = opt.max_bytes;
  std::printf("copy_bench on %s (%d SMs), driver %d, runtime %d, piece %u bytes\n", prop.name,
              prop.multiProcessorCount, driver, runtime, opt.piece_bytes);

  // ---- device tier ----------------------------------------------------------
  std::printf("\ndevice tier: medians of device-event times in ms; *_cs = kernel with streaming cache hints;\n"
              "*_var = kernel variant kBlockPerItemRun (the digest kernel's copy loop), default hints;\n"
              "ckS/ckR = cuptiCheckpointSave/Restore (host-timed, synchronous); rest_hst = one restore, host call\n"
              "to completion, in us; x/f = ratio to the floor (one cudaMemcpyAsync D2D of the same bytes)\n");
  std::printf("%-7s %5s | %9s %9s %9s %9s %9s %9s %9s | %9s %9s %9s | %6s %6s %6s %6s %6s %6s | %s\n", "bytes",
              "rgns", "floor_ms", "capt_ms", "rest_ms", "capt_cs", "rest_cs", "capt_var", "rest_var", "ckS_ms",
              "ckR_ms", "rest_hst", "capt/f", "rest/f", "cvar/f", "rvar/f", "ckS/f", "ckR/f", "verify");
  nlohmann::json rows = nlohmann::json::array();
  for (std::uint64_t footprint : kFootprints) {
    if (footprint > opt.max_bytes) continue;
    const int reps = reps_for(footprint);
    for (int regions : kRegionCounts) {
      AppRegions app(footprint, regions, footprint + static_cast<std::uint64_t>(regions));
      CheckpointTimes ck;
      if (opt.checkpoint) ck = time_checkpoint(std::max(3, reps / 4));

      void* arena = nullptr;
      void* floor_dst = nullptr;
      CHECK_CUDA(cudaMalloc(&arena, footprint));
      CHECK_CUDA(cudaMalloc(&floor_dst, footprint));
      std::vector<ArenaCopyList> arenas(1);
      arenas[0].kind = ArenaKind::kDevice;
      arenas[0].base = reinterpret_cast<CUdeviceptr>(arena);
      arenas[0].bytes = footprint;
      arenas[0].spans = app.spans();
      CopyPlanOptions plain;
      plain.piece_bytes = opt.piece_bytes;
      CopyPlanOptions streaming = plain;
      streaming.streaming_cache_hints = true;
      CopyPlanOptions variant = plain;
      variant.variant = CopyKernelVariant::kBlockPerItemRun;
      std::vector<double> host_restore_us;
      bool verified = true;
      nlohmann::json row;
      {
        CopyPlan plan = make_plan(arenas, plain, stream);
        CopyPlan plan_cs = make_plan(arenas, streaming, stream);
        CopyPlan plan_var = make_plan(arenas, variant, stream);
        StageTimer timer(stream, 7);
        for (int r = 0; r < reps + 3; ++r) {
          timer.begin();
          CHECK_CUDA(cudaMemcpyAsync(floor_dst, arena, footprint, cudaMemcpyDeviceToDevice, stream));
          timer.mark();
          check_status(plan.capture(stream), "capture");
          timer.mark();
          check_status(plan.restore(stream), "restore");
          timer.mark();
          check_status(plan_cs.capture(stream), "capture (streaming)");
          timer.mark();
          check_status(plan_cs.restore(stream), "restore (streaming)");
          timer.mark();
          check_status(plan_var.capture(stream), "capture (variant)");
          timer.mark();
          check_status(plan_var.restore(stream), "restore (variant)");
          timer.mark();
          timer.end(r >= 3);
        }
        // Host view of one restore: call to completion, stream idle before.
        for (int r = 0; r < std::min(reps, 50); ++r) {
          CHECK_CUDA(cudaStreamSynchronize(stream));
          auto a = std::chrono::steady_clock::now();
          check_status(plan.restore(stream), "restore");
          CHECK_CUDA(cudaStreamSynchronize(stream));
          auto b = std::chrono::steady_clock::now();
          host_restore_us.push_back(1000.0 * host_ms(a, b));
        }
        if (footprint <= kVerifyMaxBytes) {
          // The variant's capture into a zeroed arena, then its restore over
          // zeroed regions: both directions checked byte for byte.
          CHECK_CUDA(cudaMemsetAsync(arena, 0, footprint, stream));
          check_status(plan_var.capture(stream), "capture (variant)");
          app.zero(stream);
          check_status(plan_var.restore(stream), "restore (variant)");
          CHECK_CUDA(cudaStreamSynchronize(stream));
          const bool variant_ok = app.verify();
          if (!variant_ok) std::fprintf(stderr, "verify: the kBlockPerItemRun variant failed\n");
          app.zero(stream);
          check_status(plan_cs.restore(stream), "restore (streaming)");
          CHECK_CUDA(cudaStreamSynchronize(stream));
          verified = app.verify();
          app.zero(stream);
          check_status(plan.restore(stream), "restore");
          CHECK_CUDA(cudaStreamSynchronize(stream));
          verified = verified && app.verify() && variant_ok;
        }
        const double floor_ms = timer.median_ms(0);
        row = {{"bytes", footprint},
               {"regions", regions},
               {"reps", reps},
               {"kernel_items", plan.stats().kernel_items},
               {"grid_blocks", plan.stats().grid_blocks},
               {"floor_ms", floor_ms},
               {"capture_ms", timer.median_ms(1)},
               {"restore_ms", timer.median_ms(2)},
               {"capture_streaming_ms", timer.median_ms(3)},
               {"restore_streaming_ms", timer.median_ms(4)},
               {"variant_grid_blocks", plan_var.stats().grid_blocks},
               {"variant_items_per_block", plan_var.stats().items_per_block},
               {"capture_variant_ms", timer.median_ms(5)},
               {"restore_variant_ms", timer.median_ms(6)},
               {"restore_host_us", median(host_restore_us)},
               {"checkpoint_ok", ck.ok},
               {"checkpoint_error", ck.error},
               {"checkpoint_first_save_ms", ck.first_save_ms},
               {"checkpoint_save_ms", ck.save_ms},
               {"checkpoint_restore_ms", ck.restore_ms},
               {"verified", footprint <= kVerifyMaxBytes ? nlohmann::json(verified) : nlohmann::json("skipped")}};
        auto ratio = [&](double v) { return floor_ms > 0 ? v / floor_ms : 0.0; };
        std::printf(
            "%-7s %5d | %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f | %9.4f %9.4f %9.1f | %6.3f %6.3f %6.3f %6.3f "
            "%6.2f %6.2f | %s\n",
            size_name(footprint).c_str(), regions, floor_ms, timer.median_ms(1), timer.median_ms(2),
            timer.median_ms(3), timer.median_ms(4), timer.median_ms(5), timer.median_ms(6), ck.save_ms, ck.restore_ms,
            median(host_restore_us), ratio(timer.median_ms(1)), ratio(timer.median_ms(2)), ratio(timer.median_ms(5)),
            ratio(timer.median_ms(6)), ratio(ck.save_ms), ratio(ck.restore_ms),
            footprint <= kVerifyMaxBytes ? (verified ? "ok" : "FAILED") : "-");
        if (!ck.ok && opt.checkpoint) std::printf("        checkpoint unavailable: %s\n", ck.error.c_str());
        std::fflush(stdout);
      }
      rows.push_back(row);
      CHECK_CUDA(cudaFree(arena));
      CHECK_CUDA(cudaFree(floor_dst));
    }
  }
  out["device_tier"] = rows;

  // ---- pinned host tier -----------------------------------------------------
  std::printf("\npinned tier (arena in mapped pinned host memory); floors: one cudaMemcpyAsync of the same bytes\n");
  std::printf("%-7s %5s | %9s %9s | %9s %9s | %9s %9s | %s\n", "bytes", "rgns", "h2d_ms", "d2h_ms", "capt_ce",
              "rest_ce", "capt_mk", "rest_mk", "verify");
  nlohmann::json pinned_rows = nlohmann::json::array();
  for (std::uint64_t footprint : kPinnedFootprints) {
    if (footprint > opt.max_bytes) continue;
    void* pinned_host = nullptr;
    void* pinned_dev = nullptr;
    void* floor_dst = nullptr;
    CHECK_CUDA(cudaHostAlloc(&pinned_host, footprint, cudaHostAllocMapped));
    CHECK_CUDA(cudaHostGetDevicePointer(&pinned_dev, pinned_host, 0));
    CHECK_CUDA(cudaMalloc(&floor_dst, footprint));
    const int reps = std::max(5, reps_for(footprint) / 4);
    for (int regions : kRegionCounts) {
      AppRegions app(footprint, regions, footprint + static_cast<std::uint64_t>(regions) + 7);
      std::vector<ArenaCopyList> arenas(1);
      arenas[0].kind = ArenaKind::kPinnedHost;
      arenas[0].base = reinterpret_cast<CUdeviceptr>(pinned_dev);
      arenas[0].bytes = footprint;
      arenas[0].spans = app.spans();
      CopyPlanOptions engines;
      engines.piece_bytes = opt.piece_bytes;
      engines.pinned_method = PinnedCopyMethod::kCopyEngine;
      CopyPlanOptions mapped = engines;
      mapped.pinned_method = PinnedCopyMethod::kMappedKernel;
      CopyPlan plan_ce = make_plan(arenas, engines, stream);
      CopyPlan plan_mk = make_plan(arenas, mapped, stream);
      StageTimer timer(stream, 6);
      for (int r = 0; r < reps + 2; ++r) {
        timer.begin();
        CHECK_CUDA(cudaMemcpyAsync(floor_dst, pinned_host, footprint, cudaMemcpyHostToDevice, stream));
        timer.mark();
        CHECK_CUDA(cudaMemcpyAsync(pinned_host, floor_dst, footprint, cudaMemcpyDeviceToHost, stream));
        timer.mark();
        check_status(plan_ce.capture(stream), "capture (copy engines)");
        timer.mark();
        check_status(plan_ce.restore(stream), "restore (copy engines)");
        timer.mark();
        check_status(plan_mk.capture(stream), "capture (mapped kernel)");
        timer.mark();
        check_status(plan_mk.restore(stream), "restore (mapped kernel)");
        timer.mark();
        timer.end(r >= 2);
      }
      bool verified = true;
      if (footprint <= kVerifyMaxBytes) {
        for (CopyPlan* plan : {&plan_ce, &plan_mk}) {
          app.zero(stream);
          check_status(plan->restore(stream), "restore");
          CHECK_CUDA(cudaStreamSynchronize(stream));
          verified = verified && app.verify();
        }
      }
      std::printf("%-7s %5d | %9.3f %9.3f | %9.3f %9.3f | %9.3f %9.3f | %s%s\n", size_name(footprint).c_str(),
                  regions, timer.median_ms(0), timer.median_ms(1), timer.median_ms(2), timer.median_ms(3),
                  timer.median_ms(4), timer.median_ms(5),
                  footprint <= kVerifyMaxBytes ? (verified ? "ok" : "FAILED") : "-",
                  plan_ce.stats().copy_engine_batched ? "" : " (no batch API: one cuMemcpyAsync per span)");
      std::fflush(stdout);
      pinned_rows.push_back({{"bytes", footprint},
                             {"regions", regions},
                             {"reps", reps},
                             {"floor_h2d_ms", timer.median_ms(0)},
                             {"floor_d2h_ms", timer.median_ms(1)},
                             {"capture_copy_engine_ms", timer.median_ms(2)},
                             {"restore_copy_engine_ms", timer.median_ms(3)},
                             {"capture_mapped_kernel_ms", timer.median_ms(4)},
                             {"restore_mapped_kernel_ms", timer.median_ms(5)},
                             {"copy_engine_batch_api", plan_ce.stats().copy_engine_batched},
                             {"verified", footprint <= kVerifyMaxBytes ? nlohmann::json(verified)
                                                                       : nlohmann::json("skipped")}});
    }
    CHECK_CUDA(cudaFreeHost(pinned_host));
    CHECK_CUDA(cudaFree(floor_dst));
  }
  out["pinned_tier"] = pinned_rows;

  // ---- ratios against the targets (last rows) -------------------------------
  std::printf("\ntargets (stage / copy floor, this run; default kernel, [streaming-hint kernel], [variant: "
              "kBlockPerItemRun]; met/MISSED judges the default kernel)\n");
  nlohmann::json targets = nlohmann::json::array();
  bool all_met = true;
  for (const nlohmann::json& row : rows) {
    const double floor_ms = row["floor_ms"].get<double>();
    const std::uint64_t bytes = row["bytes"].get<std::uint64_t>();
    const int regions = row["regions"].get<int>();
    if (bytes >= 64 * kMiB && floor_ms > 0) {
      const double cap = row["capture_ms"].get<double>() / floor_ms;
      const double cap_cs = row["capture_streaming_ms"].get<double>() / floor_ms;
      const double res = row["restore_ms"].get<double>() / floor_ms;
      const double res_cs = row["restore_streaming_ms"].get<double>() / floor_ms;
      const double cap_var = row["capture_variant_ms"].get<double>() / floor_ms;
      const double res_var = row["restore_variant_ms"].get<double>() / floor_ms;
      const bool cap_ok = cap <= 1.10;
      const bool res_ok = res <= 1.05;
      all_met = all_met && cap_ok && res_ok;
      std::printf("capture %-7s %5d regions  %6.3fx [%6.3fx] [variant %.3fx]  target <= 1.10x  %s\n",
                  size_name(bytes).c_str(), regions, cap, cap_cs, cap_var, cap_ok ? "met" : "MISSED");
      std::printf("restore %-7s %5d regions  %6.3fx [%6.3fx] [variant %.3fx]  target <= 1.05x  %s\n",
                  size_name(bytes).c_str(), regions, res, res_cs, res_var, res_ok ? "met" : "MISSED");
      targets.push_back({{"stage", "capture"}, {"bytes", bytes}, {"regions", regions}, {"ratio", cap},
                         {"ratio_streaming", cap_cs}, {"ratio_variant", cap_var}, {"target", 1.10}, {"met", cap_ok}});
      targets.push_back({{"stage", "restore"}, {"bytes", bytes}, {"regions", regions}, {"ratio", res},
                         {"ratio_streaming", res_cs}, {"ratio_variant", res_var}, {"target", 1.05}, {"met", res_ok}});
    }
    if (bytes == 4 * kMiB && regions == 64) {
      const double us = 1000.0 * row["restore_ms"].get<double>();
      const double us_cs = 1000.0 * row["restore_streaming_ms"].get<double>();
      const double us_var = 1000.0 * row["restore_variant_ms"].get<double>();
      const double host_us = row["restore_host_us"].get<double>();
      const bool ok = us <= 15.0;
      all_met = all_met && ok;
      std::printf("restore 4 MB in 64 regions  %.1f us [%.1f us] [variant %.1f us] on the GPU, %.1f us host "
                  "call-to-completion  target <= 15 us  %s\n",
                  us, us_cs, us_var, host_us, ok ? "met" : "MISSED");
      targets.push_back({{"stage", "restore_fixed_cost"}, {"bytes", bytes}, {"regions", regions}, {"us", us},
                         {"us_streaming", us_cs}, {"us_variant", us_var}, {"host_us", host_us}, {"target_us", 15.0},
                         {"met", ok}});
    }
  }
  for (const nlohmann::json& row : pinned_rows) {
    const double ce = row["restore_copy_engine_ms"].get<double>();
    const double mk = row["restore_mapped_kernel_ms"].get<double>();
    const double ce_cap = row["capture_copy_engine_ms"].get<double>();
    const double mk_cap = row["capture_mapped_kernel_ms"].get<double>();
    const double h2d = row["floor_h2d_ms"].get<double>();
    std::printf("pinned  %-7s %5d regions  restore: copy engines %.2fx, mapped kernel %.2fx of H2D floor; "
                "faster: %s (restore), %s (capture)\n",
                size_name(row["bytes"].get<std::uint64_t>()).c_str(), row["regions"].get<int>(),
                h2d > 0 ? ce / h2d : 0.0, h2d > 0 ? mk / h2d : 0.0, ce <= mk ? "copy engines" : "mapped kernel",
                ce_cap <= mk_cap ? "copy engines" : "mapped kernel");
  }
  std::printf("all targets %s\n", all_met ? "met" : "NOT met");
  out["targets"] = targets;
  out["all_targets_met"] = all_met;

  if (!opt.json_path.empty()) {
    std::ofstream f(opt.json_path);
    f << out.dump(2) << "\n";
    std::printf("raw numbers written to %s\n", opt.json_path.c_str());
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  return 0;
}
