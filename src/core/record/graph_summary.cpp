// replace_child_graph (graph_summary.h).
#include "core/record/graph_summary.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

namespace rangereplay {

Status replace_child_graph(GraphSummary& graph, std::uint64_t node, GraphSummary child) {
  const auto pos = std::find_if(graph.nodes.begin(), graph.nodes.end(), [node](const GraphNode& n) {
    return n.handle == node && n.kind == GraphNodeKind::kChildGraph;
  });
  if (node == 0 || pos == graph.nodes.end())
    return not_found("no top-level child-graph node " + std::to_string(node) + " in the graph");
  const auto is_kernel = [](const GraphNode& n) { return n.kind == GraphNodeKind::kKernel; };
  const auto first = pos + 1;
  const auto last = first + static_cast<std::ptrdiff_t>(pos->descendants);
  // Kernels are listed in node order: those before the child's nodes, then its own.
  const auto first_kernel = std::count_if(graph.nodes.begin(), first, is_kernel);
  const auto old_kernels = std::count_if(first, last, is_kernel);
  const auto index = pos - graph.nodes.begin();
  for (GraphNode& n : child.nodes) n.handle = 0;
  graph.nodes.erase(first, last);
  graph.nodes.insert(graph.nodes.begin() + index + 1, std::make_move_iterator(child.nodes.begin()),
                     std::make_move_iterator(child.nodes.end()));
  graph.nodes[static_cast<std::size_t>(index)].descendants = child.nodes.size();
  graph.kernels.erase(graph.kernels.begin() + first_kernel, graph.kernels.begin() + first_kernel + old_kernels);
  graph.kernels.insert(graph.kernels.begin() + first_kernel, std::make_move_iterator(child.kernels.begin()),
                       std::make_move_iterator(child.kernels.end()));
  graph.kernel_nodes.erase(graph.kernel_nodes.begin() + first_kernel,
                           graph.kernel_nodes.begin() + first_kernel + old_kernels);
  graph.kernel_nodes.insert(graph.kernel_nodes.begin() + first_kernel, child.kernels.size(), 0);
  return ok_status();
}

}  // namespace rangereplay
