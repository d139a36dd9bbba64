// Digest benchmark: GPU digest throughput (bytes read per second) and
// differential restore with 0%, 1%, 10% and 100% of chunks dirty, against the
// full-restore floor (one cudaMemcpyAsync device-to-device of the footprint),
// for the footprints of the performance targets (64 MB, 256 MB, 1 GB, 4 GB;
// one region, 1 MiB chunks).
//
//   digest_bench [out.json] [--max-bytes 4G] [--chunk-bytes 1M]
//
// Restore modes (cuda/digest_plan.h): digest-all (digest every chunk, copy
// the differing ones), predicted (chunks the previous pass dirtied are copied
// unread: the steady state of a range that writes the same chunks each pass),
// use-digests (after a --verify digest of the same memory: copy only).
// Every mode is timed with both copy variants (DigestPlanOptions::copy_variant):
// the default, each cluster copying its slices, and "ord", the in-order chunk
// copy launch (kWarpPerPieceInOrder), printed next to each other.
// Device events around each stage (queued behind a short spin kernel so the
// host never starves the GPU), warm-up first, median of many repetitions,
// random data; every restore is checked (restored bytes and memory equal to
// the snapshot). Prints a table whose last rows are the ratios against the
// targets; writes the raw numbers as JSON to the first non-flag argument.
#include <cuda.h>
#include <cuda_runtime.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/snapshot/digest/chunk_digest.h"
#include "cuda/digest_plan.h"

#include "bench_cli.h"
#include "bench_common.cuh"

namespace {
using namespace rangereplay::bench;

using rangereplay::ChunkRestoreMode;
using rangereplay::DevicePtr;
using rangereplay::DigestPlan;
using rangereplay::DigestPlanOptions;
using rangereplay::DigestRegion;
using rangereplay::MemoryRange;
using rangereplay::Status;
using rangereplay::StatusOr;
using rangereplay::kernels::DigestCopyVariant;

constexpr std::uint64_t kFootprints[] = {64 * kMiB, 256 * kMiB, 1024 * kMiB, 4096 * kMiB};
constexpr double kDirtyFractions[] = {0.0, 0.01, 0.10, 1.0};
constexpr double kDigestTargetTBps = 3.0;
constexpr double kOnePercentTarget = 0.4;
constexpr double kAllDirtyTarget = 1.15;
constexpr int kWarmup = 3;

struct ModeInfo {
  ChunkRestoreMode mode;
  const char* name;
};
constexpr ModeInfo kModes[] = {
    {ChunkRestoreMode::kDigestAll, "digest-all"},
    {ChunkRestoreMode::kCopyPredicted, "predicted"},
    {ChunkRestoreMode::kUseDigests, "use-digests"},
};
// The copy variants, in the order of restore_ms's first index ("ord" = the in-order chunk copy).
constexpr DigestCopyVariant kVariants[] = {DigestCopyVariant::kClusterSlice, DigestCopyVariant::kWarpPerPieceInOrder};

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

// Flips one byte in each listed position (what a range's writes look like to the digest).
__global__ void dirty_kernel(unsigned char* app, const std::uint64_t* positions, std::uint32_t count) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) app[positions[i]] ^= 0xA5;
}

// Counts 16-byte words that differ between a and b.
__global__ void compare_kernel(const uint4* a, const uint4* b, std::uint64_t count, unsigned long long* differ) {
  unsigned long long local = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const uint4 x = a[i];
    const uint4 y = b[i];
    local += (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) ? 1 : 0;
  }
  if (local != 0) atomicAdd(differ, local);
}

int reps_for(std::uint64_t bytes) {
  if (bytes <= 64 * kMiB) return 60;
  if (bytes <= 256 * kMiB) return 30;
  if (bytes <= 1024 * kMiB) return 15;
  return 9;
}

// Median milliseconds of `op` between two events, each repetition after a
// spin kernel and `setup` (untimed), kWarmup repetitions discarded.
class Timer {
 public:
  explicit Timer(cudaStream_t stream) : stream_(stream) {
    CHECK_CUDA(cudaEventCreate(&begin_));
    CHECK_CUDA(cudaEventCreate(&end_));
  }
  ~Timer() {
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
  }
  double median_ms(int reps, const std::function<void()>& setup, const std::function<void()>& op) {
    std::vector<double> samples;
    for (int rep = 0; rep < kWarmup + reps; ++rep) {
      spin_kernel<<<1, 1, 0, stream_>>>(200000);  // 200 us
      CHECK_CUDA(cudaGetLastError());
      setup();
      CHECK_CUDA(cudaEventRecord(begin_, stream_));
      op();
      CHECK_CUDA(cudaEventRecord(end_, stream_));
      CHECK_CUDA(cudaEventSynchronize(end_));
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, begin_, end_));
      if (rep >= kWarmup) samples.push_back(ms);
    }
    return median(samples);
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t begin_ = nullptr;
  cudaEvent_t end_ = nullptr;
};

struct Options {
  std::string json_path;
  std::uint64_t max_bytes = 4096 * kMiB;
  std::uint64_t chunk_bytes = rangereplay::kDefaultDigestChunkBytes;
};

Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{
      "digest_bench: GPU digest throughput and differential restore (0%, 1%, 10%, 100% of chunks dirty)\n"
      "against one cudaMemcpyAsync D2D of the footprint, footprints 64 MB to 4 GB, one region. Prints a\n"
      "table (times in ms, throughput in TB/s); writes the raw numbers as JSON.",
      "digest_bench"};
  add_common_options(app, o.json_path, o.max_bytes);
  add_size_option(app, "--chunk-bytes", o.chunk_bytes, "Digest chunk size in bytes: a multiple of 16, at most 2^31");
  parse_or_exit(app, argc, argv);
  return o;
}

struct FootprintResult {
  std::uint64_t bytes = 0;
  std::uint64_t chunks = 0;
  std::uint32_t cluster_blocks = 0;
  std::uint64_t copy_blocks = 0;  // the in-order variant's copy grid
  double floor_ms = 0;
  double digest_ms = 0;           // kernel only
  double digest_readback_ms = 0;  // digest() = kernel + copy of the digests to the host
  double read_back_ms = 0;        // read_back(): counters, digests, flags
  // restore_ms[variant][mode][fraction]
  double restore_ms[2][3][4] = {};
  std::uint64_t dirty_chunks[4] = {};
};

FootprintResult run_footprint(std::uint64_t bytes, const Options& opt, cudaStream_t stream, bool& all_ok) {
  FootprintResult r;
  r.bytes = bytes;
  const int reps = reps_for(bytes);
  unsigned char* app = nullptr;
  unsigned char* snapshot = nullptr;
  CHECK_CUDA(cudaMalloc(&app, bytes));
  CHECK_CUDA(cudaMalloc(&snapshot, bytes));
  fill_kernel<<<2048, 256, 0, stream>>>(reinterpret_cast<std::uint64_t*>(app), bytes / 8, bytes);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpyAsync(snapshot, app, bytes, cudaMemcpyDeviceToDevice, stream));
  unsigned long long* differ = nullptr;
  CHECK_CUDA(cudaMalloc(&differ, sizeof(unsigned long long)));

  const std::vector<DigestRegion> regions = {{MemoryRange(DevicePtr(reinterpret_cast<std::uint64_t>(app)), bytes),
                                              DevicePtr(reinterpret_cast<std::uint64_t>(snapshot))}};
  // One plan per copy variant over the same memory (plans[0]: the default).
  std::vector<DigestPlan> plans;
  for (DigestCopyVariant variant : kVariants) {
    DigestPlanOptions options;
    options.chunk_bytes = opt.chunk_bytes;
    options.copy_variant = variant;
    StatusOr<DigestPlan> made = DigestPlan::create(regions, options, stream);
    check_status(made.status(), "DigestPlan::create");
    plans.push_back(std::move(made).value());
    check_status(plans.back().digest_entry(stream), "digest_entry");
  }
  DigestPlan& plan = plans[0];
  r.chunks = plan.stats().chunk_count;
  r.cluster_blocks = plan.stats().cluster_blocks;
  r.copy_blocks = plans[1].stats().copy_blocks;
  CHECK_CUDA(cudaStreamSynchronize(stream));

  // Sanity: the GPU digests of the first and last chunk equal the host reference.
  {
    check_status(plan.digest(stream), "digest");
    CHECK_CUDA(cudaStreamSynchronize(stream));
    for (std::size_t c : {std::size_t{0}, static_cast<std::size_t>(r.chunks - 1)}) {
      const rangereplay::DigestChunk& chunk = plan.table().chunks()[c];
      std::vector<unsigned char> host(chunk.bytes);
      CHECK_CUDA(cudaMemcpy(host.data(), app + chunk.offset, chunk.bytes, cudaMemcpyDeviceToHost));
      if (plan.host_digests()[c] != rangereplay::chunk_digest_reference(host.data(), host.size())) {
        std::fprintf(stderr, "%s: chunk %zu digest differs from the host reference\n", size_name(bytes).c_str(), c);
        all_ok = false;
      }
    }
  }

  Timer timer(stream);
  auto nothing = [] {};
  r.floor_ms = timer.median_ms(
      reps, nothing, [&] { CHECK_CUDA(cudaMemcpyAsync(app, snapshot, bytes, cudaMemcpyDeviceToDevice, stream)); });
  r.digest_ms = timer.median_ms(reps, nothing, [&] { check_status(plan.digest_entry(stream), "digest_entry"); });
  r.digest_readback_ms = timer.median_ms(reps, nothing, [&] { check_status(plan.digest(stream), "digest"); });
  r.read_back_ms = timer.median_ms(reps, nothing, [&] { check_status(plan.read_back(stream), "read_back"); });

  std::mt19937_64 rng(bytes);
  std::uint64_t* positions = nullptr;
  CHECK_CUDA(cudaMalloc(&positions, r.chunks * sizeof(std::uint64_t)));
  for (int f = 0; f < 4; ++f) {
    // The dirty chunks: a random subset, one flipped byte in the middle of each.
    std::uint64_t count = static_cast<std::uint64_t>(kDirtyFractions[f] * static_cast<double>(r.chunks) + 0.5);
    if (kDirtyFractions[f] > 0 && count == 0) count = 1;
    std::vector<std::size_t> all(r.chunks);
    for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<std::uint64_t> host_positions;
    std::uint64_t dirty_bytes = 0;
    for (std::uint64_t k = 0; k < count; ++k) {
      const rangereplay::DigestChunk& chunk = plan.table().chunks()[all[k]];
      host_positions.push_back(chunk.offset + chunk.bytes / 2);
      dirty_bytes += chunk.bytes;
    }
    r.dirty_chunks[f] = count;
    if (count > 0) {
      CHECK_CUDA(cudaMemcpy(positions, host_positions.data(), count * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
    }
    auto make_dirty = [&] {
      if (count == 0) return;
      dirty_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(app, positions,
                                                                                   static_cast<std::uint32_t>(count));
      CHECK_CUDA(cudaGetLastError());
    };

    for (int m = 0; m < 3; ++m) {
      for (int v = 0; v < 2; ++v) {
        DigestPlan& p = plans[v];
        const ChunkRestoreMode mode = kModes[m].mode;
        // Clear the dirty flags (memory is clean here): predictions start empty.
        check_status(p.restore(stream, ChunkRestoreMode::kDigestAll), "restore");
        auto setup = [&] {
          make_dirty();
          if (mode == ChunkRestoreMode::kUseDigests) check_status(p.digest(stream), "digest");
        };
        r.restore_ms[v][m][f] = timer.median_ms(reps, setup, [&] { check_status(p.restore(stream, mode), "restore"); });

        // Check the last restore: counters and memory.
        check_status(p.read_back(stream), "read_back");
        CHECK_CUDA(cudaMemsetAsync(differ, 0, sizeof(unsigned long long), stream));
        compare_kernel<<<2048, 256, 0, stream>>>(reinterpret_cast<const uint4*>(app),
                                                 reinterpret_cast<const uint4*>(snapshot), bytes / 16, differ);
        CHECK_CUDA(cudaGetLastError());
        unsigned long long differing = 0;
        CHECK_CUDA(cudaMemcpyAsync(&differing, differ, sizeof(differing), cudaMemcpyDeviceToHost, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        const std::uint64_t restored = p.host_counters().restored_bytes;
        if (differing != 0 || restored != dirty_bytes) {
          std::fprintf(stderr, "%s %s (%s) %.0f%%: restored %llu bytes (expected %llu), %llu words differ\n",
                       size_name(bytes).c_str(), kModes[m].name, rangereplay::kernels::copy_variant_name(kVariants[v]),
                       kDirtyFractions[f] * 100, static_cast<unsigned long long>(restored),
                       static_cast<unsigned long long>(dirty_bytes), differing);
          all_ok = false;
        }
      }
    }
  }

  CHECK_CUDA(cudaStreamSynchronize(stream));
  plans.clear();  // frees before the buffers they name
  CHECK_CUDA(cudaFree(positions));
  CHECK_CUDA(cudaFree(differ));
  CHECK_CUDA(cudaFree(app));
  CHECK_CUDA(cudaFree(snapshot));
  return r;
}

double tbps(std::uint64_t bytes, double ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) / 1e12 : 0; }

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaFree(nullptr));  // creates and binds the primary context
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  std::printf("digest_bench: %s, %d SMs, driver %d, chunk %llu bytes\n", prop.name, prop.multiProcessorCount, driver,
              static_cast<unsigned long long>(opt.chunk_bytes));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const StatusOr<int> clusters = rangereplay::kernels::digest_kernel_max_active_clusters(8);
  std::printf("digest kernel: clusters of 8 resident at once: %s\n",
              clusters.ok() ? std::to_string(*clusters).c_str() : clusters.status().to_string().c_str());

  bool all_ok = true;
  std::vector<FootprintResult> results;
  for (std::uint64_t bytes : kFootprints) {
    if (bytes > opt.max_bytes) continue;
    results.push_back(run_footprint(bytes, opt, stream, all_ok));
    std::fflush(stdout);
  }

  nlohmann::json json;
  json["gpu"] = prop.name;
  json["driver"] = driver;
  json["chunk_bytes"] = opt.chunk_bytes;
  json["all_checks_passed"] = all_ok;
  json["max_active_clusters_of_8"] = clusters.ok() ? *clusters : -1;
  for (const FootprintResult& r : results) {
    nlohmann::json f;
    f["bytes"] = r.bytes;
    f["chunks"] = r.chunks;
    f["cluster_blocks"] = r.cluster_blocks;
    f["in_order_copy_blocks"] = r.copy_blocks;
    f["floor_ms"] = r.floor_ms;
    f["digest_ms"] = r.digest_ms;
    f["digest_tbps"] = tbps(r.bytes, r.digest_ms);
    f["digest_with_readback_ms"] = r.digest_readback_ms;
    f["read_back_ms"] = r.read_back_ms;
    for (int m = 0; m < 3; ++m) {
      for (int k = 0; k < 4; ++k) {
        nlohmann::json row;
        row["mode"] = kModes[m].name;
        row["dirty_fraction"] = kDirtyFractions[k];
        row["dirty_chunks"] = r.dirty_chunks[k];
        row["ms"] = r.restore_ms[0][m][k];
        row["ratio_to_floor"] = r.floor_ms > 0 ? r.restore_ms[0][m][k] / r.floor_ms : 0;
        row["in_order_ms"] = r.restore_ms[1][m][k];
        row["in_order_ratio_to_floor"] = r.floor_ms > 0 ? r.restore_ms[1][m][k] / r.floor_ms : 0;
        f["restore"].push_back(row);
      }
    }
    json["footprints"].push_back(f);
  }
  if (!opt.json_path.empty()) {
    std::ofstream out(opt.json_path);
    out << json.dump(2) << "\n";
  }

  // The table: per footprint, the floor, the digest, and each restore mode's
  // time as a ratio to the floor, the default copy then the in-order one
  // ("ord"); then the ratios against the targets.
  std::printf("\n%-7s %8s %8s %6s  %-11s %6s %6s %6s %6s | ord %6s %6s %6s %6s  (restore / floor)\n", "size", "floor",
              "digest", "TB/s", "mode", "0%", "1%", "10%", "100%", "0%", "1%", "10%", "100%");
  for (const FootprintResult& r : results) {
    for (int m = 0; m < 3; ++m) {
      if (m == 0) {
        std::printf("%-7s %6.3fms %6.3fms %6.2f  ", size_name(r.bytes).c_str(), r.floor_ms, r.digest_ms,
                    tbps(r.bytes, r.digest_ms));
      } else {
        std::printf("%-7s %8s %8s %6s  ", "", "", "", "");
      }
      std::printf("%-11s", kModes[m].name);
      for (int k = 0; k < 4; ++k) std::printf(" %6.3f", r.restore_ms[0][m][k] / r.floor_ms);
      std::printf(" |    ");
      for (int k = 0; k < 4; ++k) std::printf(" %6.3f", r.restore_ms[1][m][k] / r.floor_ms);
      std::printf("\n");
    }
  }
  std::printf("targets (measured/target, <= 1 meets for restore, >= 1 for digest; [ord: in-order copy]):\n");
  std::printf("%-34s", "digest >= 3 TB/s (TB/s / 3)");
  for (const FootprintResult& r : results)
    std::printf(" %s %.2f", size_name(r.bytes).c_str(), tbps(r.bytes, r.digest_ms) / kDigestTargetTBps);
  std::printf("\n");
  for (int m = 0; m < 3; ++m) {
    std::printf("%-34s", ("1% dirty <= 0.4x floor, " + std::string(kModes[m].name)).c_str());
    for (const FootprintResult& r : results) {
      std::printf(" %s %.2f [ord %.2f]", size_name(r.bytes).c_str(),
                  r.restore_ms[0][m][1] / r.floor_ms / kOnePercentTarget,
                  r.restore_ms[1][m][1] / r.floor_ms / kOnePercentTarget);
    }
    std::printf("\n");
  }
  for (int m = 0; m < 3; ++m) {
    std::printf("%-34s", ("100% dirty <= 1.15x floor, " + std::string(kModes[m].name)).c_str());
    for (const FootprintResult& r : results) {
      std::printf(" %s %.2f [ord %.2f]", size_name(r.bytes).c_str(),
                  r.restore_ms[0][m][3] / r.floor_ms / kAllDirtyTarget,
                  r.restore_ms[1][m][3] / r.floor_ms / kAllDirtyTarget);
    }
    std::printf("\n");
  }
  std::printf("checks: %s\n", all_ok ? "all restores exact" : "FAILED (see stderr)");
  CHECK_CUDA(cudaStreamDestroy(stream));
  return all_ok ? 0 : 1;
}
