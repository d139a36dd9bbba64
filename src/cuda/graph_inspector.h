// GraphInspector: reads a CUDA graph's nodes through the driver, once, when
// the application instantiates it (graph launches are replayed as a unit,
// and the report names the kernels they ran).
//
//   RR_ASSIGN_OR_RETURN(GraphSummary s, inspect_graph(graph));
//   GraphVerdict v = classify_graph_nodes(s.nodes, tracked);   // core/record/graph_nodes.h
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

#include "core/base/status.h"
#include "core/record/graph_nodes.h"
#include "core/record/graph_summary.h"
#include "core/record/recorded_program.h"

namespace rangereplay {

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
