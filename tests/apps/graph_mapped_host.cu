// graph_mapped_host: a CUDA graph whose kernel nodes are given device-mapped
// pinned host memory (cudaHostAlloc(cudaHostAllocMapped)) and accumulate into
// it, launched inside each NVTX range `step`. Pinned memory is not in the
// entry snapshot: the tool must find the buffers in the graph kernels'
// arguments (read when the graph is instantiated, re-read when a kernel
// node's parameters are set: src/tool/graph_recording.cpp), capture them at
// the graph launch and restore them before each replay and at the end
// (src/tool/host_regions.cpp). A replay that does not restore them applies
// the affine step again, and the results (checked against a host reference,
// exit 1 on a mismatch) and checksums change.
// Expected: every range replayed, checksums equal to a run without the tool.
//
//   graph (built once, instantiated before the ranges): affine(x, salt) -> acc = 3 acc + x
//   iteration 0:   x = h1 (as instantiated)
//   iteration k>0: cudaGraphExecKernelNodeSetParams points the affine node at
//                  h2 (odd k) or h1 (even k), with salt 0x900 + k, before the range
//   range `step`:  launch the graph
// The accumulate node always reads h1 through its mapping into device memory acc.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_graph_mapped_host [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each launching a CUDA graph\n"
    "                  whose kernels accumulate into device-mapped pinned host memory\n";

constexpr size_t kBytes = kAppElements * sizeof(uint32_t);

// Arguments of affine_kernel(x, n, salt) for a kernel node. The driver copies
// the values when the node's parameters are set, so this may be a local.
struct AffineNode {
  uint32_t* x;
  size_t n;
  uint32_t salt;
  void* params[3];

  AffineNode(uint32_t* x_in, uint32_t salt_in) : x(x_in), n(kAppElements), salt(salt_in), params{&x, &n, &salt} {}
  AffineNode(const AffineNode&) = delete;
  AffineNode& operator=(const AffineNode&) = delete;

  cudaKernelNodeParams node_params() {
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(affine_kernel);
    p.gridDim = dim3(grid_for(kAppElements, kAppThreads));
    p.blockDim = dim3(kAppThreads);
    p.sharedMemBytes = 0;
    p.kernelParams = params;
    p.extra = nullptr;
    return p;
  }
};

uint32_t* mapped_alloc(const std::vector<uint32_t>& words, uint32_t** device) {
  uint32_t* host = nullptr;
  CHECK_CUDA(cudaHostAlloc(&host, kBytes, cudaHostAllocMapped));
  std::memcpy(host, words.data(), kBytes);
  CHECK_CUDA(cudaHostGetDevicePointer(device, host, 0));
  return host;
}

std::vector<uint32_t> read(const uint32_t* host) { return std::vector<uint32_t>(host, host + kAppElements); }

int run(int iterations) {
  init_device();
  int can_map = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
  CHECK_THAT(can_map != 0);

  std::vector<uint32_t> expected_h1 = random_words(kAppElements, 0xa9900091);
  std::vector<uint32_t> expected_h2 = random_words(kAppElements, 0xa9900092);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa9900093);
  uint32_t* h1_dev = nullptr;
  uint32_t* h2_dev = nullptr;
  uint32_t* h1 = mapped_alloc(expected_h1, &h1_dev);
  uint32_t* h2 = mapped_alloc(expected_h2, &h2_dev);
  uint32_t* acc = upload(expected_acc);
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // affine(h1, 0x900) -> accumulate(acc, h1), built node by node so the
  // affine node's handle can be given new parameters later.
  cudaGraph_t graph = nullptr;
  CHECK_CUDA(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t affine_node = nullptr, accumulate_node = nullptr;
  {
    AffineNode first(h1_dev, 0x900u);
    const cudaKernelNodeParams p = first.node_params();
    CHECK_CUDA(cudaGraphAddKernelNode(&affine_node, graph, nullptr, 0, &p));
  }
  {
    uint32_t* acc_arg = acc;
    const uint32_t* x_arg = h1_dev;
    size_t n_arg = kAppElements;
    void* params[] = {&acc_arg, &x_arg, &n_arg};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(accumulate_kernel);
    p.gridDim = dim3(grid_for(kAppElements, kAppThreads));
    p.blockDim = dim3(kAppThreads);
    p.kernelParams = params;
    CHECK_CUDA(cudaGraphAddKernelNode(&accumulate_node, graph, &affine_node, 1, &p));
  }
  cudaGraphExec_t exec = nullptr;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x900u + static_cast<uint32_t>(iteration);
    const bool second = iteration % 2 == 1;
    if (iteration > 0) {
      AffineNode next(second ? h2_dev : h1_dev, salt);
      const cudaKernelNodeParams p = next.node_params();
      CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec, affine_node, &p));
    }
    nvtxRangePushA("step");
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    nvtxRangePop();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    host_affine(second ? expected_h2 : expected_h1, salt);
    host_accumulate(expected_acc, expected_h1);
  }

  // The host reads its own memory: no copy back.
  check_and_print(read(h1), expected_h1, "h1");
  check_and_print(read(h2), expected_h2, "h2");
  check_and_print(download(acc, kAppElements), expected_acc, "acc");
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(acc));
  CHECK_CUDA(cudaFreeHost(h2));
  CHECK_CUDA(cudaFreeHost(h1));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
