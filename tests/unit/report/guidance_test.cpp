// A kernel's sections (kernel_sections.h) and findings (guidance.h): on the
// real H200 reports (--set full of examples/stream and of a torch training
// step) and on made-up kernels that trigger each rule or do not.
#include "report/guidance.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <set>
#include <string>

#include "core/config/metric_sets.h"
#include "report/kernel_sections.h"
#include "report/report_json.h"
#include "report/report_view.h"
#include "unit/report/fixture_reports.h"

namespace rangereplay::report {
namespace {

using testing::stream_report;
using testing::torch_report;

// The finding of `rule`, or nullptr. The findings are kept for the rest of
// the test program, so that a pointer into a temporary list stays valid.
const Finding* find_rule(std::vector<Finding> findings, std::string_view rule) {
  static std::deque<std::vector<Finding>> kept;
  const std::vector<Finding>& list = kept.emplace_back(std::move(findings));
  auto it = std::find_if(list.begin(), list.end(), [&](const Finding& f) { return f.rule == rule; });
  return it == list.end() ? nullptr : &*it;
}

KernelRecord kernel_with(std::vector<MetricValue> metrics, Dim3 block = {256, 1, 1}) {
  KernelRecord k;
  k.name = "made_up_kernel";
  k.grid = {1024, 1, 1};
  k.block = block;
  k.metrics = std::move(metrics);
  return k;
}

constexpr const char* kCompute = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kMemory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kL2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kDram = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";

TEST(KernelSections, quantities_have_fixed_decimals_and_units) {
  EXPECT_EQ(format_quantity(47.4675, QuantityKind::kPercent), (Quantity{"47.47", "%"}));
  EXPECT_EQ(format_quantity(512, QuantityKind::kBytes), (Quantity{"512", "B"}));
  EXPECT_EQ(format_quantity(26778368, QuantityKind::kBytes), (Quantity{"25.54", "MiB"}));
  EXPECT_EQ(format_quantity(1024.0 * 1024 - 1, QuantityKind::kBytes), (Quantity{"1.00", "MiB"}));
  EXPECT_EQ(format_quantity(2280174386920.98, QuantityKind::kBytesPerSecond), (Quantity{"2.28", "TB/s"}));
  EXPECT_EQ(format_quantity(1955349540.19, QuantityKind::kFrequency), (Quantity{"1.96", "GHz"}));
  EXPECT_EQ(format_quantity(960, QuantityKind::kDuration), (Quantity{"960", "ns"}));
  EXPECT_EQ(format_quantity(11744, QuantityKind::kDuration), (Quantity{"11.74", "us"}));
  EXPECT_EQ(format_quantity(1234567, QuantityKind::kDuration), (Quantity{"1.23", "ms"}));
  EXPECT_EQ(format_quantity(3145772, QuantityKind::kCount, "inst"), (Quantity{"3,145,772", "inst"}));
  EXPECT_EQ(format_quantity(19257.1, QuantityKind::kCycles), (Quantity{"19,257", "cycle"}));
  EXPECT_EQ(format_quantity(7.99994, QuantityKind::kRatio, "sector/request"), (Quantity{"8.00", "sector/request"}));
}

TEST(KernelSections, every_metric_row_is_a_role_of_the_full_set_or_a_launch_attribute) {
  StatusOr<const MetricSet*> full = find_metric_set("full");
  ASSERT_TRUE(full.ok());
  const std::set<std::string> roles((*full)->metrics.begin(), (*full)->metrics.end());
  for (const SectionSpec& s : kernel_section_specs()) {
    for (const SectionRowSpec& row : s.rows) {
      const std::string role(row.role);
      EXPECT_TRUE(roles.contains(role) || role.starts_with("launch__") ||
                  role == "sm__maximum_warps_per_active_cycle_pct")
          << s.name << ": " << role;
    }
  }
}

TEST(KernelSections, the_stream_triad_kernel_shows_nsight_computes_sections_with_its_values) {
  const KernelRecord& k = stream_report().ranges.at(0).kernels.at(3);
  ASSERT_NE(k.name.find("stream_triad_kernel"), std::string::npos);
  const std::vector<KernelSection> sections = kernel_sections(k);
  std::vector<std::string> titles(sections.size());
  std::transform(sections.begin(), sections.end(), titles.begin(), [](const KernelSection& s) { return s.title; });
  EXPECT_EQ(titles,
            (std::vector<std::string>{"GPU Speed Of Light Throughput", "Memory Workload Analysis",
                                      "Compute Workload Analysis", "Launch Statistics", "Occupancy",
                                      "Scheduler Statistics", "Warp State Statistics", "Instruction Statistics"}));
  const auto row = [&](std::string_view section, std::string_view label) -> const SectionRow* {
    for (const KernelSection& s : sections)
      for (const SectionRow& r : s.rows)
        if (s.title == section && r.label == label) return &r;
    return nullptr;
  };
  const SectionRow* duration = row("GPU Speed Of Light Throughput", "Duration");
  ASSERT_NE(duration, nullptr);
  EXPECT_EQ(duration->value + " " + duration->unit, "17.86 us");
  const SectionRow* memory = row("GPU Speed Of Light Throughput", "Memory Throughput");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->value, "77.04");
  EXPECT_EQ(memory->metric, kMemory);
  const SectionRow* grid = row("Launch Statistics", "Grid Size");
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->value + " " + grid->unit, "10,923 block");
  // No launch__ attribute is in a Range Profiler report: those rows are left out.
  EXPECT_EQ(row("Launch Statistics", "Registers Per Thread"), nullptr);
  EXPECT_EQ(row("Occupancy", "Theoretical Occupancy"), nullptr);
  // Stall reasons come largest first.
  const KernelSection& warp = sections.at(6);
  const auto first_stall = std::find_if(warp.rows.begin(), warp.rows.end(), [](auto& r) { return !r.group.empty(); });
  ASSERT_NE(first_stall, warp.rows.end());
  EXPECT_EQ(first_stall->label, "Long Scoreboard");
  for (auto it = first_stall; it + 1 != warp.rows.end(); ++it) EXPECT_GE(it->raw, (it + 1)->raw);
}

TEST(KernelSections, a_kernel_without_metrics_has_only_its_launch) {
  const std::vector<KernelSection> sections = kernel_sections(kernel_with({}));
  ASSERT_EQ(sections.size(), 1u);
  EXPECT_EQ(sections[0].name, "LaunchStats");
  EXPECT_EQ(sections[0].rows.size(), 4u);
  EXPECT_TRUE(kernel_guidance(kernel_with({})).empty()) << "every rule stays quiet without its metrics";
}

TEST(Guidance, every_stream_kernel_is_memory_bound_with_its_speed_of_light_figures) {
  std::size_t kernels = 0;
  for (const RangeRecord& range : stream_report().ranges) {
    for (const KernelRecord& k : range.kernels) {
      ++kernels;
      const MetricLookup m = metric_lookup(k);
      const std::optional<BottleneckVerdict> v = classify_bottleneck(m);
      ASSERT_TRUE(v.has_value()) << k.name;
      EXPECT_EQ(v->kind, Bottleneck::kMemory) << k.name;
      EXPECT_DOUBLE_EQ(v->compute_pct, *role_value(m, kCompute));
      EXPECT_DOUBLE_EQ(v->memory_pct, *role_value(m, kMemory));
      const std::vector<Finding> findings = kernel_guidance(k);
      const Finding* b = find_rule(findings, "bottleneck");
      ASSERT_NE(b, nullptr);
      EXPECT_EQ(b->title, "Memory bound");
      EXPECT_EQ(find_rule(findings, "occupancy"), nullptr) << k.name;
      EXPECT_EQ(find_rule(findings, "uncoalesced_access"), nullptr) << k.name << ": doubles, fully coalesced";
      EXPECT_EQ(find_rule(findings, "tensor_pipe"), nullptr) << k.name;
      const Finding* stalls = find_rule(findings, "warp_stalls");
      ASSERT_NE(stalls, nullptr);
      EXPECT_EQ(stalls->values.at(0).label, "Long Scoreboard") << k.name << ": waiting for DRAM";
    }
  }
  EXPECT_EQ(kernels, 12u);
  // stream_mul of range 0: memory 47.47% alone is below 60%, its L2 at 71.86% is the busiest unit.
  const KernelRecord& mul = stream_report().ranges.at(0).kernels.at(1);
  const std::optional<BottleneckVerdict> v = classify_bottleneck(metric_lookup(mul));
  ASSERT_TRUE(v.has_value());
  EXPECT_NEAR(v->compute_pct, 27.40, 0.01);
  EXPECT_NEAR(v->memory_pct, 47.47, 0.01);
  EXPECT_EQ(v->busiest_unit, "L2");
  EXPECT_NEAR(v->busiest_unit_pct, 71.86, 0.01);
  const Finding* b = find_rule(kernel_guidance(mul), "bottleneck");
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b->detail.find("compute (SM) throughput 27.40% and memory throughput 47.47%, its busiest unit L2 at "
                           "71.86%"),
            std::string::npos)
      << b->detail;
}

TEST(Guidance, the_stream_add_kernels_dram_traffic_is_its_own_data_read_once) {
  const KernelRecord& add = stream_report().ranges.at(0).kernels.at(2);
  ASSERT_NE(add.name.find("stream_add_kernel"), std::string::npos);
  const Finding* f = find_rule(kernel_guidance(add), "cache_hit_rates");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "DRAM traffic is the kernel's own data, read once");
  EXPECT_NE(f->detail.find("DRAM is 72.75% busy with L1/TEX hit rate 0.00%, L2 hit rate 44.00%."), std::string::npos)
      << f->detail;
  EXPECT_NE(f->detail.find("DRAM reads are 78% of the 42.67 MiB the global loads requested"), std::string::npos)
      << f->detail;
  // stream_mul's DRAM is 47% busy: nothing to explain.
  EXPECT_EQ(find_rule(kernel_guidance(stream_report().ranges.at(0).kernels.at(1)), "cache_hit_rates"), nullptr);
}

TEST(Guidance, a_torch_fp32_gemm_is_compute_bound_stalls_on_short_scoreboard_and_could_use_tensor_cores) {
  const KernelRecord& gemm = torch_report().ranges.at(0).kernels.at(29);
  ASSERT_TRUE(gemm.name.starts_with("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8")) << gemm.name;
  const MetricLookup m = metric_lookup(gemm);
  const std::optional<BottleneckVerdict> v = classify_bottleneck(m);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->kind, Bottleneck::kCompute);
  EXPECT_NEAR(v->compute_pct, 82.47, 0.01);
  EXPECT_NEAR(v->memory_pct, 64.20, 0.01);
  const std::vector<StallShare> top = top_stalls(m, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].reason, "Short Scoreboard");
  EXPECT_NEAR(top[0].cycles, 0.32, 0.005);
  EXPECT_EQ(top[1].reason, "Dispatch Stall");
  EXPECT_NEAR(top[1].cycles, 0.10, 0.005);
  const std::vector<Finding> findings = kernel_guidance(gemm);
  ASSERT_NE(find_rule(findings, "tensor_pipe"), nullptr);
  EXPECT_EQ(find_rule(findings, "tensor_pipe")->title, "FMA work the tensor cores could do");
  EXPECT_EQ(find_rule(findings, "occupancy"), nullptr) << "12% occupancy, but compute bound: more warps gain nothing";
}

TEST(Guidance, bottleneck_rule_names_latency_when_both_throughputs_are_low_and_which_is_higher) {
  const std::vector<Finding> latency =
      kernel_guidance(kernel_with({{kCompute, "percent", 35}, {kMemory, "percent", 20}}));
  const Finding* f = find_rule(latency, "bottleneck");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "Latency bound");
  EXPECT_NE(f->detail.find("the compute side is the higher"), std::string::npos) << f->detail;
  ASSERT_EQ(f->values.size(), 2u);
  EXPECT_EQ(f->values[0].metric, kCompute);
  EXPECT_EQ(f->values[0].shown, "35.00%");
  const Finding* c =
      find_rule(kernel_guidance(kernel_with({{kCompute, "percent", 90}, {kMemory, "percent", 70}})), "bottleneck");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->title, "Compute bound");
  const Finding* mem = find_rule(
      kernel_guidance(kernel_with({{kCompute, "percent", 30}, {kMemory, "percent", 50}, {kDram, "percent", 65}})),
      "bottleneck");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->title, "Memory bound");
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with({{kCompute, "percent", 30}})), "bottleneck"), nullptr)
      << "quiet without the memory throughput";
}

TEST(Guidance, stall_rule_leaves_out_selected_and_not_selected) {
  const std::string p = "smsp__average_warps_issue_stalled_";
  const std::string s = "_per_issue_active.ratio";
  KernelRecord k = kernel_with({{p + "selected" + s, "", 1},
                                {p + "not_selected" + s, "", 5},
                                {p + "barrier" + s, "", 3},
                                {p + "mio_throttle" + s, "", 1},
                                {p + "wait" + s, "", 0.5}});
  const Finding* f = find_rule(kernel_guidance(k), "warp_stalls");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->values.size(), 2u);
  EXPECT_EQ(f->values[0].label, "Barrier");
  EXPECT_EQ(f->values[1].label, "MIO Throttle");
  EXPECT_NE(f->detail.find("Barrier 3.00 cycles per issued instruction (28.6% of stall cycles)"), std::string::npos)
      << f->detail;
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with({{p + "barrier" + s, "", 0}})), "warp_stalls"), nullptr);
}

TEST(Guidance, occupancy_rule_names_the_limiter_only_on_a_latency_bound_kernel) {
  const std::string reg = "tpc__warp_launch_cycles_stalled_shader_cs_reason_register_allocation.sum";
  const std::string shm = "tpc__warp_launch_cycles_stalled_shader_cs_reason_shmem_allocation.sum";
  std::vector<MetricValue> low = {{kCompute, "percent", 20},
                                  {kMemory, "percent", 15},
                                  {kOccupancy, "percent", 12.5},
                                  {reg, "", 5000},
                                  {shm, "", 10}};
  const Finding* f = find_rule(kernel_guidance(kernel_with(low)), "occupancy");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->detail.find("Achieved occupancy is 12.50%"), std::string::npos) << f->detail;
  EXPECT_NE(f->detail.find("warp launches waited 5,000 cycle for registers"), std::string::npos) << f->detail;
  EXPECT_NE(f->advice.find("fewer registers"), std::string::npos);
  // The launch's own block limits win when present.
  std::vector<MetricValue> limits = low;
  limits.push_back({"launch__occupancy_limit_registers", "block", 4});
  limits.push_back({"launch__occupancy_limit_shared_mem", "block", 2});
  const Finding* g = find_rule(kernel_guidance(kernel_with(limits)), "occupancy");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->detail.find("shared memory limit it to 2 blocks per SM"), std::string::npos) << g->detail;
  // A small block without launch waits.
  const Finding* small =
      find_rule(kernel_guidance(kernel_with(
                    {{kCompute, "percent", 20}, {kMemory, "percent", 15}, {kOccupancy, "percent", 20}}, {32, 1, 1})),
                "occupancy");
  ASSERT_NE(small, nullptr);
  EXPECT_NE(small->detail.find("blocks of 32 threads fill at most 32 warps"), std::string::npos) << small->detail;
  // Quiet: occupancy high, or the kernel at a throughput limit, or no occupancy metric.
  low[2].value = 40;
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with(low)), "occupancy"), nullptr);
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with(
                          {{kCompute, "percent", 85}, {kMemory, "percent", 15}, {kOccupancy, "percent", 10}})),
                      "occupancy"),
            nullptr);
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with({{kCompute, "percent", 20}, {kMemory, "percent", 15}})), "occupancy"),
            nullptr);
}

TEST(Guidance, uncoalesced_rule_uses_bytes_per_sector_or_else_sectors_per_request) {
  const std::string sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
  const std::string requests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
  const std::string used = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
  // 32-bit loads with a stride of 8 floats: 32 sectors per request, 12.5% of each sector used.
  const Finding* f =
      find_rule(kernel_guidance(kernel_with({{sectors, "", 32000}, {requests, "", 1000}, {used, "percent", 12.5}})),
                "uncoalesced_access");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->detail.find("global loads fetch 32.00 sectors per request and use 12.50% of each sector's bytes"),
            std::string::npos)
      << f->detail;
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with({{sectors, "", 8000}, {requests, "", 1000}, {used, "percent", 100}})),
                      "uncoalesced_access"),
            nullptr)
      << "64-bit loads: 8 sectors per request, every byte used";
  EXPECT_NE(find_rule(kernel_guidance(kernel_with({{sectors, "", 32000}, {requests, "", 1000}})), "uncoalesced_access"),
            nullptr)
      << "without the bytes-used metric, 32 sectors per request is more than any coalesced access takes";
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with({{sectors, "", 4000}, {requests, "", 1000}})), "uncoalesced_access"),
            nullptr);
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with({{sectors, "", 32000}})), "uncoalesced_access"), nullptr);
  // stream_dot stores one partial sum per block, a quarter of a sector each: too few sectors to matter.
  const KernelRecord& dot = stream_report().ranges.at(0).kernels.at(4);
  ASSERT_NE(dot.name.find("stream_dot_kernel"), std::string::npos);
  EXPECT_DOUBLE_EQ(*role_value(metric_lookup(dot), "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"),
                   25.0);
  EXPECT_EQ(find_rule(kernel_guidance(dot), "uncoalesced_access"), nullptr);
}

TEST(Guidance, cache_rule_tells_missing_reuse_from_streaming) {
  const std::vector<MetricValue> base = {{kDram, "percent", 80},
                                         {"lts__t_sector_hit_rate.pct", "percent", 20},
                                         {"l1tex__t_sector_hit_rate.pct", "percent", 5},
                                         {"dram__bytes_read.sum", "byte", 64.0 * 1024 * 1024},
                                         {"dram__bytes_write.sum", "byte", 1024}};
  std::vector<MetricValue> reused = base;  // 256 MiB loaded, 64 MiB of it from DRAM
  reused.push_back({"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", 8.0 * 1024 * 1024});
  const Finding* f = find_rule(kernel_guidance(kernel_with(reused)), "cache_hit_rates");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "L2 misses drive DRAM traffic");
  EXPECT_NE(f->detail.find("DRAM reads are 25% of the 256.00 MiB the global loads requested"), std::string::npos)
      << f->detail;
  std::vector<MetricValue> streaming = base;  // 64 MiB loaded, all of it from DRAM
  streaming.push_back({"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", 2.0 * 1024 * 1024});
  const Finding* s = find_rule(kernel_guidance(kernel_with(streaming)), "cache_hit_rates");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->title, "DRAM traffic is the kernel's own data, read once");
  std::vector<MetricValue> idle = base;
  idle[0].value = 40;
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with(idle)), "cache_hit_rates"), nullptr);
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with({{kDram, "percent", 80}})), "cache_hit_rates"), nullptr);
}

TEST(Guidance, tensor_rule_suggests_tensor_cores_for_busy_fma_or_reports_their_use) {
  const std::string tensor = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active";
  const std::string fma = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active";
  const std::string ffma = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
  const Finding* f = find_rule(
      kernel_guidance(kernel_with({{tensor, "percent", 0}, {fma, "percent", 70}, {ffma, "inst", 1e9}})), "tensor_pipe");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "FMA work the tensor cores could do");
  const Finding* used = find_rule(kernel_guidance(kernel_with({{tensor, "percent", 45}})), "tensor_pipe");
  ASSERT_NE(used, nullptr);
  EXPECT_EQ(used->title, "Tensor cores in use");
  EXPECT_NE(used->advice.find("wait"), std::string::npos);
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with({{tensor, "percent", 0}, {fma, "percent", 20}, {ffma, "inst", 1e9}})),
                      "tensor_pipe"),
            nullptr);
  EXPECT_EQ(find_rule(kernel_guidance(kernel_with({{fma, "percent", 90}, {ffma, "inst", 1e9}})), "tensor_pipe"),
            nullptr)
      << "quiet without the tensor pipe metric";
}

TEST(Guidance, the_details_page_prints_sections_then_findings_within_100_columns) {
  StatusOr<Report> picked = filter_report(stream_report(), {"triad", "0"});
  ASSERT_TRUE(picked.ok()) << picked.status().to_string();
  const std::string text = render_report_view(*picked, ViewPage::kDetails);
  const std::size_t sol = text.find("    Section: GPU Speed Of Light Throughput\n");
  const std::size_t guidance = text.find("    Guidance:\n    * Memory bound: ");
  ASSERT_NE(sol, std::string::npos) << text;
  ASSERT_NE(guidance, std::string::npos) << text;
  EXPECT_LT(sol, guidance);
  EXPECT_NE(text.find("    Memory Throughput                              %                         77.04\n"),
            std::string::npos)
      << text;
  // The kernel's part of the page (after the header, before the footer) fits 100 columns.
  const std::size_t begin = text.find("  kernel 3: ");
  const std::size_t end = text.find("\nsummary: ");
  ASSERT_NE(begin, std::string::npos);
  std::size_t line_start = begin;
  while (line_start < end) {
    const std::size_t line_end = text.find('\n', line_start);
    EXPECT_LE(line_end - line_start, 100u) << text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
  }
}

TEST(Guidance, the_json_report_carries_each_kernels_findings) {
  const nlohmann::json j = stream_report();
  const nlohmann::json& k = j.at("ranges").at(0).at("kernels").at(1);
  ASSERT_TRUE(k.contains("guidance"));
  const nlohmann::json& first = k.at("guidance").at(0);
  EXPECT_EQ(first.at("rule"), "bottleneck");
  EXPECT_EQ(first.at("title"), "Memory bound");
  EXPECT_EQ(first.at("values").at(1).at("metric"), kMemory);
  EXPECT_NEAR(first.at("values").at(1).at("value").get<double>(), 47.47, 0.01);
  // Not read back: the report read from this JSON equals the one written.
  EXPECT_EQ(j.get<Report>(), stream_report());
}

}  // namespace
}  // namespace rangereplay::report
