// graph: the stream example's step (copy, mul, add, triad, dot, a += 1)
// captured once into a CUDA graph outside any range, instantiated, and then
// launched with cudaGraphLaunch inside each NVTX range `step`. With the same
// --bytes and --iterations it prints the same checksums as `stream`, since the
// graph runs the same kernels in the same order on the same seeded data.
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
    "usage: graph [--bytes SIZE] [--iterations N]\n"
    "  --bytes SIZE    total size of the three double arrays (default 256MiB;\n"
    "                  suffixes B, KB, MB, GB, KiB, MiB, GiB)\n"
    "  --iterations N  number of graph launches, one NVTX range `step` each (default 3)\n"
    "Prints `checksum <buffer> <hex>` for a, b, c, dot_partials, then `checksums-done`.\n";

struct Options {
  uint64_t bytes = 256ULL << 20;
  int iterations = 3;
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
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  if (stream_elements_for_bytes(options.bytes) == 0) usage_error("--bytes below 24 bytes", nullptr);
  return options;
}

int run(const Options& options) {
  init_device();
  const size_t n = stream_elements_for_bytes(options.bytes);
  std::printf("graph: %zu doubles per array, %zu bytes in all, %d iterations\n", n, 3 * n * sizeof(double),
              options.iterations);
  StreamArrays arrays = create_stream_arrays(n, /*seed=*/0x5eed0001);  // stream.cu's seed
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  cudaGraph_t graph = nullptr;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  enqueue_stream_step(arrays, stream);
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  size_t node_count = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &node_count));
  CHECK_THAT(node_count == 6);
  cudaGraphExec_t graph_exec = nullptr;
  CHECK_CUDA(cudaGraphInstantiate(&graph_exec, graph, 0));
  CHECK_CUDA(cudaGraphUpload(graph_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    nvtxRangePushA("step");
    CHECK_CUDA(cudaGraphLaunch(graph_exec, stream));
    nvtxRangePop();
    CHECK_CUDA(cudaStreamSynchronize(stream));
  }

  print_stream_checksums(arrays);
  CHECK_CUDA(cudaGraphExecDestroy(graph_exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
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
