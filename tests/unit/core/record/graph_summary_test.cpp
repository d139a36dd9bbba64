// replace_child_graph (core/record/graph_summary.h): an executable graph's summary
// after one of its child-graph nodes is given a new graph.
#include "core/record/graph_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rangereplay {
namespace {

GraphNode node_of(GraphNodeKind kind, std::uint64_t handle = 0, std::size_t descendants = 0) {
  GraphNode n;
  n.kind = kind;
  n.handle = handle;
  n.descendants = descendants;
  return n;
}

KernelLaunchOp kernel_named(std::string name) {
  KernelLaunchOp k;
  k.name = std::move(name);
  return k;
}

std::vector<std::string> kernel_names(const GraphSummary& g) {
  std::vector<std::string> names;
  for (const KernelLaunchOp& k : g.kernels) names.push_back(k.name);
  return names;
}

// Top level: kernel a (node 0x1), child graph 0x2 of {kernel b, memset},
// kernel c (node 0x3), as inspect_graph lists them.
GraphSummary exec_summary() {
  GraphSummary g;
  g.nodes = {node_of(GraphNodeKind::kKernel, 0x1), node_of(GraphNodeKind::kChildGraph, 0x2, 2),
             node_of(GraphNodeKind::kKernel), node_of(GraphNodeKind::kMemset), node_of(GraphNodeKind::kKernel, 0x3)};
  g.kernels = {kernel_named("a"), kernel_named("b"), kernel_named("c")};
  g.kernel_nodes = {0x1, 0, 0x3};
  return g;
}

TEST(GraphSummary, a_new_child_graph_replaces_the_nodes_and_kernels_of_its_node_only) {
  GraphSummary g = exec_summary();
  // The new child, as inspect_graph reads it on its own: two kernels, its
  // own top-level handles.
  GraphSummary child;
  child.nodes = {node_of(GraphNodeKind::kKernel, 0x70), node_of(GraphNodeKind::kKernel, 0x71)};
  child.kernels = {kernel_named("b1"), kernel_named("b2")};
  child.kernel_nodes = {0x70, 0x71};
  ASSERT_TRUE(replace_child_graph(g, 0x2, child).ok());
  EXPECT_EQ(kernel_names(g), (std::vector<std::string>{"a", "b1", "b2", "c"}));
  EXPECT_EQ(g.kernel_nodes, (std::vector<std::uint64_t>{0x1, 0, 0, 0x3}));
  ASSERT_EQ(g.nodes.size(), 5u);
  EXPECT_EQ(g.nodes[1].descendants, 2u);
  EXPECT_EQ(g.nodes[2].handle, 0u);  // not a top-level node of the exec
  EXPECT_EQ(g.nodes[3].kind, GraphNodeKind::kKernel);
  EXPECT_EQ(g.nodes[4].handle, 0x3u);
  // The same node changed again: the spans follow the first change.
  GraphSummary empty_child;
  ASSERT_TRUE(replace_child_graph(g, 0x2, empty_child).ok());
  EXPECT_EQ(kernel_names(g), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(g.kernel_nodes, (std::vector<std::uint64_t>{0x1, 0x3}));
  EXPECT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[1].descendants, 0u);
}

TEST(GraphSummary, a_node_that_is_not_a_top_level_child_graph_is_not_found_and_changes_nothing) {
  for (std::uint64_t node : {std::uint64_t{0}, std::uint64_t{0x1}, std::uint64_t{0x9}}) {
    GraphSummary g = exec_summary();
    const Status s = replace_child_graph(g, node, GraphSummary{});
    EXPECT_EQ(s.code(), StatusCode::kNotFound) << node;
    EXPECT_EQ(kernel_names(g), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(g.nodes.size(), 5u);
  }
}

}  // namespace
}  // namespace rangereplay
