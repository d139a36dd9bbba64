// CUDA graphs in ranges: a graph launch is one
// recorded op, replayed with cuGraphLaunch on the tool's stream while the
// application's executable graph exists.
//
// What an exec runs is read from its source graph when it is instantiated
// (the exec is a copy of the graph at that moment; the application may
// destroy the graph right after), re-read when cuGraphExecUpdate gives it a
// new graph, and patched when a kernel node's parameters are set
// (cuGraphExecKernelNodeSetParams, cuGraphExecNodeSetParams for a kernel
// node), arguments included, so the pointer scan (host_regions.cpp) reads the
// arguments the exec runs with. Other changes to an exec's nodes mark its
// summary unknown, so a later launch in a range declines instead of trusting
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
#include "tool/profiler_tool.h"

namespace rangereplay::tool {

namespace {

bool is_instantiate(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz:
      return true;
    default:
      return false;
  }
}

// The new exec and source graph of a successful instantiation (API exit):
// every instantiate parameter struct starts {CUgraphExec*, CUgraph, ...}.
template <class Params>
std::pair<CUgraphExec, CUgraph> exec_and_graph(const void* params) {
  const auto* p = static_cast<const Params*>(params);
  return {p->phGraphExec != nullptr ? *p->phGraphExec : nullptr, p->hGraph};
}

std::pair<CUgraphExec, CUgraph> instantiated(CUpti_CallbackId cbid, const void* params) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate: return exec_and_graph<cuGraphInstantiate_params>(params);
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2: return exec_and_graph<cuGraphInstantiate_v2_params>(params);
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags:
      return exec_and_graph<cuGraphInstantiateWithFlags_params>(params);
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams:
      return exec_and_graph<cuGraphInstantiateWithParams_params>(params);
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz:
      return exec_and_graph<cuGraphInstantiateWithParams_ptsz_params>(params);
    default: return {nullptr, nullptr};
  }
}

// The fields every kernel node parameter struct version has (v1 lacks kern and ctx).
template <class Params>
CUDA_KERNEL_NODE_PARAMS common_kernel_fields(const Params& v) {
  CUDA_KERNEL_NODE_PARAMS k{};
  k.func = v.func;
  k.gridDimX = v.gridDimX; k.gridDimY = v.gridDimY; k.gridDimZ = v.gridDimZ;
  k.blockDimX = v.blockDimX; k.blockDimY = v.blockDimY; k.blockDimZ = v.blockDimZ;
  k.sharedMemBytes = v.sharedMemBytes;
  k.kernelParams = v.kernelParams;
  k.extra = v.extra;
  return k;
}

// The node and new parameters of a call that sets one kernel node's
// parameters in an executable graph: cuGraphExecKernelNodeSetParams (v1
// struct: no CUkernel), its _v2, and cuGraphExecNodeSetParams for a kernel
// node (CUDA_KERNEL_NODE_PARAMS_v3, the same fields). nullopt for other
// calls, other node types, and null parameters (the call fails).
std::optional<std::pair<CUgraphNode, CUDA_KERNEL_NODE_PARAMS>> kernel_node_change(CUpti_CallbackId cbid,
                                                                                   const void* params) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams: {
      const auto* p = static_cast<const cuGraphExecKernelNodeSetParams_params*>(params);
      if (p->nodeParams == nullptr) return std::nullopt;
      return std::make_pair(p->hNode, common_kernel_fields(*p->nodeParams));
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2: {
      const auto* p = static_cast<const cuGraphExecKernelNodeSetParams_v2_params*>(params);
      if (p->nodeParams == nullptr) return std::nullopt;
      return std::make_pair(p->hNode, *p->nodeParams);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams: {
      const auto* p = static_cast<const cuGraphExecNodeSetParams_params*>(params);
      if (p->nodeParams == nullptr || p->nodeParams->type != CU_GRAPH_NODE_TYPE_KERNEL) return std::nullopt;
      const CUDA_KERNEL_NODE_PARAMS_v3& v3 = p->nodeParams->kernel;
      CUDA_KERNEL_NODE_PARAMS k = common_kernel_fields(v3);
      k.kern = v3.kern;
      k.ctx = v3.ctx;
      return std::make_pair(p->hNode, k);
    }
    default:
      return std::nullopt;
  }
}

bool sets_kernel_node_params(CUpti_CallbackId cbid) {
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2;
}

}  // namespace

ProfilerTool::GraphExecInfo ProfilerTool::summarize_graph(CUgraph graph, const char* call) {
  GraphExecInfo info;
  if (auto summary = inspect_graph(graph); summary.ok()) {
    info.kernels = std::make_shared<const std::vector<KernelLaunchOp>>(std::move(summary->kernels));
    info.kernel_nodes = std::move(summary->kernel_nodes);
    info.nodes = std::move(summary->nodes);
  } else {
    info.unknown = "its graph could not be read at " + std::string(call) + ": " + summary.status().message();
  }
  return info;
}

void ProfilerTool::on_graph_exec_api(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  const bool enter = data->callbackSite == CUPTI_API_ENTER;
  const bool succeeded = call_succeeded(data);
  if (is_instantiate(cbid)) {
    if (!succeeded) return;
    auto [exec, graph] = instantiated(cbid, data->functionParams);
    if (exec == nullptr || graph == nullptr) return;
    // The graph is read before the lock is taken: no driver call is made
    // while holding it here.
    InToolScope scope;
    GraphExecInfo info = summarize_graph(graph, data->functionName);
    ToolLock lock = lock_tool(data->functionName);
    graph_execs_[exec] = std::move(info);
    return;
  }

  // Every other call routed here takes the exec as its first parameter.
  const CUgraphExec exec = *static_cast<const CUgraphExec*>(data->functionParams);
  const bool update = cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate ||
                      cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2;
  if (!enter) {
    // An update or a kernel node's new parameters take effect once the call
    // has succeeded: follow them then (a failed call leaves the exec as it was).
    if (!succeeded) return;
    if (!update) {
      const auto change = kernel_node_change(cbid, data->functionParams);
      if (!change) return;
      ToolLock lock = lock_tool(data->functionName);
      // Driver calls made while holding mutex_ must not reach our own callbacks.
      InToolScope scope;
      follow_kernel_node(exec, change->first, change->second, data->functionName);
      return;
    }
    const CUgraph graph = cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate
                              ? static_cast<const cuGraphExecUpdate_params*>(data->functionParams)->hGraph
                              : static_cast<const cuGraphExecUpdate_v2_params*>(data->functionParams)->hGraph;
    InToolScope scope;
    GraphExecInfo info = summarize_graph(graph, data->functionName);
    ToolLock lock = lock_tool(data->functionName);
    graph_execs_[exec] = std::move(info);
    return;
  }

  ToolLock lock = lock_tool(data->functionName);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  if (active_ && active_->profiled && !active_->eligibility.declined()) {
    const auto launched = active_->program.graph_execs();
    if (std::find(launched.begin(), launched.end(), reinterpret_cast<std::uint64_t>(exec)) != launched.end()) {
      if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy) {
        decline(*active_, DeclineReason::kGraphDestroyedInRange,
                "cuGraphExecDestroy of an executable graph launched in the range");
      } else {
        decline(*active_, DeclineReason::kUnsupportedApi,
                std::string(data->functionName) + " on an executable graph launched in the range");
      }
    }
  }
  auto it = graph_execs_.find(exec);
  if (it == graph_execs_.end()) return;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy:
      graph_execs_.erase(it);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2:
      return;  // re-read at the exit, if it succeeds
    default:
      // A kernel node's new parameters: followed at the exit, if it succeeds.
      if (sets_kernel_node_params(cbid) || kernel_node_change(cbid, data->functionParams)) return;
      // Memcpy/memset/host/child/event/semaphore/batch-memop/generic node
      // changes and cuGraphNodeSetEnabled: the node list no longer describes
      // the exec.
      it->second.unknown = std::string(data->functionName) + " changed the executable graph after instantiation";
      return;
  }
}

void ProfilerTool::follow_kernel_node(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS& params,
                                      const char* call) {
  auto it = graph_execs_.find(exec);
  if (it == graph_execs_.end()) return;
  GraphExecInfo& info = it->second;
  if (!info.unknown.empty() || !info.kernels) return;
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

void ProfilerTool::record_graph_launch(const CUpti_CallbackData* data) {
  // cuGraphLaunch_params and cuGraphLaunch_ptsz_params: {exec, stream}.
  const auto* p = static_cast<const cuGraphLaunch_params*>(data->functionParams);
  auto it = graph_execs_.find(p->hGraph);
  if (it == graph_execs_.end()) {
    decline(*active_, DeclineReason::kUnsupportedApi,
            std::string(data->functionName) + " of an executable graph whose instantiation the tool did not see");
    return;
  }
  const GraphExecInfo& info = it->second;
  if (!info.unknown.empty()) {
    decline(*active_, DeclineReason::kUnsupportedApi, std::string(data->functionName) + " of a graph: " + info.unknown);
    return;
  }
  GraphVerdict verdict = classify_graph_nodes(info.nodes, [&](std::uint64_t address, std::uint64_t bytes) {
    if (bytes == 0) return true;
    auto a = inventory_.find_containing(DevicePtr(address));
    return a.has_value() && a->range.contains(MemoryRange(DevicePtr(address), bytes));
  });
  if (verdict.reason) {
    decline(*active_, *verdict.reason, std::move(verdict.detail));
    return;
  }
  if (info.kernels) {
    for (const KernelLaunchOp& k : *info.kernels) {
      auto globals = modules_.globals_of(k.name);
      if (!globals) continue;
      if (Status g = track_module_globals_of(reinterpret_cast<CUfunction>(k.function), *globals); !g.ok()) {
        decline(*active_, DeclineReason::kModuleGlobalsInRange,
                "graph kernel " + report::demangle(k.name) + " is in a module with __device__ variables (" +
                    globals->names + ") that could not be snapshotted: " + g.message());
        return;
      }
    }
  }
  GraphLaunchOp op;
  op.exec = reinterpret_cast<std::uint64_t>(p->hGraph);
  op.stream = reinterpret_cast<std::uint64_t>(p->hStream);
  op.kernels = info.kernels;
  active_->program.ops.emplace_back(std::move(op));
}

}  // namespace rangereplay::tool
