// What the recorder knows about an executable CUDA graph, and whether a range
// that launches it can be replayed soundly (graph launches are replayed as
// one unit while the executable graph exists).
//
// The tool inspects a graph once, when it is instantiated (src/cuda/
// graph_inspector.h turns driver nodes into GraphNode values, child graphs
// flattened); this file holds the host-only decisions on those values, so
// they are tested without a GPU:
//
//   GraphVerdict v = classify_graph_nodes(nodes, [&](std::uint64_t a, std::uint64_t n) {
//     return inventory_covers(a, n);            // is [a, a+n) tracked memory?
//   });
//   if (v.reason) decline(*v.reason, v.detail);
//
// No CUDA types: addresses and handles are plain integers.
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/decline_reason.h"

namespace rangereplay {

/// A graph node's type, as far as replay soundness is concerned
/// (CUgraphNodeType folded; kOther keeps the driver's name in GraphNode::type_name).
enum class GraphNodeKind : std::uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kEventRecord,
  kEventWait,
  kEmpty,
  kChildGraph,
  kHost,
  kMemAlloc,
  kMemFree,
  kOther,
};

/// One side of a memcpy node: the bytes it touches, as one span
/// [address, address + bytes) that covers every row and slice (pitch
/// included). `array` is true for a CUDA array side (no address).
struct GraphCopySide {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  bool array = false;
};

/// One node of an executable graph (child graphs flattened into their nodes).
struct GraphNode {
  GraphNodeKind kind = GraphNodeKind::kEmpty;
  std::string type_name;   // the driver's node type, e.g. "CU_GRAPH_NODE_TYPE_HOST" (for details)
  GraphCopySide src, dst;  // kMemcpy: both sides; kMemset: dst only
  /// The node's handle in the instantiated graph's top level (an exec's node
  /// changes name it); 0 inside child graphs.
  std::uint64_t handle = 0;
  /// kChildGraph: how many nodes of its graph (recursively) follow it.
  std::size_t descendants = 0;
};

/// The verdict on a graph launched inside a range: no reason = replayable.
struct GraphVerdict {
  std::optional<DeclineReason> reason;
  std::string detail;  // names the node, e.g. "graph host node (cuLaunchHostFunc-like)"
};

/// Whether `bytes` bytes at `address` lie inside memory the range-entry
/// snapshot covers (one tracked allocation). bytes may be 0.
using TrackedMemory = std::function<bool(std::uint64_t address, std::uint64_t bytes)>;

/// Decides whether re-launching a graph with `nodes` in every replay is sound.
/// The first offending node (in `nodes` order) decides the reason:
///   kMemAlloc -> kAllocationInRange; kMemFree -> kFreeInRange;
///   kHost -> kHostFunctionInRange; kOther -> kUnsupportedApi (type named);
///   kMemcpy with a CUDA array side, or a side outside tracked memory ->
///     kUnsupportedApi (a replay would read host bytes that may have changed
///     since pass 0, or overwrite memory the snapshot does not restore);
///   kMemset whose destination is outside tracked memory -> kUnsupportedApi.
/// Kernel, event record/wait, empty and child-graph nodes are always fine
/// (their memory is the snapshot's business, like plain launches).
GraphVerdict classify_graph_nodes(std::span<const GraphNode> nodes, const TrackedMemory& tracked);

/// How the per-kernel counter ranges CUPTI returned map onto a range's
/// kernels, given `units`: for each kernel-running op in recorded order, the
/// number of kernels it ran (1 for a plain launch, its kernel-node count for
/// a graph launch) and whether it was a graph launch.
struct LaunchUnit {
  std::uint32_t kernels = 1;
  bool graph = false;
};

enum class CounterRangeLayout : std::uint8_t {
  kPerKernel,  // one counter range per kernel, graph kernel nodes included
  kPerLaunch,  // one counter range per launch: a graph launch is one range
  kMismatch,   // neither: values assigned in order as far as they go
};

struct CounterRangeMap {
  CounterRangeLayout layout = CounterRangeLayout::kMismatch;
  /// For each kernel (in kernels() order): the counter range holding its own
  /// values, or nullopt (no range, or its graph launch was measured whole).
  std::vector<std::optional<std::size_t>> kernel_range;
  /// kPerLaunch only: for each graph launch (in order), its counter range
  /// (nullopt for a graph that ran no kernel).
  std::vector<std::optional<std::size_t>> graph_range;
};

/// Maps `range_count` counter ranges onto `units`. When both layouts fit
/// (no graph launch, or every graph launch ran exactly one kernel) it is
/// kPerKernel. In kMismatch, kernel i gets range i while i < range_count.
CounterRangeMap map_counter_ranges(std::span<const LaunchUnit> units, std::size_t range_count);

}  // namespace rangereplay
