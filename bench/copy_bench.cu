// Copy-engine benchmark: capture and restore by CopyPlan against the copy
// floor (one cudaMemcpyAsync device-to-device of the same bytes) and against
// CUPTI's checkpoint API on the same allocations, for the footprints and
// region counts of the performance targets; plus the pinned host tier by both
// methods. The "blk" and "wpi" columns time the copy kernels the library's
// (kWarpPerItemInOrder) was chosen over, on the plan's own work stream
// (copy_kernel_variants.cuh): kBlockPerItemRun (the digest kernel's copy loop)
// and kWarpPerItem (the same copy loop in one resident wave); figures in
// docs/performance.md.
//
//   copy_bench [out.json] [--max-bytes 256M] [--piece-bytes 4096] [--no-checkpoint]
//
// Device events around each stage (queued behind a short spin kernel so the
// host never starves the GPU), warm-up first, median of many repetitions,
// random data. Prints a table whose last rows are the ratios against the
// targets; writes the raw numbers as JSON to the first non-flag argument.
// A crash (SIGSEGV, SIGBUS, ...) prints the row and stage it happened in.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_checkpoint.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "cuda/copy_plan.h"

#include "bench_cli.h"
#include "bench_common.cuh"
#include "copy_kernel_variants.cuh"

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
using rangereplay::kernels::CopyDirection;
namespace variants = rangereplay::bench::copy_variants;
namespace cp = NV::Cupti::Checkpoint;
using cp::CUpti_Checkpoint;  // named unqualified by CUpti_Checkpoint_STRUCT_SIZE

constexpr std::uint64_t kFootprints[] = {4 * kMiB, 64 * kMiB, 256 * kMiB, 1024 * kMiB, 4096 * kMiB};
constexpr std::uint64_t kPinnedFootprints[] = {64 * kMiB, 256 * kMiB};
constexpr int kRegionCounts[] = {1, 64, 4096};
constexpr std::uint64_t kAllocGranule = 256;  // region sizes and arena offsets are multiples of this
constexpr std::uint64_t kVerifyMaxBytes = 64 * kMiB;

#define CHECK_CUDA(call)                                                                                 \
  do {                                                                                                   \
    cudaError_t e_ = (call);                                                                             \
    if (e_ != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                      \
    }                                                                                                    \
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

// What the benchmark is doing, for the crash report: the row (set per row,
// outside any signal) and the stage (a string literal, set before each call).
char g_row[64] = "start-up";
const char* volatile g_stage = "";

void set_row(const char* tier, std::uint64_t bytes, int regions) {
  std::snprintf(g_row, sizeof(g_row), "%s %s, %d regions", tier, size_name(bytes).c_str(), regions);
  g_stage = "application regions (cudaMalloc, fill)";
}

void stage(const char* what) { g_stage = what; }

void write_str(const char* s) {
  std::size_t n = 0;
  while (s[n] != '\0') ++n;
  ssize_t ignored = write(STDERR_FILENO, s, n);
  (void)ignored;
}

// Names the row and stage of a crash (async-signal-safe: write(2) only), then
// dies of the same signal (the handler was installed one-shot).
void on_fatal_signal(int sig) {
  write_str("\ncopy_bench: fatal signal ");
  write_str(sig == SIGSEGV  ? "SIGSEGV"
            : sig == SIGBUS ? "SIGBUS"
            : sig == SIGFPE ? "SIGFPE"
            : sig == SIGILL ? "SIGILL"
                            : "SIGABRT");
  write_str(" in row [");
  write_str(g_row);
  write_str("] during ");
  write_str(g_stage);
  write_str("\n");
  std::raise(sig);
}

void install_crash_report() {
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &action, nullptr);
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
  // A failed call still frees whatever the checkpoint holds: its device and
  // host copies, and CUPTI's private state hung off this stack handle.
  auto fail = [&](const char* call, CUptiResult r) {
    t.ok = false;
    t.error = std::string(call) + " returned " + std::to_string(static_cast<int>(r));
    (void)cp::cuptiCheckpointFree(&handle);
    return t;
  };
  std::vector<double> saves, restores;
  CHECK_CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < reps + 1; ++i) {
    auto a = std::chrono::steady_clock::now();
    stage("cuptiCheckpointSave");
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
    stage("cuptiCheckpointRestore");
    const CUptiResult r = cp::cuptiCheckpointRestore(&handle);
    CHECK_CUDA(cudaDeviceSynchronize());
    auto b = std::chrono::steady_clock::now();
    if (r != CUPTI_SUCCESS) return fail("cuptiCheckpointRestore", r);
    if (i > 0) restores.push_back(host_ms(a, b));  // the first one is warm-up
  }
  const CUptiResult r = cp::cuptiCheckpointFree(&handle);
  if (r != CUPTI_SUCCESS) {
    t.error = "cuptiCheckpointFree returned " + std::to_string(static_cast<int>(r));
    return t;
  }
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
  CLI::App app{
      "copy_bench: capture and restore by CopyPlan against one cudaMemcpyAsync D2D of the same bytes and\n"
      "CUPTI's checkpoint API, device footprints 4 MB to 4 GB (1, 64, 4096 regions) and the pinned host\n"
      "tier (64 MB, 256 MB). Prints a table (times in ms); writes the raw numbers as JSON.",
      "copy_bench"};
  add_common_options(app, o.json_path, o.max_bytes);
  add_size_option(app, "--piece-bytes", o.piece_bytes, "Bytes per copy work item: a multiple of 16 from 16 to 65536");
  bool no_checkpoint = false;
  app.add_flag("--no-checkpoint", no_checkpoint, "Skip the CUPTI checkpoint API columns (ckS, ckR)");
  parse_or_exit(app, argc, argv);
  o.checkpoint = !no_checkpoint;
  return o;
}

CopyPlan make_plan(const std::vector<ArenaCopyList>& arenas, CopyPlanOptions options, cudaStream_t stream) {
  return value_or_die(CopyPlan::create(arenas, options, stream), "CopyPlan::create");
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  install_crash_report();
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
  std::printf("copy_bench on %s (%d SMs), driver %d, runtime %d, piece %u bytes\n", prop.name, prop.multiProcessorCount,
              driver, runtime, opt.piece_bytes);

  // ---- device tier ----------------------------------------------------------
  // The plan's kernel and the two variants on the plan's work stream, each
  // timed and (up to kVerifyMaxBytes) checked byte for byte in both directions.
  enum class Kernel { kPlan, kBlockRun, kWarpPerItem };
  struct KernelCase {
    const char* name;  // JSON key infix and column tag
    Kernel kernel;
  };
  const KernelCase kCases[] = {{"default", Kernel::kPlan}, {"blk", Kernel::kBlockRun}, {"wpi", Kernel::kWarpPerItem}};
  constexpr int kCaseCount = 3;
  const std::uint32_t blk_items_per_block = variants::block_run_items(opt.piece_bytes);
  const int wpi_blocks_per_sm = value_or_die(variants::warp_per_item_blocks_per_sm(false), "occupancy");
  std::printf(
      "\ndevice tier: medians of device-event times in ms; default kernel kWarpPerItemInOrder; variants: blk =\n"
      "kBlockPerItemRun (the digest kernel's copy loop), wpi = kWarpPerItem (the same loop, one resident\n"
      "wave); ckS/ckR = cuptiCheckpointSave/Restore (host-timed, synchronous); rest_hst =\n"
      "one restore, host call to completion, in us; x/f = ratio to the floor (one cudaMemcpyAsync D2D of the\n"
      "same bytes); c = capture, r = restore\n");
  std::printf("%-7s %5s | %9s %9s %9s | %9s %9s %9s | %6s %6s %6s %6s %6s %6s | %6s %6s | %s\n", "bytes", "rgns",
              "floor_ms", "capt_ms", "rest_ms", "ckS_ms", "ckR_ms", "rest_hst", "capt/f", "rest/f", "cblk/f", "rblk/f",
              "cwpi/f", "rwpi/f", "ckS/f", "ckR/f", "verify");
  nlohmann::json rows = nlohmann::json::array();
  for (std::uint64_t footprint : kFootprints) {
    if (footprint > opt.max_bytes) continue;
    const int reps = reps_for(footprint);
    for (int regions : kRegionCounts) {
      set_row("device", footprint, regions);
      AppRegions app(footprint, regions, footprint + static_cast<std::uint64_t>(regions));
      CheckpointTimes ck;
      if (opt.checkpoint) ck = time_checkpoint(std::max(3, reps / 4));

      stage("arena allocation");
      void* arena = nullptr;
      void* floor_dst = nullptr;
      CHECK_CUDA(cudaMalloc(&arena, footprint));
      CHECK_CUDA(cudaMalloc(&floor_dst, footprint));
      std::vector<ArenaCopyList> arenas(1);
      arenas[0].kind = ArenaKind::kDevice;
      arenas[0].base = reinterpret_cast<CUdeviceptr>(arena);
      arenas[0].bytes = footprint;
      arenas[0].spans = app.spans();
      std::vector<double> host_restore_us;
      bool verified = true;
      nlohmann::json row;
      {
        stage("CopyPlan::create");
        CopyPlanOptions options;
        options.piece_bytes = opt.piece_bytes;
        CopyPlan plan = make_plan(arenas, options, stream);
        const std::uint64_t items = plan.stats().kernel_items;
        const int grid_blocks[kCaseCount] = {
            plan.stats().grid_blocks, value_or_die(variants::block_run_grid(items, blk_items_per_block), "grid"),
            variants::warp_per_item_grid(items, prop.multiProcessorCount, wpi_blocks_per_sm)};
        // One capture or restore by case k.
        auto pass = [&](int k, CopyDirection direction) -> Status {
          const bool capture = direction == CopyDirection::kCapture;
          switch (kCases[k].kernel) {
            case Kernel::kPlan: return capture ? plan.capture(stream) : plan.restore(stream);
            case Kernel::kBlockRun:
              return variants::launch_block_run(plan.kernel_args(direction), blk_items_per_block, false, grid_blocks[k],
                                                stream);
            case Kernel::kWarpPerItem:
              return variants::launch_warp_per_item(plan.kernel_args(direction), false, grid_blocks[k], stream);
          }
          return rangereplay::internal_error("unknown kernel case");
        };
        // Stage 0 is the floor, then capture and restore of each case.
        StageTimer timer(stream, 1 + 2 * kCaseCount);
        for (int r = 0; r < reps + 3; ++r) {
          stage("timed floor and passes");
          timer.begin();
          CHECK_CUDA(cudaMemcpyAsync(floor_dst, arena, footprint, cudaMemcpyDeviceToDevice, stream));
          timer.mark();
          for (int k = 0; k < kCaseCount; ++k) {
            check_status(pass(k, CopyDirection::kCapture), "capture");
            timer.mark();
            check_status(pass(k, CopyDirection::kRestore), "restore");
            timer.mark();
          }
          timer.end(r >= 3);
        }
        // Host view of one restore: call to completion, stream idle before.
        stage("host-timed restores");
        for (int r = 0; r < std::min(reps, 50); ++r) {
          CHECK_CUDA(cudaStreamSynchronize(stream));
          auto a = std::chrono::steady_clock::now();
          check_status(plan.restore(stream), "restore");
          CHECK_CUDA(cudaStreamSynchronize(stream));
          auto b = std::chrono::steady_clock::now();
          host_restore_us.push_back(1000.0 * host_ms(a, b));
        }
        if (footprint <= kVerifyMaxBytes) {
          // Each case's capture into a zeroed arena, then its restore over
          // zeroed regions: both directions checked byte for byte.
          stage("verification");
          for (int k = 0; k < kCaseCount; ++k) {
            CHECK_CUDA(cudaMemsetAsync(arena, 0, footprint, stream));
            check_status(pass(k, CopyDirection::kCapture), "capture");
            app.zero(stream);
            check_status(pass(k, CopyDirection::kRestore), "restore");
            CHECK_CUDA(cudaStreamSynchronize(stream));
            const bool ok = app.verify();
            if (!ok) std::fprintf(stderr, "verify: the %s kernel failed\n", kCases[k].name);
            verified = verified && ok;
          }
        }
        const double floor_ms = timer.median_ms(0);
        row = {{"bytes", footprint},
               {"regions", regions},
               {"reps", reps},
               {"kernel_items", items},
               {"floor_ms", floor_ms},
               {"restore_host_us", median(host_restore_us)},
               {"checkpoint_ok", ck.ok},
               {"checkpoint_error", ck.error},
               {"checkpoint_first_save_ms", ck.first_save_ms},
               {"checkpoint_save_ms", ck.save_ms},
               {"checkpoint_restore_ms", ck.restore_ms},
               {"verified", footprint <= kVerifyMaxBytes ? nlohmann::json(verified) : nlohmann::json("skipped")}};
        // Keys: capture_ms/restore_ms/grid_blocks for the default kernel,
        // capture_<name>_ms/restore_<name>_ms/<name>_grid_blocks for variants.
        for (int k = 0; k < kCaseCount; ++k) {
          const std::string infix = k == 0 ? "" : std::string("_") + kCases[k].name;
          const std::string prefix = k == 0 ? "" : std::string(kCases[k].name) + "_";
          row["capture" + infix + "_ms"] = timer.median_ms(1 + 2 * k);
          row["restore" + infix + "_ms"] = timer.median_ms(2 + 2 * k);
          row[prefix + "grid_blocks"] = grid_blocks[k];
        }
        row["blk_items_per_block"] = blk_items_per_block;
        auto ratio = [&](double v) { return floor_ms > 0 ? v / floor_ms : 0.0; };
        std::printf(
            "%-7s %5d | %9.4f %9.4f %9.4f | %9.4f %9.4f %9.1f | %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f | %6.2f "
            "%6.2f | %s\n",
            size_name(footprint).c_str(), regions, floor_ms, timer.median_ms(1), timer.median_ms(2), ck.save_ms,
            ck.restore_ms, median(host_restore_us), ratio(timer.median_ms(1)), ratio(timer.median_ms(2)),
            ratio(timer.median_ms(3)), ratio(timer.median_ms(4)), ratio(timer.median_ms(5)), ratio(timer.median_ms(6)),
            ratio(ck.save_ms), ratio(ck.restore_ms), footprint <= kVerifyMaxBytes ? (verified ? "ok" : "FAILED") : "-");
        if (!ck.ok && opt.checkpoint) std::printf("        checkpoint unavailable: %s\n", ck.error.c_str());
        std::fflush(stdout);
        stage("plan destruction");
      }
      rows.push_back(row);
      stage("buffer release");
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
    set_row("pinned", footprint, 0);
    stage("pinned arena allocation");
    void* pinned_host = nullptr;
    void* pinned_dev = nullptr;
    void* floor_dst = nullptr;
    CHECK_CUDA(cudaHostAlloc(&pinned_host, footprint, cudaHostAllocMapped));
    CHECK_CUDA(cudaHostGetDevicePointer(&pinned_dev, pinned_host, 0));
    CHECK_CUDA(cudaMalloc(&floor_dst, footprint));
    const int reps = std::max(5, reps_for(footprint) / 4);
    for (int regions : kRegionCounts) {
      set_row("pinned", footprint, regions);
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
      stage("CopyPlan::create (copy engines)");
      CopyPlan plan_ce = make_plan(arenas, engines, stream);
      stage("CopyPlan::create (mapped kernel)");
      CopyPlan plan_mk = make_plan(arenas, mapped, stream);
      StageTimer timer(stream, 6);
      for (int r = 0; r < reps + 2; ++r) {
        stage("floors (H2D, D2H)");
        timer.begin();
        CHECK_CUDA(cudaMemcpyAsync(floor_dst, pinned_host, footprint, cudaMemcpyHostToDevice, stream));
        timer.mark();
        CHECK_CUDA(cudaMemcpyAsync(pinned_host, floor_dst, footprint, cudaMemcpyDeviceToHost, stream));
        timer.mark();
        stage("capture (copy engines: cuMemcpyBatchAsync)");
        check_status(plan_ce.capture(stream), "capture (copy engines)");
        timer.mark();
        stage("restore (copy engines: cuMemcpyBatchAsync)");
        check_status(plan_ce.restore(stream), "restore (copy engines)");
        timer.mark();
        stage("capture (mapped kernel)");
        check_status(plan_mk.capture(stream), "capture (mapped kernel)");
        timer.mark();
        stage("restore (mapped kernel)");
        check_status(plan_mk.restore(stream), "restore (mapped kernel)");
        timer.mark();
        stage("waiting for the timed passes");
        timer.end(r >= 2);
      }
      bool verified = true;
      if (footprint <= kVerifyMaxBytes) {
        stage("verification");
        for (CopyPlan* plan : {&plan_ce, &plan_mk}) {
          app.zero(stream);
          check_status(plan->restore(stream), "restore");
          CHECK_CUDA(cudaStreamSynchronize(stream));
          verified = verified && app.verify();
        }
      }
      std::printf("%-7s %5d | %9.3f %9.3f | %9.3f %9.3f | %9.3f %9.3f | %s%s\n", size_name(footprint).c_str(), regions,
                  timer.median_ms(0), timer.median_ms(1), timer.median_ms(2), timer.median_ms(3), timer.median_ms(4),
                  timer.median_ms(5), footprint <= kVerifyMaxBytes ? (verified ? "ok" : "FAILED") : "-",
                  plan_ce.stats().copy_engine_batched ? "" : " (no batch API: one cuMemcpyAsync per span)");
      std::fflush(stdout);
      pinned_rows.push_back(
          {{"bytes", footprint},
           {"regions", regions},
           {"reps", reps},
           {"floor_h2d_ms", timer.median_ms(0)},
           {"floor_d2h_ms", timer.median_ms(1)},
           {"capture_copy_engine_ms", timer.median_ms(2)},
           {"restore_copy_engine_ms", timer.median_ms(3)},
           {"capture_mapped_kernel_ms", timer.median_ms(4)},
           {"restore_mapped_kernel_ms", timer.median_ms(5)},
           {"copy_engine_batch_api", plan_ce.stats().copy_engine_batched},
           {"verified", footprint <= kVerifyMaxBytes ? nlohmann::json(verified) : nlohmann::json("skipped")}});
      stage("plan destruction and region release");
    }
    stage("pinned arena release");
    CHECK_CUDA(cudaFreeHost(pinned_host));
    CHECK_CUDA(cudaFree(floor_dst));
  }
  out["pinned_tier"] = pinned_rows;

  // ---- ratios against the targets (last rows) -------------------------------
  stage("summary");
  std::printf(
      "\ntargets (stage / copy floor, this run; default kernel kWarpPerItemInOrder, [blk: kBlockPerItemRun], "
      "[wpi: kWarpPerItem]; met/MISSED judges the default kernel)\n");
  nlohmann::json targets = nlohmann::json::array();
  bool all_met = true;
  for (const nlohmann::json& row : rows) {
    const double floor_ms = row["floor_ms"].get<double>();
    const std::uint64_t bytes = row["bytes"].get<std::uint64_t>();
    const int regions = row["regions"].get<int>();
    if (bytes >= 64 * kMiB && floor_ms > 0) {
      for (const char* what : {"capture", "restore"}) {
        const std::string stage_name = what;
        const double limit = stage_name == "capture" ? 1.10 : 1.05;
        const double ratio = row[stage_name + "_ms"].get<double>() / floor_ms;
        const double ratio_blk = row[stage_name + "_blk_ms"].get<double>() / floor_ms;
        const double ratio_wpi = row[stage_name + "_wpi_ms"].get<double>() / floor_ms;
        const bool met = ratio <= limit;
        all_met = all_met && met;
        std::printf("%-7s %-7s %5d regions  %6.3fx [blk %6.3fx] [wpi %6.3fx]  target <= %.2fx  %s\n", what,
                    size_name(bytes).c_str(), regions, ratio, ratio_blk, ratio_wpi, limit, met ? "met" : "MISSED");
        targets.push_back({{"stage", stage_name},
                           {"bytes", bytes},
                           {"regions", regions},
                           {"ratio", ratio},
                           {"ratio_blk", ratio_blk},
                           {"ratio_wpi", ratio_wpi},
                           {"target", limit},
                           {"met", met}});
      }
    }
    if (bytes == 4 * kMiB && regions == 64) {
      const double us = 1000.0 * row["restore_ms"].get<double>();
      const double us_blk = 1000.0 * row["restore_blk_ms"].get<double>();
      const double us_wpi = 1000.0 * row["restore_wpi_ms"].get<double>();
      const double host_us = row["restore_host_us"].get<double>();
      const bool ok = us <= 15.0;
      all_met = all_met && ok;
      std::printf(
          "restore 4 MB in 64 regions  %.1f us [blk %.1f us] [wpi %.1f us] on the GPU, %.1f us host "
          "call-to-completion  target <= 15 us  %s\n",
          us, us_blk, us_wpi, host_us, ok ? "met" : "MISSED");
      targets.push_back({{"stage", "restore_fixed_cost"},
                         {"bytes", bytes},
                         {"regions", regions},
                         {"us", us},
                         {"us_blk", us_blk},
                         {"us_wpi", us_wpi},
                         {"host_us", host_us},
                         {"target_us", 15.0},
                         {"met", ok}});
    }
  }
  for (const nlohmann::json& row : pinned_rows) {
    const double ce = row["restore_copy_engine_ms"].get<double>();
    const double mk = row["restore_mapped_kernel_ms"].get<double>();
    const double ce_cap = row["capture_copy_engine_ms"].get<double>();
    const double mk_cap = row["capture_mapped_kernel_ms"].get<double>();
    const double h2d = row["floor_h2d_ms"].get<double>();
    std::printf(
        "pinned  %-7s %5d regions  restore: copy engines %.2fx, mapped kernel %.2fx of H2D floor; "
        "faster: %s (restore), %s (capture)\n",
        size_name(row["bytes"].get<std::uint64_t>()).c_str(), row["regions"].get<int>(), h2d > 0 ? ce / h2d : 0.0,
        h2d > 0 ? mk / h2d : 0.0, ce <= mk ? "copy engines" : "mapped kernel",
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
