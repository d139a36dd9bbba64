// GraphSummary: what a CUDA graph runs, as the tool reads it (child graphs
// flattened), and the one edit an executable graph's summary takes when a
// child-graph node is given a new graph. Pure data and functions: the driver
// calls that read a graph are in cuda/graph_inspector.h.
//
// Thread-safety: none needed (values; the caller owns them).
#pragma once

#include <cstdint>
#include <vector>

#include "core/base/status.h"
#include "core/record/graph_nodes.h"
#include "core/record/recorded_program.h"

namespace rangereplay {

/// What a graph runs, child graphs flattened (a child graph's nodes follow
/// the child-graph node, recursively).
struct GraphSummary {
  /// Every node, for classify_graph_nodes; child-graph nodes included (as
  /// kChildGraph, followed by their own nodes: GraphNode::descendants).
  std::vector<GraphNode> nodes;
  /// Kernel nodes in a topological order of the graph's edges (creation
  /// order breaks ties), each with its mangled name (cuFuncGetName, or
  /// cuKernelGetName for a CUkernel), grid, block and dynamic shared memory;
  /// `function` is the CUfunction (or CUkernel) handle. Arguments: the
  /// node's kernelParams (or `extra` buffer) packed at the function's
  /// parameter layout, as a direct launch's are (cuda/kernel_arguments.h);
  /// `arguments_unknown` says why not for a device-updatable node or one
  /// whose layout the driver did not report. In the order of the kKernel
  /// entries of `nodes`.
  std::vector<KernelLaunchOp> kernels;
  /// The source-graph node handle of each entry of `kernels` (for
  /// cuGraphExecKernelNodeSetParams); 0 for nodes inside child graphs.
  std::vector<std::uint64_t> kernel_nodes;
};

/// Replaces what child-graph node `node` (a top-level node of `graph`,
/// GraphNode::handle) runs by `child`, the summary of its new graph: the
/// node's nodes and kernels are replaced by the child's, which are not
/// top-level nodes of `graph` (their handles and kernel_nodes become 0).
/// Errors: kNotFound when `graph` has no top-level child-graph node `node`
/// (0 included); `graph` is then unchanged.
Status replace_child_graph(GraphSummary& graph, std::uint64_t node, GraphSummary child);

}  // namespace rangereplay
