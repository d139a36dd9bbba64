// The built-in metric sets and --metrics/--set expansion (see metric_sets.h).
//
// Sources of the lists: Nsight Compute's section files name the metrics each
// report section shows (SpeedOfLight, ComputeWorkloadAnalysis,
// MemoryWorkloadAnalysis and its chart and tables, WarpStateStats,
// SchedulerStats, Occupancy, WorkloadDistribution, InstructionStats); the
// names here are those sections' hardware-counter metrics that exist on GH100
// according to cuptiProfilerHostGetBaseMetrics/GetSubMetrics (CUDA 13). Launch
// attributes (launch__*) are not hardware counters and cannot be collected by
// the Range Profiler, so no set contains them. pcie__* metrics are left out
// too: CUPTI refuses to schedule them together with SM or memory counters
// (cuptiProfilerHostConfigAddMetrics returns CUPTI_ERROR_NOT_SUPPORTED).
#include "core/metric_sets.h"

#include <algorithm>
#include <initializer_list>
#include <unordered_set>

#include "core/closest_names.h"

namespace rangereplay {
namespace {

// Appends the names of each list in order, skipping names already present.
std::vector<std::string> union_of(std::initializer_list<const std::vector<std::string>*> lists) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const auto* list : lists) {
    for (const auto& name : *list) {
      if (seen.insert(name).second) out.push_back(name);
    }
  }
  return out;
}

std::vector<MetricSet> build_metric_sets() {
  // One pass on GH100: durations, cycles, instruction and byte counts. No
  // throughput (pct_of_peak) metrics: each of those needs several passes.
  std::vector<std::string> single_pass = {
      "gpu__time_duration.sum",
      "gpc__cycles_elapsed.max",
      "sm__cycles_active.avg",
      "sm__cycles_elapsed.avg",
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
      "smsp__inst_executed.sum",
      "smsp__thread_inst_executed.sum",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "sm__warps_launched.sum",
      "sm__ctas_launched.sum",
      "lts__t_sectors.sum",
      "lts__t_sectors_op_read.sum",
      "lts__t_sectors_op_write.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
  };
  // Nsight Compute's "basic" headline: Speed Of Light throughputs, duration,
  // DRAM traffic, instructions and achieved occupancy.
  std::vector<std::string> basic = {
      "gpu__time_duration.sum",
      "gpc__cycles_elapsed.max",
      "gpc__cycles_elapsed.avg.per_second",
      "sm__cycles_active.avg",
      "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
      "l1tex__throughput.avg.pct_of_peak_sustained_active",
      "lts__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
      "dram__cycles_elapsed.avg.per_second",
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
      "smsp__inst_executed.sum",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
  };
  // Memory Workload Analysis: throughputs, hit rates, and the L1/L2/DRAM
  // traffic by operation and memory space.
  std::vector<std::string> memory = {
      "gpu__time_duration.sum",
      "gpc__cycles_elapsed.max",
      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_request_throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
      "l1tex__throughput.avg.pct_of_peak_sustained_active",
      "lts__throughput.avg.pct_of_peak_sustained_elapsed",
      "dram__bytes.sum",
      "dram__bytes.sum.per_second",
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
      "dram__sectors_read.sum",
      "dram__sectors_write.sum",
      "l1tex__t_sector_hit_rate.pct",
      "lts__t_sector_hit_rate.pct",
      "lts__t_sectors.sum",
      "lts__t_sectors_op_read.sum",
      "lts__t_sectors_op_write.sum",
      "lts__t_sectors_op_atom.sum",
      "lts__t_sectors_op_red.sum",
      "lts__t_requests_srcunit_tex.sum",
      "lts__t_sectors_srcunit_tex.sum",
      "lts__t_sectors_srcunit_tex_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_lookup_miss.sum",
      "lts__d_sectors_fill_device.sum",
      "lts__d_sectors_fill_sysmem.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum",
      "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
      "l1tex__t_sector_pipe_lsu_mem_global_op_st_hit_rate.pct",
      "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
      "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
      "l1tex__m_xbar2l1tex_read_bytes.sum",
      "l1tex__m_l1tex2xbar_write_bytes.sum",
      "smsp__inst_executed_op_global_ld.sum",
      "smsp__inst_executed_op_global_st.sum",
      "smsp__inst_executed_op_shared_ld.sum",
      "smsp__inst_executed_op_shared_st.sum",
      "smsp__inst_executed_op_local_ld.sum",
      "smsp__inst_executed_op_local_st.sum",
      "lrc__ilc_input_sectors.sum",
      "lrc__average_ilc_output_sector_compression_achieved_rate.pct",
  };
  // Compute Workload Analysis: IPC, pipe utilisation, floating-point
  // operation counts, issue and eligibility.
  std::vector<std::string> compute = {
      "gpu__time_duration.sum",
      "gpc__cycles_elapsed.max",
      "sm__cycles_active.avg",
      "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__inst_executed.avg.per_cycle_elapsed",
      "sm__inst_executed.avg.per_cycle_active",
      "sm__inst_issued.avg.per_cycle_active",
      "sm__inst_issued.avg.pct_of_peak_sustained_elapsed",
      "smsp__inst_executed.sum",
      "smsp__inst_issued.sum",
      "smsp__thread_inst_executed.sum",
      "smsp__thread_inst_executed_per_inst_executed.ratio",
      "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
      "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_cbu.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_tex.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
      "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "sm__warps_active.avg.per_cycle_active",
      "smsp__issue_active.avg.per_cycle_active",
      "smsp__warps_eligible.avg.per_cycle_active",
      "smsp__average_warp_latency_per_inst_issued.ratio",
  };
  // What "full" adds to basic, compute and memory.
  std::vector<std::string> full_extra = {
      // Throughput breakdown (ncu SpeedOfLight breakdown tables)
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
      "fbpa__dram_read_throughput.avg.pct_of_peak_sustained_elapsed",
      "fbpa__dram_write_throughput.avg.pct_of_peak_sustained_elapsed",
      "fbpa__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_access_throughput_internal_activity.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_request_throughput_internal_activity.avg.pct_of_peak_sustained_elapsed",
      "l1tex__m_l1tex2xbar_throughput.avg.pct_of_peak_sustained_elapsed",
      "l1tex__m_l1tex2xbar_throughput_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
      "l1tex__m_l1tex2xbar_throughput_pipe_lsu_mem_dshared.avg.pct_of_peak_sustained_elapsed",
      "l1tex__m_l1tex2xbar_throughput_pipe_tex.avg.pct_of_peak_sustained_elapsed",
      "l1tex__m_xbar2l1tex_throughput.avg.pct_of_peak_sustained_elapsed",
      "l1tex__m_xbar2l1tex_throughput_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
      "l1tex__m_xbar2l1tex_throughput_pipe_lsu_mem_dshared.avg.pct_of_peak_sustained_elapsed",
      "l1tex__m_xbar2l1tex_throughput_pipe_tex.avg.pct_of_peak_sustained_elapsed",
      "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
      "lts__throughput_internal_activity.avg.pct_of_peak_sustained_elapsed",
      "sm__instruction_throughput_internal_activity.avg.pct_of_peak_sustained_elapsed",
      "sm__memory_throughput_internal_activity.avg.pct_of_peak_sustained_elapsed",
      "tpc__l1tex_m_l1tex2xbar_throughput.avg.pct_of_peak_sustained_elapsed",
      // Warp state statistics and scheduler statistics
      "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_misc_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio",
      "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
      "smsp__average_warps_active_per_inst_executed.ratio",
      "smsp__warps_active.avg.per_cycle_active",
      "smsp__warps_active.avg.peak_sustained",
      "smsp__issue_inst0.avg.per_cycle_active",
      // Launch and occupancy limiters
      "tpc__warp_launch_cycles_stalled_shader_cs_reason_register_allocation.sum",
      "sm__ctas_launched.sum",
      "sm__warps_launched.sum",
      "tpc__warp_launch_cycles_stalled_shader_cs_reason_shmem_allocation.sum",
      "tpc__warp_launch_cycles_stalled_shader_cs_reason_cta_allocation.sum",
      "tpc__warp_launch_cycles_stalled_shader_cs_reason_barrier_allocation.sum",
      // Workload distribution (per-unit active cycles)
      "sm__cycles_active.max",
      "sm__cycles_active.min",
      "smsp__cycles_active.avg",
      "smsp__cycles_active.max",
      "smsp__cycles_active.min",
      "l1tex__cycles_active.avg",
      "l1tex__cycles_active.max",
      "l1tex__cycles_active.min",
      "lts__cycles_active.avg",
      "lts__cycles_active.max",
      "lts__cycles_active.min",
      "dram__cycles_active.avg",
      "dram__cycles_active.max",
      "dram__cycles_active.min",
      // Instruction statistics (SASS)
      "smsp__sass_inst_executed_op_global_ld.sum",
      "smsp__sass_inst_executed_op_global_st.sum",
      "smsp__sass_inst_executed_op_global_atom.sum",
      "smsp__sass_inst_executed_op_global_red.sum",
      "smsp__sass_inst_executed_op_shared_ld.sum",
      "smsp__sass_inst_executed_op_shared_st.sum",
      "smsp__sass_inst_executed_op_local_ld.sum",
      "smsp__sass_inst_executed_op_local_st.sum",
      "smsp__sass_inst_executed_op_branch.sum",
      "smsp__sass_branch_targets.sum",
      "smsp__sass_branch_targets_threads_divergent.sum",
      "smsp__sass_thread_inst_executed.sum",
      "smsp__sass_thread_inst_executed_pred_on.sum",
      "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
      "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
      "smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct",
      "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "smsp__sass_data_bytes_mem_shared_op_ld.sum",
      "smsp__sass_inst_executed_op_atom.sum",
      "smsp__sass_inst_executed_op_dshared.sum",
      "smsp__sass_inst_executed_op_global.sum",
      "smsp__sass_inst_executed_op_ldgsts.sum",
      "smsp__sass_inst_executed_op_ldsm.sum",
      "smsp__sass_inst_executed_op_local.sum",
      "smsp__sass_inst_executed_op_memory_128b.sum",
      "smsp__sass_inst_executed_op_memory_16b.sum",
      "smsp__sass_inst_executed_op_memory_32b.sum",
      "smsp__sass_inst_executed_op_memory_64b.sum",
      "smsp__sass_inst_executed_op_memory_8b.sum",
      "smsp__sass_inst_executed_op_shared.sum",
      "smsp__sass_inst_executed_op_shared_gmma.sum",
      "smsp__sass_inst_executed_op_shared_stsm.sum",
      "smsp__sass_inst_executed_op_texture.sum",
      "smsp__sass_inst_executed_op_tma.sum",
      "smsp__sass_inst_executed_op_tma_ld.sum",
      "smsp__sass_inst_executed_op_tma_red.sum",
      "smsp__sass_inst_executed_op_tma_st.sum",
      // Compute pipes
      "sm__inst_issued.max.pct_of_peak_sustained_elapsed",
      "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
      "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
      "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
      "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed",
      "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_elapsed",
      "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
      "sm__inst_executed_pipe_tma.avg.pct_of_peak_sustained_active",
      "sm__mio_inst_issued.sum",
      "sm__mioc_inst_issued.sum",
      "sm__ops_path_tensor_src_fp16.sum",
      "sm__ops_path_tensor_src_int8.sum",
      "sm__ops_path_tensor_op_hmma_src_fp16.sum",
      "sm__ops_path_tensor_op_imma_src_int8.sum",
      // L1/TEX cache tables
      "l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_active",
      "l1tex__texin_sm2tex_req_cycles_active.avg.pct_of_peak_sustained_active",
      "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
      "l1tex__f_wavefronts.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_miss.sum",
      "l1tex__t_requests_pipe_tex_mem_surface.sum",
      "l1tex__t_requests_pipe_tex_mem_surface_op_atom.sum",
      "l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum",
      "l1tex__t_requests_pipe_tex_mem_surface_op_red.sum",
      "l1tex__t_requests_pipe_tex_mem_surface_op_st.sum",
      "l1tex__t_requests_pipe_tex_mem_texture.sum",
      "l1tex__t_requests_pipe_tex_mem_texture_op_ld.sum",
      "l1tex__t_requests_pipe_tex_mem_texture_op_tex.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_lookup_hit.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_lookup_miss.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_atom.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_atom_lookup_hit.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_atom_lookup_miss.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_ld_lookup_hit.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_ld_lookup_miss.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_red.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_red_lookup_hit.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_red_lookup_miss.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_st_lookup_hit.sum",
      "l1tex__t_sectors_pipe_tex_mem_surface_op_st_lookup_miss.sum",
      "l1tex__t_sectors_pipe_tex_mem_texture.sum",
      "l1tex__t_sectors_pipe_tex_mem_texture_lookup_hit.sum",
      "l1tex__t_sectors_pipe_tex_mem_texture_lookup_miss.sum",
      "l1tex__t_sectors_pipe_tex_mem_texture_op_ld.sum",
      "l1tex__t_sectors_pipe_tex_mem_texture_op_ld_lookup_hit.sum",
      "l1tex__t_sectors_pipe_tex_mem_texture_op_ld_lookup_miss.sum",
      "l1tex__t_sectors_pipe_tex_mem_texture_op_tex.sum",
      "l1tex__t_sectors_pipe_tex_mem_texture_op_tex_lookup_hit.sum",
      "l1tex__t_sectors_pipe_tex_mem_texture_op_tex_lookup_miss.sum",
      "l1tex__t_requests.sum",
      "l1tex__t_requests_pipe_lsu.sum",
      "l1tex__t_requests_pipe_tex.sum",
      "l1tex__average_t_sectors_per_request.ratio",
      "l1tex__average_t_sectors_per_request_pipe_lsu.ratio",
      "l1tex__average_t_sectors_per_request_pipe_tex.ratio",
      "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
      "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
      "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_atom.ratio",
      "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_red.ratio",
      "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ldgsts_cache_access.ratio",
      "l1tex__average_t_sectors_per_request_pipe_lsu_mem_local_op_ld.ratio",
      "l1tex__average_t_sectors_per_request_pipe_lsu_mem_local_op_st.ratio",
      "l1tex__average_t_sectors_per_request_pipe_tex_mem_texture.ratio",
      "l1tex__average_t_sectors_per_request_pipe_tex_mem_surface_op_ld.ratio",
      "l1tex__average_t_sectors_per_request_pipe_tex_mem_surface_op_st.ratio",
      "l1tex__data_pipe_lsu_wavefronts_cmd_read.sum",
      "l1tex__data_pipe_lsu_wavefronts_cmd_write.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum",
      "l1tex__data_bank_conflicts_pipe_lsu.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_cmd_read.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_cmd_write.sum",
      "l1tex__lsu_writeback_active.sum",
      "l1tex__lsu_writeback_active_mem_shared.sum",
      "l1tex__t_output_wavefronts_pipe_lsu.sum",
      "l1tex__m_xbar2l1tex_read_sectors_pipe_lsu.sum",
      "l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum",
      "l1tex__m_l1tex2xbar_write_sectors_pipe_lsu.sum",
      "l1tex__m_l1tex2xbar_write_bytes_pipe_lsu.sum",
      "l1tex__m_xbar2l1tex_read_bytes_pipe_tex.sum",
      "l1tex__m_l1tex2xbar_write_bytes_pipe_tex.sum",
      // L2 cache tables
      "lts__t_sectors_srcunit_tex_op_read.sum",
      "lts__t_sectors_srcunit_tex_op_write.sum",
      "lts__t_sectors_srcunit_tex_op_atom.sum",
      "lts__t_sectors_srcunit_tex_op_red.sum",
      "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_op_read.sum",
      "lts__t_requests_srcunit_tex_op_write.sum",
      "lts__t_requests_srcunit_tex_op_atom.sum",
      "lts__t_requests_srcunit_tex_op_red.sum",
      "lts__t_sector_op_read_hit_rate.pct",
      "lts__t_sector_op_write_hit_rate.pct",
      "lts__t_sectors_srcunit_tex.avg.pct_of_peak_sustained_elapsed",
      "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed",
      "lts__t_requests_srcunit_tex_aperture_device_op_atom.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_atom_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_atom_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_read.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_read_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_read_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_red.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_red_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_red_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_write.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_write_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_device_op_write_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_atom.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_atom_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_atom_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_read.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_read_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_read_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_red.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_red_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_red_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_write.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_write_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_peer_op_write_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_atom.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_atom_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_atom_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_read.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_read_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_read_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_red.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_red_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_red_lookup_miss.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_write.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_write_lookup_hit.sum",
      "lts__t_requests_srcunit_tex_aperture_sysmem_op_write_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_atom.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_atom_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_atom_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_read.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_read_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_read_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_red.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_red_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_red_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_write.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_write_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_device_op_write_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_atom.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_atom_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_atom_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_read.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_read_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_read_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_red.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_red_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_red_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_write.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_write_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_peer_op_write_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_atom.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_atom_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_atom_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_read.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_read_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_read_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_red.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_red_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_red_lookup_miss.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_write.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_write_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_aperture_sysmem_op_write_lookup_miss.sum",
      "lts__t_sector_op_atom_hit_rate.pct",
      "lts__t_sector_op_red_hit_rate.pct",
      // Device memory
      "dram__cycles_active.avg.pct_of_peak_sustained_elapsed",
      // Roofline (ncu's SpeedOfLight roofline chart; the HTML report draws it):
      // L2 bytes and the peak rates of the FP pipes, DRAM and L2 with their clocks
      "lts__t_bytes.sum",
      "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
      "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
      "sm__cycles_elapsed.avg.per_second",
      "dram__bytes.sum.peak_sustained",
      "lts__t_bytes.sum.peak_sustained",
      "lts__cycles_elapsed.avg.per_second",
  };

  std::vector<MetricSet> sets;
  sets.push_back({"single-pass", "durations, cycles, instruction and byte counts collected in one pass",
                  union_of({&single_pass})});
  sets.push_back({"basic", "Speed Of Light throughputs, duration, DRAM bytes, instructions, achieved occupancy",
                  union_of({&basic})});
  sets.push_back(
      {"memory", "memory workload: L1/L2/DRAM throughput, hit rates, traffic per operation", union_of({&memory})});
  sets.push_back({"compute", "compute workload: IPC, pipe utilisation, FP operation counts, issue and eligibility",
                  union_of({&compute})});
  sets.push_back({"detailed", "basic + compute + memory", union_of({&basic, &compute, &memory})});
  sets.push_back({"full",
                  "detailed + throughput breakdowns, warp stalls, scheduler, occupancy limiters, workload "
                  "distribution, instruction statistics, full L1/L2 tables",
                  union_of({&basic, &compute, &memory, &full_extra})});
  return sets;
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

const std::vector<MetricSet>& metric_sets() {
  static const std::vector<MetricSet> sets = build_metric_sets();
  return sets;
}

StatusOr<const MetricSet*> find_metric_set(std::string_view name) {
  const auto& sets = metric_sets();
  std::vector<std::string> names;
  for (const auto& set : sets) {
    if (set.name == name) return &set;
    names.push_back(set.name);
  }
  std::string message = "unknown metric set '" + std::string(name) + "'";
  // "FULL": a known name typed in capitals, not a typo.
  if (const std::optional<std::string> lower = lower_case_match(name, names)) {
    message += "; set names are lower case: did you mean '" + *lower + "'?";
  } else {
    const auto closest = closest_names(name, names, 1, plausible_typo_distance(name.size()));
    message += closest.empty() ? ";" : "; did you mean '" + closest.front() + "'?";
  }
  message += " known sets:";
  for (std::size_t i = 0; i < names.size(); ++i) message += (i == 0 ? " " : ", ") + names[i];
  return invalid_argument(std::move(message));
}

std::vector<std::string> split_metric_csv(std::string_view metrics_csv) {
  std::vector<std::string> out;
  while (true) {
    const std::size_t comma = metrics_csv.find(',');
    const std::string_view item = trim(metrics_csv.substr(0, comma));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    metrics_csv.remove_prefix(comma + 1);
  }
  return out;
}

StatusOr<std::vector<std::string>> expand_metric_list(std::string_view metrics_csv, std::string_view set_name) {
  std::vector<std::string> explicit_metrics = split_metric_csv(metrics_csv);
  const std::vector<std::string> no_set;
  const std::vector<std::string>* set_metrics = &no_set;
  if (!trim(set_name).empty()) {
    RR_ASSIGN_OR_RETURN(const MetricSet* set, find_metric_set(trim(set_name)));
    set_metrics = &set->metrics;
  }
  return union_of({&explicit_metrics, set_metrics});
}

}  // namespace rangereplay
