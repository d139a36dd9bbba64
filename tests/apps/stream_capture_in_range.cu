// stream_capture_in_range: a range that contains a whole stream capture
// (cudaStreamBeginCapture ... cudaStreamEndCapture, global capture mode) after
// one ordinary kernel. The captured kernel does not run inside the range, so
// a replay runs the ordinary kernel alone; the first range of a one-pass
// list declines (stream capture active: its pass 0 was being counted). The
// program instantiates and launches the captured graph after the range and
// checks the result:
//   range: affine(x, salt) on the legacy stream;  capture on `capture_stream`: affine(x, salt + 1)
//   after: launch the graph, so x = affine(affine(x, salt), salt + 1)
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
    "usage: app_stream_capture_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each containing a stream capture\n";

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900051);
  uint32_t* x = upload(expected_x);
  // Non-blocking: the legacy stream must not implicitly wait on a capturing stream.
  cudaStream_t capture_stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&capture_stream, cudaStreamNonBlocking));
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x600u + static_cast<uint32_t>(iteration);
    cudaGraph_t graph = nullptr;
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CHECK_CUDA(cudaStreamBeginCapture(capture_stream, cudaStreamCaptureModeGlobal));
    launch_affine(x, kAppElements, salt + 1, capture_stream);
    CHECK_CUDA(cudaStreamEndCapture(capture_stream, &graph));
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    cudaGraphExec_t graph_exec = nullptr;
    CHECK_CUDA(cudaGraphInstantiate(&graph_exec, graph, 0));
    CHECK_CUDA(cudaGraphLaunch(graph_exec, capture_stream));
    CHECK_CUDA(cudaStreamSynchronize(capture_stream));
    CHECK_CUDA(cudaGraphExecDestroy(graph_exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
    host_affine(expected_x, salt);
    host_affine(expected_x, salt + 1);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  CHECK_CUDA(cudaStreamDestroy(capture_stream));
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
