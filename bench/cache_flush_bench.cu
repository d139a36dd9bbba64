// L2 flush benchmark: the cost per pass of --cache-control (cuda/cache_flush.h)
// against its floor, one cudaMemcpyAsync device-to-device of the L2's size
// (the same DRAM traffic, twice the L2: the flush reads twice the L2's bytes;
// the copy reads the L2's bytes and writes as many), with the L2 clean (a
// flush right after a flush) and with it full of dirty lines (a memset of
// 32 MiB, or of the L2's size, just before).
//
//   cache_flush_bench [out.json] [--reps 200]
//
// Device events around the flush alone (queued behind a short spin kernel so
// the host never starves the GPU), a warm-up first, the median of the
// repetitions. Prints a table whose last column is the ratio to the floor;
// writes the raw numbers as JSON to the first non-flag argument.
#include <cuda.h>
#include <cuda_runtime.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cuda/cache_flush.h"

#include "bench_cli.h"
#include "bench_common.cuh"

namespace {
using namespace rangereplay::bench;

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "cache_flush_bench: %s failed: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

struct Options {
  std::string json_path;
  int reps = 200;
};

Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{
      "cache_flush_bench: the L2 flush of --cache-control against one cudaMemcpyAsync D2D of the L2's size,\n"
      "with the L2 clean and full of dirty lines. Prints a table (times in us); writes the raw numbers as JSON.",
      "cache_flush_bench"};
  app.add_option("out.json", o.json_path, "Where to write the raw numbers as JSON (left out: table only)")
      ->type_name("PATH");
  app.add_option("--reps", o.reps, "Repetitions per row (the median is printed)")->check(CLI::Range(3, 100000));
  parse_or_exit(app, argc, argv);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "context creation");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  CUdevice device = 0;
  if (cuDeviceGet(&device, 0) != CUDA_SUCCESS) return 1;
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  rangereplay::StatusOr<rangereplay::cu::CacheFlush> created = rangereplay::cu::CacheFlush::create(device, stream);
  if (!created.ok()) {
    std::fprintf(stderr, "cache_flush_bench: %s\n", created.status().to_string().c_str());
    return 1;
  }
  const rangereplay::cu::CacheFlush& flush = *created;
  const std::size_t l2 = static_cast<std::size_t>(prop.l2CacheSize);
  void* dirty = nullptr;
  void* src = nullptr;
  void* dst = nullptr;
  check(cudaMalloc(&dirty, l2), "cudaMalloc");
  check(cudaMalloc(&src, l2), "cudaMalloc");
  check(cudaMalloc(&dst, l2), "cudaMalloc");
  cudaEvent_t begin = nullptr;
  cudaEvent_t end = nullptr;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");

  // One row: `before` runs untimed, then the timed step; median in us.
  auto time_us = [&](auto before, auto step) {
    std::vector<double> us;
    for (int i = 0; i < opt.reps + 1; ++i) {
      before();
      spin_kernel<<<1, 1, 0, stream>>>(20000);
      check(cudaEventRecord(begin, stream), "cudaEventRecord");
      step();
      check(cudaEventRecord(end, stream), "cudaEventRecord");
      check(cudaEventSynchronize(end), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
      if (i > 0) us.push_back(1e3 * ms);  // the first is the warm-up
    }
    return median(us);
  };
  auto do_flush = [&] {
    rangereplay::Status s = flush.flush(stream);
    if (!s.ok()) {
      std::fprintf(stderr, "cache_flush_bench: %s\n", s.to_string().c_str());
      std::exit(1);
    }
  };
  auto nothing = [] {};
  auto dirty_32 = [&] { check(cudaMemsetAsync(dirty, 1, 32 * kMiB < l2 ? 32 * kMiB : l2, stream), "memset"); };
  auto dirty_l2 = [&] { check(cudaMemsetAsync(dirty, 2, l2, stream), "memset"); };

  const double floor_us =
      time_us(nothing, [&] { check(cudaMemcpyAsync(dst, src, l2, cudaMemcpyDeviceToDevice, stream), "memcpy"); });
  struct Row {
    const char* name;
    double us;
  };
  const Row rows[] = {{"L2 clean (after a flush)", time_us(do_flush, do_flush)},
                      {"after a 32 MiB memset", time_us(dirty_32, do_flush)},
                      {"after an L2-sized memset", time_us(dirty_l2, do_flush)}};

  std::printf("cache_flush_bench on %s, driver %d, L2 %zu MiB, flush reads %zu MiB; medians of %d reps\n", prop.name,
              driver, l2 / kMiB, flush.bytes() / kMiB, opt.reps);
  std::printf("floor: cudaMemcpyAsync D2D of %zu MiB (the same DRAM bytes moved): %.1f us\n", l2 / kMiB, floor_us);
  std::printf("%-28s %10s %10s\n", "L2 state before the flush", "flush_us", "x floor");
  nlohmann::json out;
  out["device"] = prop.name;
  out["driver_version"] = driver;
  out["l2_bytes"] = l2;
  out["flush_bytes"] = flush.bytes();
  out["floor_us"] = floor_us;
  for (const Row& r : rows) {
    std::printf("%-28s %10.1f %10.2f\n", r.name, r.us, r.us / floor_us);
    out["rows"].push_back({{"case", r.name}, {"flush_us", r.us}, {"ratio_to_floor", r.us / floor_us}});
  }
  if (!opt.json_path.empty()) std::ofstream(opt.json_path) << out.dump(2) << "\n";
  check(cudaFree(dirty), "cudaFree");
  check(cudaFree(src), "cudaFree");
  check(cudaFree(dst), "cudaFree");
  return 0;
}
