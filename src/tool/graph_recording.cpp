// RecordSession's CUDA graphs, and GraphExecTable's members: a graph launch
// in a range is one recorded op, replayed with cuGraphLaunch on the tool's
// stream while the application's executable graph exists.
//
// What an exec runs is read from its source graph when it is instantiated
// (the exec is a copy of the graph at that moment; the application may
// destroy the graph right after), re-read when cuGraphExecUpdate gives it a
// new graph, and patched when a kernel node's parameters are set
// (cuGraphExecKernelNodeSetParams, cuGraphExecNodeSetParams for a kernel
// node), arguments included, so the pointer scan (host_regions.cpp) reads the
// arguments the exec runs with. Other changes to an exec's nodes mark its
// entry unknown, so a later launch in a range declines instead of trusting
// it; a device-updatable kernel node's arguments are unknown from the start
// (kernels may change them), and that node is left out of the scan. Inside a
// range, destroying or changing an exec the range launched declines the
// range: the replay would launch a different graph, or none.
#include <cupti.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "cuda/graph_inspector.h"
#include "report/demangle.h"
#include "tool/graph_execs.h"
#include "tool/module_globals.h"
#include "tool/record_session.h"

namespace rangereplay::tool {

GraphExecTable::Entry GraphExecTable::summarize(CUgraph graph, const char* call) {
  Entry info;
  if (auto summary = inspect_graph(graph); summary.ok()) {
    info.kernels = std::make_shared<const std::vector<KernelLaunchOp>>(std::move(summary->kernels));
    info.kernel_nodes = std::move(summary->kernel_nodes);
    info.nodes = std::move(summary->nodes);
  } else {
    info.unknown = "its graph could not be read at " + std::string(call) + ": " + summary.status().message();
  }
  return info;
}

void RecordSession::on_graph_exec_api(const DriverCall& call, const CUpti_CallbackData* data) {
  const bool enter = data->callbackSite == CUPTI_API_ENTER;
  const bool succeeded = call_succeeded(data);
  if (call.kind == CallKind::kGraphInstantiate) {
    if (!succeeded) return;
    const GraphExecParams p = call.decode(data->functionParams).graph;
    const CUgraphExec exec = p.exec_out != nullptr ? *p.exec_out : nullptr;
    if (exec == nullptr || p.graph == nullptr) return;
    // The graph is read before the lock is taken: no driver call is made
    // while holding it here.
    InToolScope scope;
    GraphExecTable::Entry info = GraphExecTable::summarize(p.graph, data->functionName);
    ToolLock lock = lock_tool(data->functionName);
    graph_execs_.set(exec, std::move(info));
    return;
  }

  const GraphExecParams p = call.decode(data->functionParams).graph;
  const CUgraphExec exec = p.exec;
  const bool update = call.kind == CallKind::kGraphExecUpdate;
  if (!enter) {
    // An update or a kernel node's new parameters take effect once the call
    // has succeeded: follow them then (a failed call leaves the exec as it was).
    if (!succeeded) return;
    if (call.kind == CallKind::kGraphExecChildGraph) {
      // The new child graph is read before the lock is taken.
      InToolScope scope;
      StatusOr<GraphSummary> child = inspect_graph(p.graph);
      ToolLock lock = lock_tool(data->functionName);
      graph_execs_.follow_child_graph(exec, p.node, std::move(child), data->functionName);
      return;
    }
    if (!update) {
      if (!p.kernel_node) return;
      ToolLock lock = lock_tool(data->functionName);
      // Driver calls made while holding mutex_ must not reach our own callbacks.
      InToolScope scope;
      graph_execs_.follow_kernel_node(exec, p.node, *p.kernel_node, data->functionName);
      return;
    }
    InToolScope scope;
    GraphExecTable::Entry info = GraphExecTable::summarize(p.graph, data->functionName);
    ToolLock lock = lock_tool(data->functionName);
    graph_execs_.set(exec, std::move(info));
    return;
  }

  ToolLock lock = lock_tool(data->functionName);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  if (ActiveRange* range = recording(); range != nullptr && call.reason) {
    const auto launched = range->program.graph_execs();
    if (std::find(launched.begin(), launched.end(), reinterpret_cast<std::uint64_t>(exec)) != launched.end()) {
      range->eligibility.decline(
          *call.reason, call.kind == CallKind::kGraphExecDestroy
                            ? std::string("cuGraphExecDestroy of an executable graph launched in the range")
                            : std::string(data->functionName) + " on an executable graph launched in the range");
    }
  }
  GraphExecTable::Entry* entry = graph_execs_.find(exec);
  if (entry == nullptr) return;
  switch (call.kind) {
    case CallKind::kGraphExecDestroy: graph_execs_.erase(exec); return;
    case CallKind::kGraphExecUpdate: return;  // re-read at the exit, if it succeeds
    case CallKind::kGraphExecKernelNodeParams:
      return;  // a kernel node's new parameters: followed at the exit, if it succeeds
    case CallKind::kGraphExecChildGraph: return;  // the new child graph: read at the exit, if it succeeds
    default:
      // The same for cuGraphExecNodeSetParams on a kernel node.
      if (p.kernel_node) return;
      // Memcpy/memset/host/child/event/semaphore/batch-memop/generic node
      // changes and cuGraphNodeSetEnabled: the node list no longer describes
      // the exec.
      entry->unknown = std::string(data->functionName) + " changed the executable graph after instantiation";
      return;
  }
}

GraphExecTable::Entry* GraphExecTable::find(CUgraphExec exec) {
  auto it = entries_.find(exec);
  return it == entries_.end() ? nullptr : &it->second;
}

GraphExecTable::Entry* GraphExecTable::followable(CUgraphExec exec) {
  Entry* found = find(exec);
  return found != nullptr && found->unknown.empty() && found->kernels ? found : nullptr;
}

void GraphExecTable::follow_kernel_node(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS& params,
                                        const char* call) {
  Entry* found = followable(exec);
  if (found == nullptr) return;
  Entry& info = *found;
  const auto key = reinterpret_cast<std::uint64_t>(node);
  auto pos = std::find(info.kernel_nodes.begin(), info.kernel_nodes.end(), key);
  // The node's new kernel, grid, block and arguments (read from the call's
  // parameters, valid until it returns).
  auto kernel = kernel_of_node_params(params);
  if (key == 0 || pos == info.kernel_nodes.end() || !kernel.ok()) {
    info.unknown = std::string(call) + " changed a kernel node the tool could not follow";
    return;
  }
  const auto index = static_cast<std::size_t>(pos - info.kernel_nodes.begin());
  // A device-updatable node stays one (it cannot opt out), and its source
  // graph may be gone: the entry read at instantiation says so.
  const KernelLaunchOp& before = (*info.kernels)[index];
  if (kernel->arguments_unknown.empty() && !before.arguments_unknown.empty())
    kernel->forget_arguments(before.arguments_unknown);
  // Copy on write: earlier ranges' recorded ops keep the old list.
  auto kernels = std::make_shared<std::vector<KernelLaunchOp>>(*info.kernels);
  (*kernels)[index] = std::move(kernel).value();
  info.kernels = std::move(kernels);
}

void GraphExecTable::follow_child_graph(CUgraphExec exec, CUgraphNode node, StatusOr<GraphSummary> child,
                                        const char* call) {
  Entry* found = followable(exec);
  if (found == nullptr) return;
  Entry& info = *found;
  // Copy on write: earlier ranges' recorded ops keep the old kernel list.
  GraphSummary summary{info.nodes, *info.kernels, info.kernel_nodes};
  Status replaced = child.ok() ? replace_child_graph(summary, reinterpret_cast<std::uint64_t>(node), std::move(*child))
                               : child.status();
  if (!replaced.ok()) {
    info.unknown = std::string(call) + " changed a child graph node the tool could not follow: " + replaced.message();
    return;
  }
  info.nodes = std::move(summary.nodes);
  info.kernels = std::make_shared<const std::vector<KernelLaunchOp>>(std::move(summary.kernels));
  info.kernel_nodes = std::move(summary.kernel_nodes);
}

void RecordSession::record_graph_launch(ActiveRange& range, const CallParams& params, const CUpti_CallbackData* data) {
  const GraphExecTable::Entry* entry = graph_execs_.find(params.graph.exec);
  if (entry == nullptr) {
    range.eligibility.decline(
        DeclineReason::kUnsupportedApi,
        std::string(data->functionName) + " of an executable graph whose instantiation the tool did not see");
    return;
  }
  const GraphExecTable::Entry& info = *entry;
  if (!info.unknown.empty()) {
    range.eligibility.decline(DeclineReason::kUnsupportedApi,
                              std::string(data->functionName) + " of a graph: " + info.unknown);
    return;
  }
  GraphVerdict verdict = classify_graph_nodes(info.nodes, [&](std::uint64_t address, std::uint64_t bytes) {
    if (bytes == 0) return true;
    auto a = inventory_.find_containing(DevicePtr(address));
    return a.has_value() && a->range.contains(MemoryRange(DevicePtr(address), bytes));
  });
  if (verdict.reason) {
    range.eligibility.decline(*verdict.reason, std::move(verdict.detail));
    return;
  }
  if (info.kernels) {
    for (const KernelLaunchOp& k : *info.kernels) {
      decline_collective(range, k.name, "graph kernel", config_.collectives);
      auto globals = modules_.globals_of(k.name);
      if (!globals) continue;
      if (captures_.open_or_beginning()) {
        // Copying them is a synchronous call, which an open capture forbids
        // (so is one another thread is beginning: it is not registered yet).
        range.eligibility.decline(DeclineReason::kModuleGlobalsInRange,
                                  "graph kernel " + report::demangle(k.name) +
                                      " is in a module with __device__ variables (" + globals->names +
                                      "), launched while a stream capture was open: copying them would invalidate "
                                      "the capture");
        return;
      }
      if (Status g = track_module_globals(range, reinterpret_cast<CUfunction>(k.function), *globals); !g.ok()) {
        range.eligibility.decline(DeclineReason::kModuleGlobalsInRange,
                                  "graph kernel " + report::demangle(k.name) +
                                      " is in a module with __device__ variables (" + globals->names +
                                      ") that could not be snapshotted: " + g.message());
        return;
      }
    }
  }
  GraphLaunchOp op;
  op.exec = reinterpret_cast<std::uint64_t>(params.graph.exec);
  op.stream = reinterpret_cast<std::uint64_t>(params.stream.value_or(nullptr));
  op.kernels = info.kernels;
  range_recorder(range).record_graph_launch(std::move(op));
}

}  // namespace rangereplay::tool
