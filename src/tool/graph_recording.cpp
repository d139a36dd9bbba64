// CUDA graphs in ranges (MISSION.md point 3; issue 7): a graph launch is one
// recorded op, replayed with cuGraphLaunch on the tool's stream while the
// application's executable graph exists.
//
// What an exec runs is read from its source graph when it is instantiated
// (the exec is a copy of the graph at that moment; the application may
// destroy the graph right after), re-read when cuGraphExecUpdate gives it a
// new graph, and patched for cuGraphExecKernelNodeSetParams. Other changes to
// an exec's nodes mark its summary unknown, so a later launch in a range
// declines instead of trusting it. Inside a range, destroying or changing an
// exec the range launched declines the range: the replay would launch a
// different graph, or none.
#include <cupti.h>

#include <algorithm>

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
  const bool succeeded = !enter && data->functionReturnValue != nullptr &&
                         *static_cast<const CUresult*>(data->functionReturnValue) == CUDA_SUCCESS;
  if (is_instantiate(cbid)) {
    if (!succeeded) return;
    auto [exec, graph] = instantiated(cbid, data->functionParams);
    if (exec == nullptr || graph == nullptr) return;
    std::lock_guard<std::mutex> lock(mutex_);
    // Driver calls made while holding mutex_ must not reach our own callbacks.
    InToolScope scope;
    graph_execs_[exec] = summarize_graph(graph, data->functionName);
    return;
  }

  // Every other call routed here takes the exec as its first parameter.
  const CUgraphExec exec = *static_cast<const CUgraphExec*>(data->functionParams);
  const bool update = cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate ||
                      cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2;
  if (!enter) {
    // Only an update's exit matters: the exec now runs the new graph.
    if (!update || !succeeded) return;
    const CUgraph graph = cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate
                              ? static_cast<const cuGraphExecUpdate_params*>(data->functionParams)->hGraph
                              : static_cast<const cuGraphExecUpdate_v2_params*>(data->functionParams)->hGraph;
    std::lock_guard<std::mutex> lock(mutex_);
    // Driver calls made while holding mutex_ must not reach our own callbacks.
    InToolScope scope;
    graph_execs_[exec] = summarize_graph(graph, data->functionName);
    return;
  }

  std::lock_guard<std::mutex> lock(mutex_);
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
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2: {
      // Follow the node's new kernel, grid and block (the report names them).
      CUgraphNode node = nullptr;
      CUDA_KERNEL_NODE_PARAMS params{};
      if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams) {
        const auto* p = static_cast<const cuGraphExecKernelNodeSetParams_params*>(data->functionParams);
        node = p->hNode;
        if (p->nodeParams == nullptr) return;
        params.func = p->nodeParams->func;
        params.gridDimX = p->nodeParams->gridDimX; params.gridDimY = p->nodeParams->gridDimY;
        params.gridDimZ = p->nodeParams->gridDimZ;
        params.blockDimX = p->nodeParams->blockDimX; params.blockDimY = p->nodeParams->blockDimY;
        params.blockDimZ = p->nodeParams->blockDimZ;
        params.sharedMemBytes = p->nodeParams->sharedMemBytes;
      } else {
        const auto* p = static_cast<const cuGraphExecKernelNodeSetParams_v2_params*>(data->functionParams);
        node = p->hNode;
        if (p->nodeParams == nullptr) return;
        params = *p->nodeParams;
      }
      GraphExecInfo& info = it->second;
      if (!info.unknown.empty() || !info.kernels) return;
      const auto key = reinterpret_cast<std::uint64_t>(node);
      auto pos = std::find(info.kernel_nodes.begin(), info.kernel_nodes.end(), key);
      auto kernel = kernel_of_node_params(params);
      if (key == 0 || pos == info.kernel_nodes.end() || !kernel.ok()) {
        info.unknown = std::string(data->functionName) + " changed a kernel node the tool could not follow";
        return;
      }
      // Copy on write: earlier ranges' recorded ops keep the old list.
      auto kernels = std::make_shared<std::vector<KernelLaunchOp>>(*info.kernels);
      (*kernels)[static_cast<std::size_t>(pos - info.kernel_nodes.begin())] = std::move(kernel).value();
      info.kernels = std::move(kernels);
      return;
    }
    default:
      // Memcpy/memset/host/child/event/semaphore/batch-memop/generic node
      // changes and cuGraphNodeSetEnabled: the node list no longer describes
      // the exec.
      it->second.unknown = std::string(data->functionName) + " changed the executable graph after instantiation";
      return;
  }
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
      auto globals = kernels_with_globals_.find(k.name);
      if (globals == kernels_with_globals_.end()) continue;
      if (Status g = track_module_globals_of(reinterpret_cast<CUfunction>(k.function), *globals->second); !g.ok()) {
        decline(*active_, DeclineReason::kModuleGlobalsInRange,
                "graph kernel " + report::demangle(k.name) + " is in a module with __device__ variables (" +
                    globals->second->names + ") that could not be snapshotted: " + g.message());
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
