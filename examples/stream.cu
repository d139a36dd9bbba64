// stream: the main example workload. BabelStream-like copy, mul, add, triad
// and dot over three double arrays plus an in-place a += 1, one NVTX range
// `step` per iteration (or a cudaProfilerStart/Stop pair, or a range in a named
// NVTX domain), then the checksums of every buffer. The a += 1 makes each step
// non-idempotent: a replay without restoring memory changes the checksums.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "example_common.h"
#include "stream_kernels.cuh"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: stream [--bytes SIZE] [--iterations N] [--profiler-api | --nvtx-domain NAME]\n"
    "  --bytes SIZE        total size of the three double arrays (default 256MiB;\n"
    "                      suffixes B, KB, MB, GB, KiB, MiB, GiB)\n"
    "  --iterations N      number of steps, one range each (default 3)\n"
    "  --profiler-api      mark each step with cudaProfilerStart/Stop instead of NVTX\n"
    "  --nvtx-domain NAME  push/pop the `step` range in NVTX domain NAME\n"
    "Prints `checksum <buffer> <hex>` for a, b, c, dot_partials, then `checksums-done`.\n";

enum class Marker { kNvtx, kNvtxDomain, kProfilerApi };

struct Options {
  uint64_t bytes = 256ULL << 20;
  int iterations = 3;
  Marker marker = Marker::kNvtx;
  const char* domain_name = nullptr;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--bytes") == 0) {
      options.bytes = parse_bytes(option_value(argc, argv, i));
    } else if (std::strcmp(argv[i], "--iterations") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n > 1000000) usage_error("--iterations at most 1000000", argv[i]);
      options.iterations = static_cast<int>(n);
    } else if (std::strcmp(argv[i], "--profiler-api") == 0) {
      if (options.marker == Marker::kNvtxDomain) usage_error("--profiler-api excludes --nvtx-domain", nullptr);
      options.marker = Marker::kProfilerApi;
    } else if (std::strcmp(argv[i], "--nvtx-domain") == 0) {
      if (options.marker == Marker::kProfilerApi) usage_error("--nvtx-domain excludes --profiler-api", nullptr);
      options.domain_name = option_value(argc, argv, i);
      options.marker = Marker::kNvtxDomain;
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  if (stream_elements_for_bytes(options.bytes) == 0) usage_error("--bytes below 24 bytes", nullptr);
  return options;
}

// Opens and closes the per-step range the way the options ask.
class StepMarker {
 public:
  explicit StepMarker(const Options& options) : marker_(options.marker) {
    if (marker_ == Marker::kNvtxDomain) domain_ = nvtxDomainCreateA(options.domain_name);
  }
  ~StepMarker() {
    if (domain_ != nullptr) nvtxDomainDestroy(domain_);
  }
  StepMarker(const StepMarker&) = delete;
  StepMarker& operator=(const StepMarker&) = delete;

  void begin() {
    switch (marker_) {
      case Marker::kNvtx: nvtxRangePushA("step"); break;
      case Marker::kNvtxDomain: {
        nvtxEventAttributes_t attributes{};
        attributes.version = NVTX_VERSION;
        attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
        attributes.message.ascii = "step";
        nvtxDomainRangePushEx(domain_, &attributes);
        break;
      }
      case Marker::kProfilerApi: CHECK_CUDA(cudaProfilerStart()); break;
    }
  }

  void end() {
    switch (marker_) {
      case Marker::kNvtx: nvtxRangePop(); break;
      case Marker::kNvtxDomain: nvtxDomainRangePop(domain_); break;
      case Marker::kProfilerApi: CHECK_CUDA(cudaProfilerStop()); break;
    }
  }

 private:
  Marker marker_;
  nvtxDomainHandle_t domain_ = nullptr;
};

int run(const Options& options) {
  init_device();
  const size_t n = stream_elements_for_bytes(options.bytes);
  std::printf("stream: %zu doubles per array, %zu bytes in all, %d iterations\n", n, 3 * n * sizeof(double),
              options.iterations);
  StreamArrays arrays = create_stream_arrays(n, /*seed=*/0x5eed0001);
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  StepMarker marker(options);
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    marker.begin();
    enqueue_stream_step(arrays, stream);
    marker.end();
    CHECK_CUDA(cudaStreamSynchronize(stream));
  }

  print_stream_checksums(arrays);
  CHECK_CUDA(cudaStreamDestroy(stream));
  destroy_stream_arrays(arrays);
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_options(argc, argv));
}
