// graph_memory_nodes: a range that launches a CUDA graph holding memory
// nodes (an allocation node and a free node, made by capturing
// cudaMallocAsync/cudaFreeAsync). Expected decline under range replay:
// allocation_in_range (the graph's allocation node; src/core/record/graph_nodes.h).
// The graph is captured and instantiated before the range; each range
// launches it once:
//   tmp = alloc;  tmp = x;  affine(tmp, salt);  x = tmp;  free(tmp)
// so the program's own result stays checkable: x = affine(x, salt) per range.
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
    "usage: app_graph_memory_nodes [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each launching a graph with memory nodes\n";

constexpr uint32_t kSalt = 0x300u;

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900031);
  uint32_t* x = upload(expected_x);
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  uint32_t* tmp = nullptr;
  CHECK_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&tmp), kAppElements * sizeof(uint32_t), stream));
  launch_copy(tmp, x, kAppElements, stream);
  launch_affine(tmp, kAppElements, kSalt, stream);
  launch_copy(x, tmp, kAppElements, stream);
  CHECK_CUDA(cudaFreeAsync(tmp, stream));
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int iteration = 0; iteration < iterations; ++iteration) {
    nvtxRangePushA("step");
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    nvtxRangePop();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    host_affine(expected_x, kSalt);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
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
