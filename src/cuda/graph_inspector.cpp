// Reading a CUDA graph's nodes for the recorder (see graph_inspector.h).
#include "cuda/graph_inspector.h"

#include <functional>
#include <queue>
#include <string>
#include <unordered_map>

#include "cuda/cu_status.h"
#include "cuda/kernel_arguments.h"
#include "cuda/launch_shape.h"

namespace rangereplay {

namespace {

constexpr int kMaxGraphDepth = 64;

GraphNodeKind kind_of(CUgraphNodeType type) {
  switch (type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: return GraphNodeKind::kKernel;
    case CU_GRAPH_NODE_TYPE_MEMCPY: return GraphNodeKind::kMemcpy;
    case CU_GRAPH_NODE_TYPE_MEMSET: return GraphNodeKind::kMemset;
    case CU_GRAPH_NODE_TYPE_HOST: return GraphNodeKind::kHost;
    case CU_GRAPH_NODE_TYPE_GRAPH: return GraphNodeKind::kChildGraph;
    case CU_GRAPH_NODE_TYPE_EMPTY: return GraphNodeKind::kEmpty;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return GraphNodeKind::kEventWait;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return GraphNodeKind::kEventRecord;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: return GraphNodeKind::kMemAlloc;
    case CU_GRAPH_NODE_TYPE_MEM_FREE: return GraphNodeKind::kMemFree;
    default: return GraphNodeKind::kOther;
  }
}

// The span one side of a 3D copy touches: from its first byte to its last,
// rows and slices at their pitch. A zero-sized copy touches 0 bytes.
GraphCopySide copy_side(CUmemorytype type, const void* host, CUdeviceptr device, CUarray array, std::size_t x,
                        std::size_t y, std::size_t z, std::size_t pitch, std::size_t height, std::size_t width,
                        std::size_t rows, std::size_t depth) {
  GraphCopySide side;
  if (type == CU_MEMORYTYPE_ARRAY || array != nullptr) {
    side.array = true;
    return side;
  }
  const std::uint64_t base =
      type == CU_MEMORYTYPE_HOST ? reinterpret_cast<std::uint64_t>(host) : static_cast<std::uint64_t>(device);
  const std::uint64_t row_pitch = pitch != 0 ? pitch : width;
  const std::uint64_t slice_rows = height != 0 ? height : rows;
  side.address = base + x + y * row_pitch + z * row_pitch * slice_rows;
  if (width == 0 || rows == 0 || depth == 0) return side;
  side.bytes = (depth - 1) * row_pitch * slice_rows + (rows - 1) * row_pitch + width;
  return side;
}

struct Walker {
  GraphSummary* out;

  Status walk(CUgraph graph, int depth, bool top_level) {
    if (depth > kMaxGraphDepth) return invalid_argument("graph nested more than 64 levels deep");
    std::size_t count = 0;
    RR_CU(cuGraphGetNodes(graph, nullptr, &count));
    std::vector<CUgraphNode> nodes(count);
    if (count) RR_CU(cuGraphGetNodes(graph, nodes.data(), &count));
    nodes.resize(count);
    RR_ASSIGN_OR_RETURN(std::vector<CUgraphNode> order, topological(graph, nodes));
    for (CUgraphNode node : order) {
      CUgraphNodeType type{};
      RR_CU(cuGraphNodeGetType(node, &type));
      GraphNode n;
      n.kind = kind_of(type);
      n.type_name = graph_node_type_name(type);
      switch (n.kind) {
        case GraphNodeKind::kKernel: {
          CUDA_KERNEL_NODE_PARAMS p{};
          RR_CU(cuGraphKernelNodeGetParams(node, &p));
          RR_ASSIGN_OR_RETURN(KernelLaunchOp k, kernel_of_node_params(p));
          if (std::string risk = device_update_risk(node); !risk.empty()) k.forget_arguments(std::move(risk));
          out->kernels.push_back(std::move(k));
          out->kernel_nodes.push_back(top_level ? reinterpret_cast<std::uint64_t>(node) : 0);
          break;
        }
        case GraphNodeKind::kMemcpy: {
          CUDA_MEMCPY3D p{};
          RR_CU(cuGraphMemcpyNodeGetParams(node, &p));
          n.src = copy_side(p.srcMemoryType, p.srcHost, p.srcDevice, p.srcArray, p.srcXInBytes, p.srcY, p.srcZ,
                            p.srcPitch, p.srcHeight, p.WidthInBytes, p.Height, p.Depth);
          n.dst = copy_side(p.dstMemoryType, p.dstHost, p.dstDevice, p.dstArray, p.dstXInBytes, p.dstY, p.dstZ,
                            p.dstPitch, p.dstHeight, p.WidthInBytes, p.Height, p.Depth);
          break;
        }
        case GraphNodeKind::kMemset: {
          CUDA_MEMSET_NODE_PARAMS p{};
          RR_CU(cuGraphMemsetNodeGetParams(node, &p));
          n.dst.address = p.dst;
          const std::uint64_t row = static_cast<std::uint64_t>(p.width) * p.elementSize;
          n.dst.bytes = (p.width == 0 || p.height == 0) ? 0 : (p.height - 1) * p.pitch + row;
          break;
        }
        default: break;
      }
      if (top_level) n.handle = reinterpret_cast<std::uint64_t>(node);
      out->nodes.push_back(std::move(n));
      if (type == CU_GRAPH_NODE_TYPE_GRAPH) {
        const std::size_t index = out->nodes.size() - 1;
        CUgraph child = nullptr;
        RR_CU(cuGraphChildGraphNodeGetGraph(node, &child));
        RR_RETURN_IF_ERROR(walk(child, depth + 1, /*top_level=*/false));
        out->nodes[index].descendants = out->nodes.size() - index - 1;
      }
    }
    return ok_status();
  }

  // Kahn's algorithm over the graph's edges; among ready nodes the one
  // created first (lowest index in cuGraphGetNodes) goes first, so a linear
  // chain (stream capture) keeps its launch order.
  static StatusOr<std::vector<CUgraphNode>> topological(CUgraph graph, const std::vector<CUgraphNode>& nodes) {
    std::size_t edges = 0;
    RR_CU(cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
    std::vector<CUgraphNode> from(edges), to(edges);
    // The edges' data is asked for too: without it the driver refuses a graph
    // with programmatic edges (CUDA_ERROR_LOSSY_QUERY; XLA's command buffers
    // have them). Every edge type orders its two nodes, and a replay that runs
    // the downstream node after the upstream one has completed meets a
    // programmatic edge (which lets it start at the upstream's trigger) too.
    std::vector<CUgraphEdgeData> data(edges);
    if (edges) RR_CU(cuGraphGetEdges(graph, from.data(), to.data(), data.data(), &edges));
    std::unordered_map<CUgraphNode, std::size_t> index;
    for (std::size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i], i);
    std::vector<std::vector<std::size_t>> successors(nodes.size());
    std::vector<std::size_t> indegree(nodes.size(), 0);
    for (std::size_t e = 0; e < edges; ++e) {
      auto f = index.find(from[e]);
      auto t = index.find(to[e]);
      if (f == index.end() || t == index.end()) continue;
      successors[f->second].push_back(t->second);
      ++indegree[t->second];
    }
    // Min-heap of ready node indices: the earliest-created ready node first.
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (indegree[i] == 0) ready.push(i);
    std::vector<CUgraphNode> order;
    order.reserve(nodes.size());
    while (!ready.empty()) {
      const std::size_t i = ready.top();
      ready.pop();
      order.push_back(nodes[i]);
      for (std::size_t s : successors[i])
        if (--indegree[s] == 0) ready.push(s);
    }
    if (order.size() != nodes.size()) return internal_error("graph edges form a cycle");
    return order;
  }
};

}  // namespace

const char* graph_node_type_name(CUgraphNodeType type) {
  switch (type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: return "CU_GRAPH_NODE_TYPE_KERNEL";
    case CU_GRAPH_NODE_TYPE_MEMCPY: return "CU_GRAPH_NODE_TYPE_MEMCPY";
    case CU_GRAPH_NODE_TYPE_MEMSET: return "CU_GRAPH_NODE_TYPE_MEMSET";
    case CU_GRAPH_NODE_TYPE_HOST: return "CU_GRAPH_NODE_TYPE_HOST";
    case CU_GRAPH_NODE_TYPE_GRAPH: return "CU_GRAPH_NODE_TYPE_GRAPH";
    case CU_GRAPH_NODE_TYPE_EMPTY: return "CU_GRAPH_NODE_TYPE_EMPTY";
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return "CU_GRAPH_NODE_TYPE_WAIT_EVENT";
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return "CU_GRAPH_NODE_TYPE_EVENT_RECORD";
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL: return "CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL";
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT: return "CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT";
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: return "CU_GRAPH_NODE_TYPE_MEM_ALLOC";
    case CU_GRAPH_NODE_TYPE_MEM_FREE: return "CU_GRAPH_NODE_TYPE_MEM_FREE";
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP: return "CU_GRAPH_NODE_TYPE_BATCH_MEM_OP";
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: return "CU_GRAPH_NODE_TYPE_CONDITIONAL";
    default: return "CU_GRAPH_NODE_TYPE_(unknown)";
  }
}

StatusOr<KernelLaunchOp> kernel_of_node_params(const CUDA_KERNEL_NODE_PARAMS& p) {
  KernelLaunchOp k;
  const char* name = nullptr;
  if (p.func != nullptr) {
    RR_CU(cuFuncGetName(&name, p.func));
    k.function = reinterpret_cast<std::uint64_t>(p.func);
  } else {
    RR_CU(cuKernelGetName(&name, p.kern));
    k.function = reinterpret_cast<std::uint64_t>(p.kern);
  }
  k.name = name != nullptr ? name : "";
  cu::copy_launch_shape(p, k);
  // The layout is the function's: a CUkernel handle is accepted in its place
  // (kernel_param_layout tries it as one).
  const CUfunction f = p.func != nullptr ? p.func : reinterpret_cast<CUfunction>(p.kern);
  if (Status s = copy_kernel_arguments(f, p.kernelParams, p.extra, &k); !s.ok())
    k.forget_arguments("its arguments could not be read: " + s.message());
  return k;
}

std::string device_update_risk(CUgraphNode node) {
  CUkernelNodeAttrValue value{};
  const CUresult r = cuGraphKernelNodeGetAttribute(node, CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE, &value);
  if (r != CUDA_SUCCESS)
    return "whether kernels may update its arguments could not be read: " +
           cu_status(r, "cuGraphKernelNodeGetAttribute", __FILE__, __LINE__).message();
  if (value.deviceUpdatableKernelNode.deviceUpdatable != 0)
    return "it is a device-updatable kernel node: kernels may change its arguments";
  return "";
}

StatusOr<GraphSummary> inspect_graph(CUgraph graph) {
  GraphSummary summary;
  Walker walker{&summary};
  RR_RETURN_IF_ERROR(walker.walk(graph, 0, /*top_level=*/true));
  return summary;
}

}  // namespace rangereplay
