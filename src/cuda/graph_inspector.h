// GraphInspector: reads a CUDA graph's nodes through the driver, once, when
// the application instantiates it (graph launches are replayed as a unit,
// and the report names the kernels they ran).
//
//   RR_ASSIGN_OR_RETURN(GraphSummary s, inspect_graph(graph));
//   GraphVerdict v = classify_graph_nodes(s.nodes, tracked);   // core/graph_nodes.h
//
// The summary is taken from the source graph at instantiation because the
// executable graph is a copy: later edits to the source graph do not reach it,
// and the application may destroy the source graph right after instantiating.
// The caller must hold the tool's re-entrancy guard (these driver calls must
// not be observed as the application's). Thread-safety: none needed (pure
// reads of the graph; the driver serializes graph access).
#pragma once

#include <cuda.h>

#include <string>
#include <vector>

#include "core/graph_nodes.h"
#include "core/recorded_program.h"
#include "core/status.h"

namespace rangereplay {

/// What a graph runs, child graphs flattened (a child graph's nodes follow
/// the child-graph node, recursively).
struct GraphSummary {
  /// Every node, for classify_graph_nodes; child-graph nodes included (as
  /// kChildGraph, followed by their own nodes).
  std::vector<GraphNode> nodes;
  /// Kernel nodes in a topological order of the graph's edges (creation
  /// order breaks ties), each with its mangled name (cuFuncGetName, or
  /// cuKernelGetName for a CUkernel), grid, block and dynamic shared memory;
  /// `function` is the CUfunction (or CUkernel) handle. Arguments: the
  /// node's kernelParams (or `extra` buffer) packed at the function's
  /// parameter layout, as a direct launch's are (cuda/kernel_arguments.h);
  /// `arguments_unknown` says why not for a device-updatable node or one
  /// whose layout the driver did not report.
  std::vector<KernelLaunchOp> kernels;
  /// The source-graph node handle of each entry of `kernels` (for
  /// cuGraphExecKernelNodeSetParams); 0 for nodes inside child graphs.
  std::vector<std::uint64_t> kernel_nodes;
};

/// Reads `graph`. Errors: the first failing driver call (kInternal etc. via
/// cu_status); a graph nested more than 64 levels deep -> kInvalidArgument.
StatusOr<GraphSummary> inspect_graph(CUgraph graph);

/// One kernel node's parameters as a KernelLaunchOp: name, grid, block,
/// shared memory, and its arguments read from params.kernelParams (or
/// params.extra), which must be valid (the node's own, or the caller's for a
/// set-params call in flight). Arguments that cannot be read leave
/// `arguments_unknown` set instead of failing. Errors: cuFuncGetName /
/// cuKernelGetName failures.
StatusOr<KernelLaunchOp> kernel_of_node_params(const CUDA_KERNEL_NODE_PARAMS& params);

/// Why the arguments of kernel node `node` (of a live source graph) may
/// change where the host cannot see, or "" when they cannot: a
/// device-updatable node (CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE;
/// kernels update it with cudaGraphKernelNodeUpdatesApply), or one whose
/// attribute could not be read (taken as unknown).
std::string device_update_risk(CUgraphNode node);

/// A node type's name as cuda.h spells it, e.g. "CU_GRAPH_NODE_TYPE_HOST".
const char* graph_node_type_name(CUgraphNodeType type);

}  // namespace rangereplay
