// A kernel's metrics by Nsight Compute's sections (see kernel_sections.h).
#include "report/kernel_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/config/metric_sets.h"
#include "report/format_helpers.h"

namespace rangereplay::report {
namespace {

using K = QuantityKind;

std::string non_finite(double value) {
  if (std::isnan(value)) return "n/a";
  return value > 0 ? "inf" : "-inf";
}

// Rounded and grouped: 19257.1 -> "19,257".
std::string whole(double value) {
  if (std::fabs(value) >= 9e18) return fmt::format("{:.2e}", value);
  return format_integer(static_cast<std::int64_t>(std::llround(value)));
}

std::string two_decimals(double value) { return group_thousands(fmt::format("{:.2f}", value)); }

// `value` in the largest of `units` (each `step` times the one before) that
// keeps it at or above 1, with two decimals.
template <std::size_t N>
Quantity scaled(double value, double step, const std::array<std::string_view, N>& units) {
  std::size_t i = 0;
  double v = value;
  while (i + 1 < N && std::fabs(v) >= step) {
    v /= step;
    ++i;
  }
  // 1023.999 KiB prints as "1024.00": take the next unit instead.
  if (i + 1 < N && std::fabs(v) >= step - 0.005) {
    v /= step;
    ++i;
  }
  return {two_decimals(v), std::string(units[i])};
}

std::vector<SectionSpec> build_specs() {
  std::vector<SectionSpec> specs;
  specs.push_back(
      {"SpeedOfLight",
       "GPU Speed Of Light Throughput",
       {
           {"", "Duration", "gpu__time_duration.sum", K::kDuration},
           {"", "Elapsed Cycles", "gpc__cycles_elapsed.max", K::kCycles},
           {"", "SM Active Cycles", "sm__cycles_active.avg", K::kCycles},
           {"", "SM Frequency", "gpc__cycles_elapsed.avg.per_second", K::kFrequency},
           {"", "DRAM Frequency", "dram__cycles_elapsed.avg.per_second", K::kFrequency},
           {"", "Compute (SM) Throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
           {"", "Memory Throughput", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
           {"Compute breakdown", "SM: Issue Slots", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed", K::kPercent},
           {"Compute breakdown", "SM: Instruction Throughput",
            "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
           {"Compute breakdown", "SM: ALU Pipe", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
            K::kPercent},
           {"Compute breakdown", "SM: FMA Pipe", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
            K::kPercent},
           {"Compute breakdown", "SM: FP64 Pipe", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
            K::kPercent},
           {"Compute breakdown", "SM: Tensor Pipe", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
            K::kPercent},
           {"Memory breakdown", "L1/TEX Cache Throughput", "l1tex__throughput.avg.pct_of_peak_sustained_active",
            K::kPercent},
           {"Memory breakdown", "L2 Cache Throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed",
            K::kPercent},
           {"Memory breakdown", "DRAM Throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            K::kPercent},
           {"Memory breakdown", "DRAM: Read Throughput", "fbpa__dram_read_throughput.avg.pct_of_peak_sustained_elapsed",
            K::kPercent},
           {"Memory breakdown", "DRAM: Write Throughput",
            "fbpa__dram_write_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
           {"Memory breakdown", "SM: Memory Throughput", "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed",
            K::kPercent},
           {"Memory breakdown", "L1/TEX: L2 -> L1 Throughput",
            "l1tex__m_xbar2l1tex_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
           {"Memory breakdown", "L1/TEX: L1 -> L2 Throughput",
            "l1tex__m_l1tex2xbar_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
           {"Memory breakdown", "L2: To Crossbar Busy", "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed",
            K::kPercent},
       }});
  specs.push_back(
      {"MemoryWorkloadAnalysis",
       "Memory Workload Analysis",
       {
           {"", "DRAM Bandwidth", "dram__bytes.sum.per_second", K::kBytesPerSecond},
           {"", "L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct", K::kPercent},
           {"", "L2 Hit Rate", "lts__t_sector_hit_rate.pct", K::kPercent},
           {"", "L2 Compression Success Rate", "lrc__average_ilc_output_sector_compression_achieved_rate.pct",
            K::kPercent},
           {"", "Mem Pipes Busy (SM)", "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
           {"L1/TEX", "Global Load Requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", K::kCount, "request"},
           {"L1/TEX", "Global Load Sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", K::kCount, "sector"},
           {"L1/TEX", "Global Load Sectors Per Request",
            "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio", K::kRatio, "sector/request"},
           {"L1/TEX", "Global Load Hit Rate", "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", K::kPercent},
           {"L1/TEX", "Global Store Requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", K::kCount, "request"},
           {"L1/TEX", "Global Store Sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", K::kCount, "sector"},
           {"L1/TEX", "Global Store Sectors Per Request",
            "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio", K::kRatio, "sector/request"},
           {"L1/TEX", "Global Atomic Requests", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", K::kCount,
            "request"},
           {"L1/TEX", "Global Reduction Requests", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", K::kCount,
            "request"},
           {"L1/TEX", "Local Load Sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", K::kCount, "sector"},
           {"L1/TEX", "Local Store Sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", K::kCount, "sector"},
           {"L1/TEX", "Shared Load Wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", K::kCount,
            "wavefront"},
           {"L1/TEX", "Shared Store Wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", K::kCount,
            "wavefront"},
           {"L1/TEX", "Shared Load Bank Conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            K::kCount, "conflict"},
           {"L1/TEX", "Shared Store Bank Conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
            K::kCount, "conflict"},
           {"L1/TEX", "L2 -> L1 Bytes", "l1tex__m_xbar2l1tex_read_bytes.sum", K::kBytes},
           {"L1/TEX", "L1 -> L2 Bytes", "l1tex__m_l1tex2xbar_write_bytes.sum", K::kBytes},
           {"L2", "Sectors", "lts__t_sectors.sum", K::kCount, "sector"},
           {"L2", "Read Sectors", "lts__t_sectors_op_read.sum", K::kCount, "sector"},
           {"L2", "Write Sectors", "lts__t_sectors_op_write.sum", K::kCount, "sector"},
           {"L2", "Atomic Sectors", "lts__t_sectors_op_atom.sum", K::kCount, "sector"},
           {"L2", "Reduction Sectors", "lts__t_sectors_op_red.sum", K::kCount, "sector"},
           {"L2", "Read Hit Rate", "lts__t_sector_op_read_hit_rate.pct", K::kPercent},
           {"L2", "Write Hit Rate", "lts__t_sector_op_write_hit_rate.pct", K::kPercent},
           {"L2", "Misses To Device Memory", "lts__t_sectors_srcunit_tex_aperture_device_lookup_miss.sum", K::kCount,
            "sector"},
           {"L2", "Misses To System Memory", "lts__t_sectors_srcunit_tex_aperture_sysmem_lookup_miss.sum", K::kCount,
            "sector"},
           {"L2", "Misses To Peer Memory", "lts__t_sectors_srcunit_tex_aperture_peer_lookup_miss.sum", K::kCount,
            "sector"},
           {"L2", "Bytes", "lts__t_bytes.sum", K::kBytes},
           {"DRAM", "Bytes Read", "dram__bytes_read.sum", K::kBytes},
           {"DRAM", "Bytes Written", "dram__bytes_write.sum", K::kBytes},
           {"DRAM", "Bytes Read + Written", "dram__bytes.sum", K::kBytes},
           {"DRAM", "Busy", "dram__cycles_active.avg.pct_of_peak_sustained_elapsed", K::kPercent},
       }});
  specs.push_back({"ComputeWorkloadAnalysis",
                   "Compute Workload Analysis",
                   {
                       {"", "Executed IPC Elapsed", "sm__inst_executed.avg.per_cycle_elapsed", K::kRatio, "inst/cycle"},
                       {"", "Executed IPC Active", "sm__inst_executed.avg.per_cycle_active", K::kRatio, "inst/cycle"},
                       {"", "Issued IPC Active", "sm__inst_issued.avg.per_cycle_active", K::kRatio, "inst/cycle"},
                       {"", "Issue Slots Busy", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed", K::kPercent},
                       {"", "SM Busy", "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent},
                       {"Pipe utilization (of active cycles)", "ALU",
                        "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Pipe utilization (of active cycles)", "FMA",
                        "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Pipe utilization (of active cycles)", "FP64",
                        "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Pipe utilization (of active cycles)", "Shared",
                        "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Pipe utilization (of active cycles)", "Tensor",
                        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Pipe utilization (of active cycles)", "Tensor (HMMA)",
                        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Pipe utilization (of active cycles)", "Tensor (IMMA)",
                        "sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Pipe utilization (of active cycles)", "Tensor (DMMA)",
                        "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Pipe utilization (of active cycles)", "TMA",
                        "sm__pipe_tma_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "ADU",
                        "sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "ALU",
                        "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "CBU",
                        "sm__inst_executed_pipe_cbu.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "FMA",
                        "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "FMA (FP16)",
                        "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "FP64",
                        "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "LSU",
                        "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "Tensor (GMMA)",
                        "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "Tensor (HMMA)",
                        "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "TEX",
                        "sm__inst_executed_pipe_tex.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "Uniform",
                        "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Instructions by pipe (of peak)", "XU",
                        "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"Floating-point thread instructions", "FP32 Add",
                        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", K::kCount, "inst"},
                       {"Floating-point thread instructions", "FP32 Mul",
                        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", K::kCount, "inst"},
                       {"Floating-point thread instructions", "FP32 FMA",
                        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", K::kCount, "inst"},
                       {"Floating-point thread instructions", "FP64 Add",
                        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", K::kCount, "inst"},
                       {"Floating-point thread instructions", "FP64 Mul",
                        "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", K::kCount, "inst"},
                       {"Floating-point thread instructions", "FP64 FMA",
                        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", K::kCount, "inst"},
                       {"Floating-point thread instructions", "FP16 Add",
                        "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", K::kCount, "inst"},
                       {"Floating-point thread instructions", "FP16 Mul",
                        "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", K::kCount, "inst"},
                       {"Floating-point thread instructions", "FP16 FMA",
                        "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", K::kCount, "inst"},
                   }});
  // Grid, block and dynamic shared memory come from the launch itself
  // (kernel_sections adds them first).
  specs.push_back({"LaunchStats",
                   "Launch Statistics",
                   {
                       {"", "Registers Per Thread", "launch__registers_per_thread", K::kCount, "register"},
                       {"", "Static Shared Memory Per Block", "launch__shared_mem_per_block_static", K::kBytes},
                       {"", "Waves Per SM", "launch__waves_per_multiprocessor", K::kRatio},
                       {"", "Blocks Launched", "sm__ctas_launched.sum", K::kCount, "block"},
                       {"", "Warps Launched", "sm__warps_launched.sum", K::kCount, "warp"},
                   }});
  specs.push_back({"Occupancy",
                   "Occupancy",
                   {
                       {"", "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct", K::kPercent},
                       {"", "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", K::kPercent},
                       {"", "Achieved Active Warps Per SM", "sm__warps_active.avg.per_cycle_active", K::kRatio, "warp"},
                       {"", "Warp Slots Per Scheduler", "smsp__warps_active.avg.peak_sustained", K::kRatio, "warp"},
                       {"", "Block Limit Registers", "launch__occupancy_limit_registers", K::kCount, "block"},
                       {"", "Block Limit Shared Mem", "launch__occupancy_limit_shared_mem", K::kCount, "block"},
                       {"", "Block Limit Warps", "launch__occupancy_limit_warps", K::kCount, "block"},
                       {"", "Block Limit SM", "launch__occupancy_limit_blocks", K::kCount, "block"},
                       {"Warp launches waiting for", "Registers",
                        "tpc__warp_launch_cycles_stalled_shader_cs_reason_register_allocation.sum", K::kCycles},
                       {"Warp launches waiting for", "Shared Memory",
                        "tpc__warp_launch_cycles_stalled_shader_cs_reason_shmem_allocation.sum", K::kCycles},
                       {"Warp launches waiting for", "Block Slots",
                        "tpc__warp_launch_cycles_stalled_shader_cs_reason_cta_allocation.sum", K::kCycles},
                       {"Warp launches waiting for", "Barriers",
                        "tpc__warp_launch_cycles_stalled_shader_cs_reason_barrier_allocation.sum", K::kCycles},
                   }});
  specs.push_back(
      {"SchedulerStats",
       "Scheduler Statistics",
       {
           {"", "Active Warps Per Scheduler", "smsp__warps_active.avg.per_cycle_active", K::kRatio, "warp"},
           {"", "Eligible Warps Per Scheduler", "smsp__warps_eligible.avg.per_cycle_active", K::kRatio, "warp"},
           {"", "Issued Warp Per Scheduler", "smsp__issue_active.avg.per_cycle_active", K::kRatio},
           {"", "One or More Eligible", "smsp__issue_active.avg.per_cycle_active", K::kPercent, {}, 100},
           {"", "No Eligible", "smsp__issue_inst0.avg.per_cycle_active", K::kPercent, {}, 100},
       }});
  SectionSpec warp{"WarpStateStats",
                   "Warp State Statistics",
                   {
                       {"", "Warp Cycles Per Issued Instruction", "smsp__average_warp_latency_per_inst_issued.ratio",
                        K::kRatio, "cycle"},
                       {"", "Warp Cycles Per Executed Instruction",
                        "smsp__average_warps_active_per_inst_executed.ratio", K::kRatio, "cycle"},
                       {"", "Avg. Active Threads Per Warp", "smsp__thread_inst_executed_per_inst_executed.ratio",
                        K::kRatio, "thread"},
                       {"", "Avg. Not Predicated Off Threads Per Warp",
                        "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", K::kRatio, "thread"},
                   },
                   true};
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 19> kStalls = {{
      {"Barrier", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"},
      {"Branch Resolving", "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio"},
      {"Dispatch Stall", "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio"},
      {"Drain", "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio"},
      {"GMMA", "smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio"},
      {"IMC Miss", "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio"},
      {"LG Throttle", "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio"},
      {"Long Scoreboard", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"},
      {"Math Pipe Throttle", "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"},
      {"Membar", "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio"},
      {"MIO Throttle", "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"},
      {"Misc", "smsp__average_warps_issue_stalled_misc_per_issue_active.ratio"},
      {"No Instruction", "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio"},
      {"Not Selected", "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"},
      {"Selected", "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"},
      {"Short Scoreboard", "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"},
      {"Sleeping", "smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio"},
      {"Tex Throttle", "smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio"},
      {"Wait", "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"},
  }};
  for (const auto& [label, role] : kStalls) {
    warp.rows.push_back({"Stall reasons (warp cycles per issued instruction)", label, role, K::kRatio, "cycle"});
  }
  specs.push_back(std::move(warp));
  specs.push_back(
      {"InstructionStats",
       "Instruction Statistics",
       {
           {"", "Executed Instructions", "smsp__inst_executed.sum", K::kCount, "inst"},
           {"", "Issued Instructions", "smsp__inst_issued.sum", K::kCount, "inst"},
           {"", "Thread Instructions Executed", "smsp__thread_inst_executed.sum", K::kCount, "inst"},
           {"", "Thread Instructions Not Predicated Off", "smsp__sass_thread_inst_executed_pred_on.sum", K::kCount,
            "inst"},
           {"", "Branch Instructions", "smsp__sass_inst_executed_op_branch.sum", K::kCount, "inst"},
           {"", "Branch Targets", "smsp__sass_branch_targets.sum", K::kCount, "target"},
           {"", "Divergent Branch Targets", "smsp__sass_branch_targets_threads_divergent.sum", K::kCount, "target"},
           {"Memory instructions", "Global", "smsp__sass_inst_executed_op_global.sum", K::kCount, "inst"},
           {"Memory instructions", "Global Loads", "smsp__sass_inst_executed_op_global_ld.sum", K::kCount, "inst"},
           {"Memory instructions", "Global Stores", "smsp__sass_inst_executed_op_global_st.sum", K::kCount, "inst"},
           {"Memory instructions", "Global Atomics", "smsp__sass_inst_executed_op_global_atom.sum", K::kCount, "inst"},
           {"Memory instructions", "Global Reductions", "smsp__sass_inst_executed_op_global_red.sum", K::kCount,
            "inst"},
           {"Memory instructions", "Shared Loads", "smsp__sass_inst_executed_op_shared_ld.sum", K::kCount, "inst"},
           {"Memory instructions", "Shared Stores", "smsp__sass_inst_executed_op_shared_st.sum", K::kCount, "inst"},
           {"Memory instructions", "Local Loads", "smsp__sass_inst_executed_op_local_ld.sum", K::kCount, "inst"},
           {"Memory instructions", "Local Stores", "smsp__sass_inst_executed_op_local_st.sum", K::kCount, "inst"},
           {"Memory instructions", "Async Copies (LDGSTS)", "smsp__sass_inst_executed_op_ldgsts.sum", K::kCount,
            "inst"},
           {"Memory instructions", "Shared Matrix Loads (LDSM)", "smsp__sass_inst_executed_op_ldsm.sum", K::kCount,
            "inst"},
           {"Memory instructions", "TMA", "smsp__sass_inst_executed_op_tma.sum", K::kCount, "inst"},
           {"Memory instructions", "8-bit Accesses", "smsp__sass_inst_executed_op_memory_8b.sum", K::kCount, "inst"},
           {"Memory instructions", "16-bit Accesses", "smsp__sass_inst_executed_op_memory_16b.sum", K::kCount, "inst"},
           {"Memory instructions", "32-bit Accesses", "smsp__sass_inst_executed_op_memory_32b.sum", K::kCount, "inst"},
           {"Memory instructions", "64-bit Accesses", "smsp__sass_inst_executed_op_memory_64b.sum", K::kCount, "inst"},
           {"Memory instructions", "128-bit Accesses", "smsp__sass_inst_executed_op_memory_128b.sum", K::kCount,
            "inst"},
           {"Memory instructions", "Global Load Bytes Used Per Sector",
            "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", K::kPercent},
           {"Memory instructions", "Global Store Bytes Used Per Sector",
            "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", K::kPercent},
           {"Memory instructions", "Shared Bytes Used Per Wavefront",
            "smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct", K::kPercent},
       }});
  return specs;
}

// The name under which `metrics` has `role`, and its value.
std::optional<std::pair<std::string, double>> find_role(const MetricLookup& metrics, std::string_view role) {
  for (std::string& name : role_spellings(role)) {
    if (auto it = metrics.find(name); it != metrics.end()) return std::pair{std::move(name), it->second};
  }
  return std::nullopt;
}

SectionRow launch_row(std::string_view label, double value, QuantityKind kind, std::string_view noun = {}) {
  Quantity q = format_quantity(value, kind, noun);
  return {"", std::string(label), "", value, std::move(q.value), std::move(q.unit)};
}

}  // namespace

Quantity format_quantity(double value, QuantityKind kind, std::string_view noun) {
  static constexpr std::array<std::string_view, 6> kByteUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  static constexpr std::array<std::string_view, 6> kRateUnits = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
  static constexpr std::array<std::string_view, 4> kHertzUnits = {"Hz", "KHz", "MHz", "GHz"};
  static constexpr std::array<std::string_view, 3> kTimeUnits = {"us", "ms", "s"};
  const auto text_unit = [&](std::string_view fallback) { return std::string(noun.empty() ? fallback : noun); };
  if (!std::isfinite(value)) {
    const std::string_view unit = kind == K::kPercent          ? "%"
                                  : kind == K::kBytes          ? "B"
                                  : kind == K::kBytesPerSecond ? "B/s"
                                  : kind == K::kFrequency      ? "Hz"
                                  : kind == K::kDuration       ? "ns"
                                  : kind == K::kCycles         ? "cycle"
                                                               : noun;
    return {non_finite(value), std::string(unit)};
  }
  switch (kind) {
    case K::kPercent: return {two_decimals(value), "%"};
    case K::kBytes:
      if (std::fabs(value) < 1023.5) return {whole(value), "B"};
      return scaled(value, 1024, kByteUnits);
    case K::kBytesPerSecond: return scaled(value, 1000, kRateUnits);
    case K::kFrequency: return scaled(value, 1000, kHertzUnits);
    case K::kDuration:
      if (std::fabs(value) < 999.5) return {whole(value), "ns"};
      return scaled(value / 1000, 1000, kTimeUnits);
    case K::kCount: return {whole(value), text_unit("")};
    case K::kCycles: return {whole(value), "cycle"};
    case K::kRatio: return {two_decimals(value), text_unit("")};
  }
  return {two_decimals(value), text_unit("")};
}

const std::vector<SectionSpec>& kernel_section_specs() {
  // Never destroyed: the injection library's exit handler writes the report
  // after the destructors of statics made after it was registered (this one
  // at the first range's journal line) have run.
  static const std::vector<SectionSpec>& specs = *new const std::vector<SectionSpec>(build_specs());
  return specs;
}

MetricLookup metric_lookup(const KernelRecord& kernel) {
  MetricLookup out;
  out.reserve(kernel.metrics.size());
  for (const MetricValue& m : kernel.metrics) out.emplace(m.name, m.value);
  return out;
}

std::optional<double> role_value(const MetricLookup& metrics, std::string_view role) {
  if (auto found = find_role(metrics, role)) return found->second;
  return std::nullopt;
}

std::vector<KernelSection> kernel_sections(const KernelRecord& kernel) {
  const MetricLookup metrics = metric_lookup(kernel);
  std::vector<KernelSection> out;
  for (const SectionSpec& spec : kernel_section_specs()) {
    KernelSection section{std::string(spec.name), std::string(spec.title), {}};
    if (spec.name == "LaunchStats") {
      const auto count = [](const Dim3& d) { return double(d.x) * double(d.y) * double(d.z); };
      section.rows.push_back(launch_row("Grid Size", count(kernel.grid), K::kCount, "block"));
      section.rows.push_back(launch_row("Block Size", count(kernel.block), K::kCount, "thread"));
      section.rows.push_back(launch_row("Threads", count(kernel.grid) * count(kernel.block), K::kCount, "thread"));
      section.rows.push_back(launch_row("Dynamic Shared Memory Per Block", kernel.shared_mem_bytes, K::kBytes));
    }
    for (const SectionRowSpec& row : spec.rows) {
      auto found = find_role(metrics, row.role);
      if (!found) continue;
      Quantity q = format_quantity(found->second * row.scale, row.kind, row.noun);
      section.rows.push_back({std::string(row.group), std::string(row.label), std::move(found->first), found->second,
                              std::move(q.value), std::move(q.unit)});
    }
    if (spec.sort_by_value) {
      // The headline rows (group "") stay first; the other rows largest first.
      auto rest = std::stable_partition(section.rows.begin(), section.rows.end(),
                                        [](const SectionRow& r) { return r.group.empty(); });
      std::stable_sort(rest, section.rows.end(),
                       [](const SectionRow& a, const SectionRow& b) { return a.raw > b.raw; });
    }
    if (!section.rows.empty()) out.push_back(std::move(section));
  }
  return out;
}

}  // namespace rangereplay::report
