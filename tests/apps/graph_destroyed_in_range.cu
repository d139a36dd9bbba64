// graph_destroyed_in_range: a range that launches an executable CUDA graph
// and destroys it (cudaGraphExecDestroy) before the range ends. Graph
// launches replay as one unit and need the executable graph to still exist.
// Expected decline: graph_destroyed_in_range. The graph (affine, then
// accumulate) is captured once outside any range; each iteration
// instantiates it before its range. The range still runs once, so the
// results must stay right:
//   before: exec = instantiate(graph)
//   range: launch exec [affine(x, kGraphSalt); acc = 3 acc + x];  affine(x, salt);  sync;  destroy exec
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_graph_destroyed_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each launching an executable\n"
    "                  graph and destroying it\n";

constexpr uint32_t kGraphSalt = 0xf00u;

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa99000f1);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa99000f2);
  uint32_t* x = upload(expected_x);
  uint32_t* acc = upload(expected_acc);
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  cudaGraph_t graph = nullptr;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  launch_affine(x, kAppElements, kGraphSalt, stream);
  launch_accumulate(acc, x, kAppElements, stream);
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  size_t node_count = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &node_count));
  CHECK_THAT(node_count == 2);

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0xf10u + static_cast<uint32_t>(iteration);
    cudaGraphExec_t exec = nullptr;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    nvtxRangePushA("step");
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    launch_affine(x, kAppElements, salt, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    nvtxRangePop();
    host_affine(expected_x, kGraphSalt);
    host_accumulate(expected_acc, expected_x);
    host_affine(expected_x, salt);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  check_and_print(download(acc, kAppElements), expected_acc, "acc");
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(acc));
  CHECK_CUDA(cudaFree(x));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
