// GraphExecTable: what each executable graph of the process runs, by exec
// handle. An entry is read from the source graph when the exec is
// instantiated (the exec is a copy of the graph at that moment; the
// application may destroy the graph right after), re-read when
// cuGraphExecUpdate gives it a new graph, and patched when a kernel node's
// parameters are set, arguments included, so a range's pointer scan reads
// the arguments the exec runs with, or when a child-graph node is given a
// new graph (its nodes are read again). Other changes to an exec's nodes mark
// its entry unknown, so a later launch in a range declines instead of
// trusting it.
//
// Owned by the RecordSession (tool/record_session.h).
//
// Thread-safety: none; the record session calls it under the tool's lock.
// summarize() makes driver calls (cuda/graph_inspector.h) and is called
// before that lock is taken, inside an InToolScope; follow_kernel_node
// reads the node's kernel (its name and parameter layout) under the lock,
// inside an InToolScope. Defined in graph_recording.cpp.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"
#include "core/record/graph_nodes.h"
#include "core/record/graph_summary.h"
#include "core/record/recorded_program.h"

namespace rangereplay::tool {

class GraphExecTable {
 public:
  /// What one exec runs.
  struct Entry {
    std::shared_ptr<const std::vector<KernelLaunchOp>> kernels;  // kernel nodes, for the report
    std::vector<std::uint64_t> kernel_nodes;  // source-graph node of each kernel (0 inside child graphs)
    std::vector<GraphNode> nodes;             // every node, for classify_graph_nodes
    std::string unknown;                      // non-empty: why the entry does not describe the exec (launches decline)
  };

  /// What an exec instantiated (or updated) from `graph` runs; `call` names
  /// the API in `unknown` when the graph cannot be read.
  static Entry summarize(CUgraph graph, const char* call);

  /// Sets (or replaces) `exec`'s entry.
  void set(CUgraphExec exec, Entry entry) { entries_[exec] = std::move(entry); }
  /// `exec`'s entry, or null when its instantiation was not seen.
  Entry* find(CUgraphExec exec);
  void erase(CUgraphExec exec) { entries_.erase(exec); }

  /// Patches `exec`'s entry for kernel node `node` (of its source graph) to
  /// `params` (name, grid, block, arguments, read while the call `call` that
  /// set them runs); a node it cannot follow marks the entry unknown. A
  /// device-updatable node keeps its arguments unknown.
  void follow_kernel_node(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS& params, const char* call);

  /// Patches `exec`'s entry for child-graph node `node` (of its top level)
  /// to run `child` (cuGraphExecChildGraphNodeSetParams' new graph, read
  /// while the call `call` that set it returned): the node's nodes and
  /// kernels are replaced by the child's. An unreadable child, or a node
  /// the entry does not hold, marks the entry unknown.
  void follow_child_graph(CUgraphExec exec, CUgraphNode node, StatusOr<GraphSummary> child, const char* call);

 private:
  // `exec`'s entry when it describes the exec and lists its kernels (a node
  // change can be followed), else null.
  Entry* followable(CUgraphExec exec);

  std::unordered_map<CUgraphExec, Entry> entries_;
};

}  // namespace rangereplay::tool
