// Replay soundness of graph nodes and the counter-range layout of graph
// launches (see graph_nodes.h).
#include "core/record/graph_nodes.h"

#include <cstdio>

namespace rangereplay {

namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

GraphVerdict declined(DeclineReason reason, std::string detail) { return {reason, std::move(detail)}; }

}  // namespace

GraphVerdict classify_graph_nodes(std::span<const GraphNode> nodes, const TrackedMemory& tracked) {
  for (const GraphNode& n : nodes) {
    switch (n.kind) {
      case GraphNodeKind::kEventRecord:
        // Every replay would record the application's event again (what
        // the application measures or waits on with it would be the
        // replay's).
        return declined(DeclineReason::kUnsupportedApi,
                        "cuGraphLaunch of a graph with an event-record node: every replay would record the "
                        "application's event again");
      case GraphNodeKind::kKernel:
      case GraphNodeKind::kEventWait:
      case GraphNodeKind::kEmpty:
      case GraphNodeKind::kChildGraph: break;
      case GraphNodeKind::kMemAlloc:
        return declined(DeclineReason::kAllocationInRange, "cuGraphLaunch of a graph with a memory-allocation node");
      case GraphNodeKind::kMemFree:
        return declined(DeclineReason::kFreeInRange, "cuGraphLaunch of a graph with a memory-free node");
      case GraphNodeKind::kHost:
        return declined(DeclineReason::kHostFunctionInRange, "cuGraphLaunch of a graph with a host node");
      case GraphNodeKind::kOther:
        return declined(DeclineReason::kUnsupportedApi,
                        "cuGraphLaunch of a graph with a node of type " +
                            (n.type_name.empty() ? std::string("unknown") : n.type_name));
      case GraphNodeKind::kMemcpy: {
        if (n.src.array || n.dst.array)
          return declined(DeclineReason::kUnsupportedApi, "cuGraphLaunch of a graph with a CUDA-array memcpy node");
        const bool src_ok = tracked(n.src.address, n.src.bytes);
        const bool dst_ok = tracked(n.dst.address, n.dst.bytes);
        if (!dst_ok)
          return declined(DeclineReason::kUnsupportedApi,
                          "cuGraphLaunch of a graph whose memcpy node writes untracked memory at " +
                              hex(n.dst.address) + " (" + std::to_string(n.dst.bytes) +
                              " bytes), which every replay would overwrite");
        if (!src_ok)
          return declined(DeclineReason::kUnsupportedApi,
                          "cuGraphLaunch of a graph whose memcpy node reads untracked (host) memory at " +
                              hex(n.src.address) + " (" + std::to_string(n.src.bytes) +
                              " bytes), which may have changed before a replay");
        break;
      }
      case GraphNodeKind::kMemset:
        if (!tracked(n.dst.address, n.dst.bytes))
          return declined(DeclineReason::kUnsupportedApi,
                          "cuGraphLaunch of a graph whose memset node writes untracked memory at " +
                              hex(n.dst.address) + " (" + std::to_string(n.dst.bytes) + " bytes)");
        break;
    }
  }
  return {};
}

CounterRangeMap map_counter_ranges(std::span<const LaunchUnit> units, std::size_t range_count) {
  CounterRangeMap map;
  std::size_t kernels = 0, graphs = 0;
  for (const LaunchUnit& u : units) {
    kernels += u.kernels;
    graphs += u.graph ? 1 : 0;
  }
  // A graph launch that ran no kernel has no counter range in either layout
  // (auto range counts kernels); one that ran kernels is one range per launch.
  std::size_t launches = 0;
  for (const LaunchUnit& u : units) launches += u.kernels > 0 ? 1 : 0;

  map.kernel_range.assign(kernels, std::nullopt);
  if (range_count == kernels) {
    map.layout = CounterRangeLayout::kPerKernel;
    for (std::size_t i = 0; i < kernels; ++i) map.kernel_range[i] = i;
    return map;
  }
  if (graphs > 0 && range_count == launches) {
    map.layout = CounterRangeLayout::kPerLaunch;
    std::size_t kernel = 0, range = 0;
    for (const LaunchUnit& u : units) {
      if (u.kernels == 0) {
        if (u.graph) map.graph_range.push_back(std::nullopt);  // ran no kernel: not measured
        continue;
      }
      if (u.graph) {
        map.graph_range.push_back(range);
      } else {
        map.kernel_range[kernel] = range;
      }
      kernel += u.kernels;
      ++range;
    }
    return map;
  }
  map.layout = CounterRangeLayout::kMismatch;
  for (std::size_t i = 0; i < kernels && i < range_count; ++i) map.kernel_range[i] = i;
  return map;
}

}  // namespace rangereplay
