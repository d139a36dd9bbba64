// Graph launches in ranges: which graph nodes a replay can re-run soundly, how
// CUPTI's per-kernel counter ranges map onto graph launches, and how a
// RecordedProgram lists a graph launch's kernels.
#include "core/record/graph_nodes.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/record/recorded_program.h"

namespace rangereplay {
namespace {

// Tracked memory for these tests: one allocation [0x1000, 0x2000).
bool tracked(std::uint64_t address, std::uint64_t bytes) {
  return address >= 0x1000 && address + bytes <= 0x2000 && (bytes > 0 || address < 0x2000);
}

GraphNode node(GraphNodeKind kind) {
  GraphNode n;
  n.kind = kind;
  return n;
}

GraphNode copy(std::uint64_t src, std::uint64_t dst, std::uint64_t bytes) {
  GraphNode n = node(GraphNodeKind::kMemcpy);
  n.src = {src, bytes, false};
  n.dst = {dst, bytes, false};
  return n;
}

GraphNode memset_node(std::uint64_t dst, std::uint64_t bytes) {
  GraphNode n = node(GraphNodeKind::kMemset);
  n.dst = {dst, bytes, false};
  return n;
}

TEST(GraphNodes, an_empty_graph_is_replayable) { EXPECT_FALSE(classify_graph_nodes({}, tracked).reason.has_value()); }

TEST(GraphNodes, kernel_event_wait_empty_and_child_graph_nodes_are_replayable) {
  const std::vector<GraphNode> nodes = {node(GraphNodeKind::kKernel), node(GraphNodeKind::kEventWait),
                                        node(GraphNodeKind::kEmpty), node(GraphNodeKind::kChildGraph),
                                        node(GraphNodeKind::kKernel)};
  const GraphVerdict v = classify_graph_nodes(nodes, tracked);
  EXPECT_FALSE(v.reason.has_value());
  EXPECT_EQ(v.detail, "");
}

TEST(GraphNodes, an_event_record_node_declines_a_replay_would_record_the_applications_event_again) {
  const GraphVerdict v = classify_graph_nodes(
      std::vector<GraphNode>{node(GraphNodeKind::kKernel), node(GraphNodeKind::kEventRecord)}, tracked);
  EXPECT_EQ(v.reason, DeclineReason::kUnsupportedApi);
  EXPECT_EQ(v.detail,
            "cuGraphLaunch of a graph with an event-record node: every replay would record the application's event "
            "again");
}

TEST(GraphNodes, memory_alloc_node_declines_as_allocation_in_range) {
  const std::vector<GraphNode> nodes = {node(GraphNodeKind::kKernel), node(GraphNodeKind::kMemAlloc)};
  const GraphVerdict v = classify_graph_nodes(nodes, tracked);
  EXPECT_EQ(v.reason, DeclineReason::kAllocationInRange);
  EXPECT_EQ(v.detail, "cuGraphLaunch of a graph with a memory-allocation node");
}

TEST(GraphNodes, memory_free_node_declines_as_free_in_range) {
  const GraphVerdict v = classify_graph_nodes(std::vector<GraphNode>{node(GraphNodeKind::kMemFree)}, tracked);
  EXPECT_EQ(v.reason, DeclineReason::kFreeInRange);
  EXPECT_EQ(v.detail, "cuGraphLaunch of a graph with a memory-free node");
}

TEST(GraphNodes, host_node_declines_as_host_function_in_range) {
  const GraphVerdict v = classify_graph_nodes(std::vector<GraphNode>{node(GraphNodeKind::kHost)}, tracked);
  EXPECT_EQ(v.reason, DeclineReason::kHostFunctionInRange);
  EXPECT_EQ(v.detail, "cuGraphLaunch of a graph with a host node");
}

TEST(GraphNodes, unknown_node_declines_as_unsupported_api_naming_its_type) {
  GraphNode n = node(GraphNodeKind::kOther);
  n.type_name = "CU_GRAPH_NODE_TYPE_CONDITIONAL";
  const GraphVerdict v = classify_graph_nodes(std::vector<GraphNode>{n}, tracked);
  EXPECT_EQ(v.reason, DeclineReason::kUnsupportedApi);
  EXPECT_EQ(v.detail, "cuGraphLaunch of a graph with a node of type CU_GRAPH_NODE_TYPE_CONDITIONAL");
  n.type_name.clear();
  EXPECT_EQ(classify_graph_nodes(std::vector<GraphNode>{n}, tracked).detail,
            "cuGraphLaunch of a graph with a node of type unknown");
}

TEST(GraphNodes, the_first_offending_node_decides_the_reason) {
  const std::vector<GraphNode> nodes = {node(GraphNodeKind::kKernel), node(GraphNodeKind::kHost),
                                        node(GraphNodeKind::kMemAlloc)};
  EXPECT_EQ(classify_graph_nodes(nodes, tracked).reason, DeclineReason::kHostFunctionInRange);
}

TEST(GraphNodes, device_to_device_copy_inside_tracked_memory_is_replayable) {
  EXPECT_FALSE(classify_graph_nodes(std::vector<GraphNode>{copy(0x1000, 0x1800, 0x800)}, tracked).reason);
  EXPECT_FALSE(classify_graph_nodes(std::vector<GraphNode>{copy(0x1001, 0x1803, 1)}, tracked).reason);
  EXPECT_FALSE(classify_graph_nodes(std::vector<GraphNode>{copy(0x1000, 0x1000, 0)}, tracked).reason);
}

TEST(GraphNodes, copy_reading_untracked_host_memory_declines) {
  const GraphVerdict v = classify_graph_nodes(std::vector<GraphNode>{copy(0x7f0000000000, 0x1000, 16)}, tracked);
  EXPECT_EQ(v.reason, DeclineReason::kUnsupportedApi);
  EXPECT_EQ(v.detail,
            "cuGraphLaunch of a graph whose memcpy node reads untracked (host) memory at 0x7f0000000000 (16 bytes), "
            "which may have changed before a replay");
}

TEST(GraphNodes, copy_writing_untracked_memory_declines) {
  const GraphVerdict v = classify_graph_nodes(std::vector<GraphNode>{copy(0x1000, 0x9000, 4096)}, tracked);
  EXPECT_EQ(v.reason, DeclineReason::kUnsupportedApi);
  EXPECT_EQ(v.detail,
            "cuGraphLaunch of a graph whose memcpy node writes untracked memory at 0x9000 (4096 bytes), which every "
            "replay would overwrite");
}

TEST(GraphNodes, copy_running_one_byte_past_its_allocation_declines) {
  EXPECT_EQ(classify_graph_nodes(std::vector<GraphNode>{copy(0x1000, 0x1801, 0x800)}, tracked).reason,
            DeclineReason::kUnsupportedApi);
}

TEST(GraphNodes, copy_with_a_cuda_array_side_declines) {
  GraphNode n = copy(0x1000, 0x1800, 16);
  n.dst = {0, 0, true};
  const GraphVerdict v = classify_graph_nodes(std::vector<GraphNode>{n}, tracked);
  EXPECT_EQ(v.reason, DeclineReason::kUnsupportedApi);
  EXPECT_EQ(v.detail, "cuGraphLaunch of a graph with a CUDA-array memcpy node");
}

TEST(GraphNodes, memset_needs_a_tracked_destination) {
  EXPECT_FALSE(classify_graph_nodes(std::vector<GraphNode>{memset_node(0x1000, 0x1000)}, tracked).reason);
  const GraphVerdict v = classify_graph_nodes(std::vector<GraphNode>{memset_node(0x1ff0, 0x20)}, tracked);
  EXPECT_EQ(v.reason, DeclineReason::kUnsupportedApi);
  EXPECT_EQ(v.detail, "cuGraphLaunch of a graph whose memset node writes untracked memory at 0x1ff0 (32 bytes)");
}

TEST(CounterRanges, no_kernels_and_no_ranges_is_per_kernel_and_empty) {
  const CounterRangeMap m = map_counter_ranges({}, 0);
  EXPECT_EQ(m.layout, CounterRangeLayout::kPerKernel);
  EXPECT_TRUE(m.kernel_range.empty());
  EXPECT_TRUE(m.graph_range.empty());
}

TEST(CounterRanges, plain_launches_map_one_to_one) {
  const std::vector<LaunchUnit> units = {{1, false}, {1, false}, {1, false}};
  const CounterRangeMap m = map_counter_ranges(units, 3);
  EXPECT_EQ(m.layout, CounterRangeLayout::kPerKernel);
  const std::vector<std::optional<std::size_t>> want = {0, 1, 2};
  EXPECT_EQ(m.kernel_range, want);
}

TEST(CounterRanges, one_range_per_kernel_node_maps_graph_kernels_individually) {
  // kernel, graph of 6 kernel nodes, kernel: 8 kernels, 8 ranges.
  const std::vector<LaunchUnit> units = {{1, false}, {6, true}, {1, false}};
  const CounterRangeMap m = map_counter_ranges(units, 8);
  EXPECT_EQ(m.layout, CounterRangeLayout::kPerKernel);
  ASSERT_EQ(m.kernel_range.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(m.kernel_range[i], i);
  EXPECT_TRUE(m.graph_range.empty());
}

TEST(CounterRanges, one_range_per_graph_launch_leaves_graph_kernels_without_values) {
  // kernel, graph of 6, graph of 0 kernels (no range), kernel, graph of 2: 3 launches with kernels... + 1 = 4 ranges.
  const std::vector<LaunchUnit> units = {{1, false}, {6, true}, {0, true}, {1, false}, {2, true}};
  const CounterRangeMap m = map_counter_ranges(units, 4);
  EXPECT_EQ(m.layout, CounterRangeLayout::kPerLaunch);
  ASSERT_EQ(m.kernel_range.size(), 10u);
  EXPECT_EQ(m.kernel_range[0], std::optional<std::size_t>(0));
  for (std::size_t i = 1; i <= 6; ++i) EXPECT_FALSE(m.kernel_range[i].has_value());
  EXPECT_EQ(m.kernel_range[7], std::optional<std::size_t>(2));
  EXPECT_FALSE(m.kernel_range[8].has_value());
  EXPECT_FALSE(m.kernel_range[9].has_value());
  const std::vector<std::optional<std::size_t>> graphs = {1, std::nullopt, 3};
  EXPECT_EQ(m.graph_range, graphs);
}

TEST(CounterRanges, single_kernel_graphs_fit_both_layouts_and_count_as_per_kernel) {
  const std::vector<LaunchUnit> units = {{1, true}, {1, false}};
  EXPECT_EQ(map_counter_ranges(units, 2).layout, CounterRangeLayout::kPerKernel);
}

TEST(CounterRanges, any_other_count_is_a_mismatch_assigned_in_order) {
  const std::vector<LaunchUnit> units = {{1, false}, {6, true}};
  const CounterRangeMap m = map_counter_ranges(units, 5);
  EXPECT_EQ(m.layout, CounterRangeLayout::kMismatch);
  ASSERT_EQ(m.kernel_range.size(), 7u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(m.kernel_range[i], i);
  EXPECT_FALSE(m.kernel_range[5].has_value());
  EXPECT_FALSE(m.kernel_range[6].has_value());
  // More ranges than kernels: every kernel gets its index, extras are unused.
  EXPECT_EQ(map_counter_ranges(units, 100).layout, CounterRangeLayout::kMismatch);
}

TEST(CounterRanges, launches_without_graphs_never_use_the_per_launch_layout) {
  const std::vector<LaunchUnit> units = {{1, false}, {1, false}};
  EXPECT_EQ(map_counter_ranges(units, 1).layout, CounterRangeLayout::kMismatch);
}

TEST(RecordedProgram, graph_launch_kernels_follow_plain_launches_in_order) {
  RecordedProgram p;
  KernelLaunchOp first;
  first.name = "first";
  p.ops.emplace_back(first);
  auto nodes = std::make_shared<std::vector<KernelLaunchOp>>(2);
  (*nodes)[0].name = "node_a";
  (*nodes)[1].name = "node_b";
  p.ops.emplace_back(GraphLaunchOp{0xe1, 0x51, nodes});
  p.ops.emplace_back(MemsetOp{0x1000, 0, 1, 4});
  p.ops.emplace_back(GraphLaunchOp{0xe1, 0x52, nodes});
  p.ops.emplace_back(GraphLaunchOp{0xe2, 0x51, nullptr});

  EXPECT_EQ(p.kernel_count(), 5u);
  const auto kernels = p.kernels();
  ASSERT_EQ(kernels.size(), 5u);
  EXPECT_EQ(kernels[0]->name, "first");
  EXPECT_EQ(kernels[1]->name, "node_a");
  EXPECT_EQ(kernels[2]->name, "node_b");
  EXPECT_EQ(kernels[3]->name, "node_a");
  EXPECT_EQ(kernels[4]->name, "node_b");
  const std::vector<std::uint64_t> execs = {0xe1, 0xe1, 0xe2};
  EXPECT_EQ(p.graph_execs(), execs);
  const auto units = p.launch_units();
  ASSERT_EQ(units.size(), 4u);
  EXPECT_EQ(units[0].kernels, 1u);
  EXPECT_FALSE(units[0].graph);
  EXPECT_EQ(units[1].kernels, 2u);
  EXPECT_TRUE(units[1].graph);
  EXPECT_EQ(units[3].kernels, 0u);
  EXPECT_TRUE(units[3].graph);
}

}  // namespace
}  // namespace rangereplay
