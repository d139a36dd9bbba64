// Graph launches on a GPU: inspect_graph reads a captured graph's nodes in
// launch order (kernel names, grids, arguments, memcpy and memset spans),
// flattens child graphs, marks device-updatable kernel nodes' arguments
// unknown, reports host nodes (which classify_graph_nodes declines), and the
// Replayer re-launches an executable graph as one op.
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "gpu/gpu_stream_test.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/base/memory_range.h"
#include "core/record/graph_nodes.h"
#include "core/record/pointer_scan.h"
#include "core/record/recorded_program.h"
#include "cuda/graph_inspector.h"
#include "cuda/replayer.h"

namespace rangereplay {
namespace {

#define ASSERT_OK(expr)                                            \
  do {                                                             \
    const ::rangereplay::Status rr_s_ = (expr);                    \
    ASSERT_TRUE(rr_s_.ok()) << #expr << ": " << rr_s_.to_string(); \
  } while (0)
#define ASSERT_CUDART(call) ASSERT_EQ((call), cudaSuccess) << #call

__global__ void graph_fill_kernel(unsigned* out, unsigned n, unsigned value) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

__global__ void graph_increment_kernel(unsigned* data, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void host_noop(void*) {}

class GraphInspectorTest : public gpu_test::GpuStreamTest {
 protected:
  void TearDown() override {
    if (exec_ != nullptr) EXPECT_EQ(cudaGraphExecDestroy(exec_), cudaSuccess);
    if (graph_ != nullptr) EXPECT_EQ(cudaGraphDestroy(graph_), cudaSuccess);
    if (a_ != nullptr) EXPECT_EQ(cudaFree(a_), cudaSuccess);
    if (b_ != nullptr) EXPECT_EQ(cudaFree(b_), cudaSuccess);
    GpuStreamTest::TearDown();
  }

  static constexpr unsigned kN = 1000;  // not a multiple of any block size used
  unsigned* a_ = nullptr;
  unsigned* b_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

TEST_F(GraphInspectorTest, a_captured_chain_lists_its_nodes_in_launch_order) {
  ASSERT_CUDART(cudaMalloc(&a_, kN * sizeof(unsigned)));
  ASSERT_CUDART(cudaMalloc(&b_, kN * sizeof(unsigned)));
  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream_);
  ASSERT_CUDART(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  graph_fill_kernel<<<8, 128, 0, s>>>(a_, kN, 7);
  ASSERT_CUDART(cudaMemsetAsync(b_, 0, 3 * sizeof(unsigned), s));
  ASSERT_CUDART(cudaMemcpyAsync(b_ + 1, a_ + 2, 5 * sizeof(unsigned), cudaMemcpyDeviceToDevice, s));
  graph_increment_kernel<<<4, 256, 64, s>>>(b_, kN);
  ASSERT_CUDART(cudaStreamEndCapture(s, &graph_));

  auto summary = inspect_graph(reinterpret_cast<CUgraph>(graph_));
  ASSERT_OK(summary.status());
  ASSERT_EQ(summary->nodes.size(), 4u);
  EXPECT_EQ(summary->nodes[0].kind, GraphNodeKind::kKernel);
  EXPECT_EQ(summary->nodes[1].kind, GraphNodeKind::kMemset);
  EXPECT_EQ(summary->nodes[2].kind, GraphNodeKind::kMemcpy);
  EXPECT_EQ(summary->nodes[3].kind, GraphNodeKind::kKernel);
  EXPECT_EQ(summary->nodes[1].dst.address, reinterpret_cast<std::uint64_t>(b_));
  EXPECT_EQ(summary->nodes[1].dst.bytes, 12u);
  EXPECT_EQ(summary->nodes[2].src.address, reinterpret_cast<std::uint64_t>(a_ + 2));
  EXPECT_EQ(summary->nodes[2].src.bytes, 20u);
  EXPECT_EQ(summary->nodes[2].dst.address, reinterpret_cast<std::uint64_t>(b_ + 1));
  EXPECT_EQ(summary->nodes[2].dst.bytes, 20u);
  EXPECT_FALSE(summary->nodes[2].src.array);

  ASSERT_EQ(summary->kernels.size(), 2u);
  ASSERT_EQ(summary->kernel_nodes.size(), 2u);
  EXPECT_NE(summary->kernels[0].name.find("graph_fill_kernel"), std::string::npos) << summary->kernels[0].name;
  EXPECT_EQ(summary->kernels[0].grid[0], 8u);
  EXPECT_EQ(summary->kernels[0].block[0], 128u);
  EXPECT_EQ(summary->kernels[0].shared_mem_bytes, 0u);
  EXPECT_NE(summary->kernels[1].name.find("graph_increment_kernel"), std::string::npos) << summary->kernels[1].name;
  EXPECT_EQ(summary->kernels[1].grid[0], 4u);
  EXPECT_EQ(summary->kernels[1].block[0], 256u);
  EXPECT_EQ(summary->kernels[1].shared_mem_bytes, 64u);
  EXPECT_NE(summary->kernel_nodes[0], 0u);

  // Both buffers tracked: replayable.
  const auto a = reinterpret_cast<std::uint64_t>(a_), b = reinterpret_cast<std::uint64_t>(b_);
  const std::uint64_t bytes = kN * sizeof(unsigned);
  auto tracked = [&](std::uint64_t p, std::uint64_t n) {
    return (p >= a && p + n <= a + bytes) || (p >= b && p + n <= b + bytes);
  };
  EXPECT_FALSE(classify_graph_nodes(summary->nodes, tracked).reason.has_value());
}

TEST_F(GraphInspectorTest, child_graphs_are_flattened_after_their_node) {
  ASSERT_CUDART(cudaMalloc(&a_, kN * sizeof(unsigned)));
  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream_);
  cudaGraph_t child = nullptr;
  ASSERT_CUDART(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  graph_fill_kernel<<<4, 256, 0, s>>>(a_, kN, 1);
  graph_increment_kernel<<<4, 256, 0, s>>>(a_, kN);
  ASSERT_CUDART(cudaStreamEndCapture(s, &child));
  ASSERT_CUDART(cudaGraphCreate(&graph_, 0));
  cudaGraphNode_t empty = nullptr, child_node = nullptr;
  ASSERT_CUDART(cudaGraphAddEmptyNode(&empty, graph_, nullptr, 0));
  ASSERT_CUDART(cudaGraphAddChildGraphNode(&child_node, graph_, &empty, 1, child));
  ASSERT_CUDART(cudaGraphDestroy(child));  // the node holds its own copy

  auto summary = inspect_graph(reinterpret_cast<CUgraph>(graph_));
  ASSERT_OK(summary.status());
  ASSERT_EQ(summary->nodes.size(), 4u);
  EXPECT_EQ(summary->nodes[0].kind, GraphNodeKind::kEmpty);
  EXPECT_EQ(summary->nodes[1].kind, GraphNodeKind::kChildGraph);
  EXPECT_EQ(summary->nodes[2].kind, GraphNodeKind::kKernel);
  EXPECT_EQ(summary->nodes[3].kind, GraphNodeKind::kKernel);
  ASSERT_EQ(summary->kernels.size(), 2u);
  EXPECT_NE(summary->kernels[0].name.find("graph_fill_kernel"), std::string::npos);
  EXPECT_NE(summary->kernels[1].name.find("graph_increment_kernel"), std::string::npos);
  // Nodes inside a child graph cannot be named by cuGraphExecKernelNodeSetParams.
  EXPECT_EQ(summary->kernel_nodes[0], 0u);
  EXPECT_EQ(summary->kernel_nodes[1], 0u);
}

TEST_F(GraphInspectorTest, a_host_node_is_reported_and_declined) {
  ASSERT_CUDART(cudaMalloc(&a_, kN * sizeof(unsigned)));
  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream_);
  ASSERT_CUDART(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  graph_fill_kernel<<<4, 256, 0, s>>>(a_, kN, 1);
  ASSERT_CUDART(cudaLaunchHostFunc(s, host_noop, nullptr));
  ASSERT_CUDART(cudaStreamEndCapture(s, &graph_));
  auto summary = inspect_graph(reinterpret_cast<CUgraph>(graph_));
  ASSERT_OK(summary.status());
  ASSERT_EQ(summary->nodes.size(), 2u);
  EXPECT_EQ(summary->nodes[1].kind, GraphNodeKind::kHost);
  EXPECT_EQ(summary->nodes[1].type_name, "CU_GRAPH_NODE_TYPE_HOST");
  EXPECT_EQ(classify_graph_nodes(summary->nodes, [](std::uint64_t, std::uint64_t) { return true; }).reason,
            DeclineReason::kHostFunctionInRange);
}

// The word at `offset` of a kernel's packed arguments.
template <class T>
T argument_at(const KernelLaunchOp& k, std::size_t offset) {
  T value{};
  if (offset + sizeof(T) <= k.arg_bytes.size()) std::memcpy(&value, k.arg_bytes.data() + offset, sizeof(T));
  return value;
}

TEST_F(GraphInspectorTest, kernel_nodes_carry_their_arguments_at_the_function_layout) {
  ASSERT_CUDART(cudaMalloc(&a_, kN * sizeof(unsigned)));
  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream_);
  ASSERT_CUDART(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  graph_fill_kernel<<<8, 128, 0, s>>>(a_, kN, 7);
  graph_increment_kernel<<<4, 256, 0, s>>>(a_ + 5, kN - 5);
  ASSERT_CUDART(cudaStreamEndCapture(s, &graph_));

  auto summary = inspect_graph(reinterpret_cast<CUgraph>(graph_));
  ASSERT_OK(summary.status());
  ASSERT_EQ(summary->kernels.size(), 2u);
  // graph_fill_kernel(unsigned* out, unsigned n, unsigned value)
  const KernelLaunchOp& fill = summary->kernels[0];
  EXPECT_TRUE(fill.arguments_unknown.empty()) << fill.arguments_unknown;
  EXPECT_EQ(fill.arg_offsets, (std::vector<std::uint32_t>{0, 8, 12}));
  EXPECT_EQ(fill.arg_sizes, (std::vector<std::uint32_t>{8, 4, 4}));
  ASSERT_EQ(fill.arg_bytes.size(), 16u);
  EXPECT_EQ(argument_at<std::uint64_t>(fill, 0), reinterpret_cast<std::uint64_t>(a_));
  EXPECT_EQ(argument_at<unsigned>(fill, 8), kN);
  EXPECT_EQ(argument_at<unsigned>(fill, 12), 7u);
  // graph_increment_kernel(unsigned* data, unsigned n)
  const KernelLaunchOp& increment = summary->kernels[1];
  EXPECT_TRUE(increment.arguments_unknown.empty()) << increment.arguments_unknown;
  EXPECT_EQ(increment.arg_offsets, (std::vector<std::uint32_t>{0, 8}));
  ASSERT_EQ(increment.arg_bytes.size(), 12u);
  EXPECT_EQ(argument_at<std::uint64_t>(increment, 0), reinterpret_cast<std::uint64_t>(a_ + 5));
  EXPECT_EQ(argument_at<unsigned>(increment, 8), kN - 5);
  // What the pointer scan does with them at a graph launch.
  const std::vector<MemoryRange> buffers = {
      MemoryRange(DevicePtr(reinterpret_cast<std::uint64_t>(a_)), kN * sizeof(unsigned))};
  EXPECT_EQ(ranges_pointed_into(increment.arg_bytes, buffers), (std::vector<std::size_t>{0}));
}

TEST_F(GraphInspectorTest, a_device_updatable_kernel_node_has_unknown_arguments) {
  ASSERT_CUDART(cudaMalloc(&a_, kN * sizeof(unsigned)));
  ASSERT_CUDART(cudaGraphCreate(&graph_, 0));
  unsigned* data = a_;
  unsigned n = kN;
  void* args[] = {&data, &n};
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(graph_increment_kernel);
  p.gridDim = dim3(4);
  p.blockDim = dim3(256);
  p.kernelParams = args;
  cudaGraphNode_t updatable = nullptr, plain = nullptr;
  ASSERT_CUDART(cudaGraphAddKernelNode(&updatable, graph_, nullptr, 0, &p));
  ASSERT_CUDART(cudaGraphAddKernelNode(&plain, graph_, &updatable, 1, &p));
  cudaLaunchAttributeValue value{};
  value.deviceUpdatableKernelNode.deviceUpdatable = 1;
  const cudaError_t set =
      cudaGraphKernelNodeSetAttribute(updatable, cudaLaunchAttributeDeviceUpdatableKernelNode, &value);
  if (set == cudaErrorNotSupported) {
    (void)cudaGetLastError();
    GTEST_SKIP() << "device-updatable kernel nodes are not supported here";
  }
  ASSERT_EQ(set, cudaSuccess) << cudaGetErrorString(set);

  auto summary = inspect_graph(reinterpret_cast<CUgraph>(graph_));
  ASSERT_OK(summary.status());
  ASSERT_EQ(summary->kernels.size(), 2u);
  EXPECT_NE(summary->kernels[0].arguments_unknown.find("device-updatable"), std::string::npos)
      << summary->kernels[0].arguments_unknown;
  EXPECT_TRUE(summary->kernels[0].arg_bytes.empty());
  EXPECT_TRUE(summary->kernels[1].arguments_unknown.empty()) << summary->kernels[1].arguments_unknown;
  EXPECT_EQ(argument_at<std::uint64_t>(summary->kernels[1], 0), reinterpret_cast<std::uint64_t>(a_));
}

// XLA's command buffers join kernels with programmatic edges (the downstream
// kernel may start at the upstream's trigger); the driver hands out such an
// edge only with its data. The increment node is created first, so only the
// edge puts the fill before it.
TEST_F(GraphInspectorTest, a_programmatic_edge_orders_its_kernels) {
  ASSERT_CUDART(cudaMalloc(&a_, kN * sizeof(unsigned)));
  ASSERT_CUDART(cudaGraphCreate(&graph_, 0));
  unsigned* data = a_;
  unsigned n = kN;
  unsigned value = 7;
  void* increment_args[] = {&data, &n};
  void* fill_args[] = {&data, &n, &value};
  cudaKernelNodeParams p{};
  p.gridDim = dim3(4);
  p.blockDim = dim3(256);
  p.func = reinterpret_cast<void*>(graph_increment_kernel);
  p.kernelParams = increment_args;
  cudaGraphNode_t increment = nullptr, fill = nullptr;
  ASSERT_CUDART(cudaGraphAddKernelNode(&increment, graph_, nullptr, 0, &p));
  p.func = reinterpret_cast<void*>(graph_fill_kernel);
  p.kernelParams = fill_args;
  ASSERT_CUDART(cudaGraphAddKernelNode(&fill, graph_, nullptr, 0, &p));
  cudaGraphEdgeData edge{};
  edge.from_port = cudaGraphKernelNodePortProgrammatic;
  edge.type = cudaGraphDependencyTypeProgrammatic;
  int device = 0;
  int major = 0;
  ASSERT_CUDART(cudaGetDevice(&device));
  ASSERT_CUDART(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  const cudaError_t added = cudaGraphAddDependencies(graph_, &fill, &increment, &edge, 1);
  if (added == cudaErrorNotSupported || (added == cudaErrorInvalidValue && major < 9)) {
    (void)cudaGetLastError();
    GTEST_SKIP() << "programmatic edges are not supported here: " << cudaGetErrorString(added);
  }
  ASSERT_EQ(added, cudaSuccess) << cudaGetErrorString(added);

  auto summary = inspect_graph(reinterpret_cast<CUgraph>(graph_));
  ASSERT_OK(summary.status());
  ASSERT_EQ(summary->kernels.size(), 2u);
  EXPECT_NE(summary->kernels[0].name.find("graph_fill_kernel"), std::string::npos) << summary->kernels[0].name;
  EXPECT_NE(summary->kernels[1].name.find("graph_increment_kernel"), std::string::npos) << summary->kernels[1].name;
}

TEST_F(GraphInspectorTest, kernel_of_node_params_reads_the_arguments_a_set_params_call_passes) {
  // What the tool reads at the exit of cuGraphExecKernelNodeSetParams.
  CUfunction f = nullptr;
  ASSERT_CUDART(
      cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&f), reinterpret_cast<const void*>(graph_fill_kernel)));
  auto* out = reinterpret_cast<unsigned*>(0x7f0012345000ULL);
  unsigned n = 33, value = 9;
  void* args[] = {&out, &n, &value};
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = f;
  p.gridDimX = 2;
  p.gridDimY = 1;
  p.gridDimZ = 1;
  p.blockDimX = 64;
  p.blockDimY = 1;
  p.blockDimZ = 1;
  p.kernelParams = args;
  auto k = kernel_of_node_params(p);
  ASSERT_OK(k.status());
  EXPECT_NE(k->name.find("graph_fill_kernel"), std::string::npos) << k->name;
  EXPECT_EQ(k->grid[0], 2u);
  EXPECT_EQ(k->block[0], 64u);
  EXPECT_TRUE(k->arguments_unknown.empty()) << k->arguments_unknown;
  ASSERT_EQ(k->arg_bytes.size(), 16u);
  EXPECT_EQ(argument_at<std::uint64_t>(*k, 0), 0x7f0012345000ULL);
  EXPECT_EQ(argument_at<unsigned>(*k, 8), 33u);
  EXPECT_EQ(argument_at<unsigned>(*k, 12), 9u);
}

TEST_F(GraphInspectorTest, the_replayer_relaunches_an_executable_graph) {
  ASSERT_CUDART(cudaMalloc(&a_, kN * sizeof(unsigned)));
  ASSERT_CUDART(cudaMemset(a_, 0, kN * sizeof(unsigned)));
  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream_);
  ASSERT_CUDART(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  graph_increment_kernel<<<4, 256, 0, s>>>(a_, kN);
  graph_increment_kernel<<<4, 256, 0, s>>>(a_, kN);
  ASSERT_CUDART(cudaStreamEndCapture(s, &graph_));
  ASSERT_CUDART(cudaGraphInstantiate(&exec_, graph_, 0));
  ASSERT_CUDART(cudaGraphLaunch(exec_, s));  // the application's launch: every element 2

  RecordedProgram program;
  program.ops.emplace_back(GraphLaunchOp{reinterpret_cast<std::uint64_t>(exec_), 0, nullptr});
  auto replayer = Replayer::create(program);
  ASSERT_OK(replayer.status());
  EXPECT_EQ(replayer->op_count(), 1u);
  ASSERT_OK(replayer->submit(stream_));  // one replay: every element 4
  ASSERT_OK(replayer->submit(stream_));  // another: 6
  ASSERT_CU(cuStreamSynchronize(stream_));
  std::vector<unsigned> host(kN, 0);
  ASSERT_CUDART(cudaMemcpy(host.data(), a_, kN * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(host[i], 6u) << "element " << i;
}

}  // namespace
}  // namespace rangereplay
