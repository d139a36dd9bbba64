// The built-in metric sets, their sections, the roles' spellings per chip,
// and --metrics/--set resolution (see metric_sets.h).
//
// Sources of the lists: Nsight Compute's section files name the metrics each
// report section shows (SpeedOfLight, ComputeWorkloadAnalysis,
// MemoryWorkloadAnalysis and its chart and tables, WarpStateStats,
// SchedulerStats, Occupancy, WorkloadDistribution, InstructionStats); the
// roles here are those sections' hardware-counter metrics that exist on GH100
// according to cuptiProfilerHostGetBaseMetrics/GetSubMetrics (CUDA 13), and
// the other spellings those of the chips from Ampere on that the same host API
// lists. Launch attributes (launch__*) are not hardware counters and cannot be
// collected by the Range Profiler, so no set contains them. pcie__* metrics
// are left out too: CUPTI refuses to schedule them together with SM or memory
// counters (cuptiProfilerHostConfigAddMetrics returns
// CUPTI_ERROR_NOT_SUPPORTED).
#include "core/config/metric_sets.h"

#include <algorithm>
#include <initializer_list>
#include <unordered_map>
#include <unordered_set>

#include "core/base/closest_names.h"

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

std::vector<MetricSection> build_metric_sections() {
  std::vector<MetricSection> sections;
  // Collected in one pass on GH100: durations, cycles, instruction and byte
  // counts. No throughput (pct_of_peak) metrics: each of those needs several
  // passes.
  sections.push_back({"OnePassCounts",
                      "One-Pass Counts",
                      {
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
                      }});
  // --set triage: counts that PM sampling takes in one configuration on
  // GH100 and that sum over samples (a range's total is the sum of its
  // samples' values). The injection keeps those the chip's PM sampling
  // offers (cuptiPmSamplingGetCounterAvailability).
  sections.push_back({"PmSamplingCounts",
                      "PM Sampling Counts",
                      {
                          "smsp__inst_executed.sum",
                          "sm__cycles_active.sum",
                          "dram__bytes_read.sum",
                          "dram__bytes_write.sum",
                          "lts__t_sectors.sum",
                      }});
  // Nsight Compute's "basic" headline: Speed Of Light throughputs, duration,
  // DRAM traffic, instructions and achieved occupancy.
  sections.push_back({"SpeedOfLight",
                      "Speed Of Light",
                      {
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
                      }});
  // IPC, pipe utilisation, floating-point operation counts, issue and
  // eligibility.
  sections.push_back({"ComputeWorkloadAnalysis",
                      "Compute Workload Analysis",
                      {
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
                      }});
  // Throughputs, hit rates, and the L1/L2/DRAM traffic by operation and
  // memory space.
  sections.push_back({"MemoryWorkloadAnalysis",
                      "Memory Workload Analysis",
                      {
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
                      }});
  // Throughput breakdown (ncu SpeedOfLight breakdown tables)
  sections.push_back({"ThroughputBreakdown",
                      "Speed Of Light throughput breakdown",
                      {
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
                      }});
  // Warp state statistics and scheduler statistics
  sections.push_back({"WarpStateStats",
                      "Warp State and Scheduler Statistics",
                      {
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
                      }});
  // Launch and occupancy limiters
  sections.push_back({"LaunchStats",
                      "Launch Statistics and Occupancy Limiters",
                      {
                          "tpc__warp_launch_cycles_stalled_shader_cs_reason_register_allocation.sum",
                          "sm__ctas_launched.sum",
                          "sm__warps_launched.sum",
                          "tpc__warp_launch_cycles_stalled_shader_cs_reason_shmem_allocation.sum",
                          "tpc__warp_launch_cycles_stalled_shader_cs_reason_cta_allocation.sum",
                          "tpc__warp_launch_cycles_stalled_shader_cs_reason_barrier_allocation.sum",
                      }});
  // Workload distribution (per-unit active cycles)
  sections.push_back({"WorkloadDistribution",
                      "Workload Distribution",
                      {
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
                      }});
  // Instruction statistics (SASS)
  sections.push_back({"InstructionStats",
                      "Instruction Statistics",
                      {
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
                      }});
  // Compute pipes
  sections.push_back({"ComputePipes",
                      "Compute Pipes",
                      {
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
                      }});
  // L1/TEX cache tables
  sections.push_back({"MemoryTablesL1",
                      "Memory Tables: L1/TEX",
                      {
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
                      }});
  // L2 cache tables
  sections.push_back({"MemoryTablesL2",
                      "Memory Tables: L2",
                      {
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
                      }});
  // Device memory
  sections.push_back({"MemoryTablesDram",
                      "Memory Tables: Device Memory",
                      {
                          "dram__cycles_active.avg.pct_of_peak_sustained_elapsed",
                      }});
  // Roofline (ncu's SpeedOfLight roofline charts, FP64/FP32/FP16 and tensor;
  // report/roofline.h computes it and the HTML report draws it): L2 bytes,
  // the tensor cores' math operations by source type, and the peak rates of
  // the FP pipes, the tensor path by type, DRAM and L2 with their clocks
  sections.push_back({"Roofline",
                      "Roofline",
                      {
                          "lts__t_bytes.sum",
                          "sm__ops_path_tensor_src_fp64.sum",
                          "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
                          "sm__ops_path_tensor_src_fp16.sum",
                          "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
                          "sm__ops_path_tensor_src_fp8.sum",
                          "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
                          "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
                          "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
                          "sm__ops_path_tensor_src_fp64.sum.peak_sustained",
                          "sm__ops_path_tensor_src_tf32_dst_fp32.sum.peak_sustained",
                          "sm__ops_path_tensor_src_fp16.sum.peak_sustained",
                          "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained",
                          "sm__ops_path_tensor_src_fp8.sum.peak_sustained",
                          "sm__cycles_elapsed.avg.per_second",
                          "dram__bytes.sum.peak_sustained",
                          "lts__t_bytes.sum.peak_sustained",
                          "lts__cycles_elapsed.avg.per_second",
                      }});
  return sections;
}

// Other chips' spellings of a role, by role (its GH100 spelling). Only roles
// some chip from Ampere on has under another name are listed; the test
// tests/cupti_host/metric_sets_all_chips_test.cpp checks that each spelling
// exists on some chip.
const std::unordered_map<std::string, std::vector<std::string>>& other_spellings() {
  // Never destroyed (as metric_sections()): read by exit handlers.
  static const auto& table = *new const std::unordered_map<std::string, std::vector<std::string>>{
      // GB20x (GDDR7): DRAM traffic by operation is dram__*_op_read/_op_write.
      {"dram__bytes_read.sum", {"dram__bytes_op_read.sum"}},
      {"dram__bytes_write.sum", {"dram__bytes_op_write.sum"}},
      {"dram__sectors_read.sum", {"dram__sectors_op_read.sum"}},
      {"dram__sectors_write.sum", {"dram__sectors_op_write.sum"}},
      // Blackwell: the tensor pipe's HMMA/IMMA/DMMA parts are sub-pipes.
      {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
       {"sm__pipe_tensor_subpipe_hmma_cycles_active.avg.pct_of_peak_sustained_active"}},
      {"sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active",
       {"sm__pipe_tensor_subpipe_imma_cycles_active.avg.pct_of_peak_sustained_active"}},
      {"sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active",
       {"sm__pipe_tensor_subpipe_dmma_cycles_active.avg.pct_of_peak_sustained_active"}},
      {"sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active",
       {"sm__inst_executed_pipe_tensor_subpipe_hmma.avg.pct_of_peak_sustained_active"}},
      // GA100: FP16 has its own pipe rather than an FMA pipe type.
      {"sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active",
       {"sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_active"}},
  };
  return table;
}

// Each set: its sections. detailed and full list the sections of the sets
// they extend first, so their GH100 lists begin with those sets' metrics.
struct SetSpec {
  const char* name;
  const char* description;
  std::vector<std::string> sections;
};

std::vector<MetricSet> build_metric_sets(const std::vector<MetricSection>& sections) {
  const std::vector<std::string> detailed = {"SpeedOfLight", "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis"};
  std::vector<std::string> full = detailed;
  for (const char* s :
       {"ThroughputBreakdown", "WarpStateStats", "LaunchStats", "WorkloadDistribution", "InstructionStats",
        "ComputePipes", "MemoryTablesL1", "MemoryTablesL2", "MemoryTablesDram", "Roofline"})
    full.emplace_back(s);
  const std::vector<SetSpec> specs = {
      {"single-pass", "durations, cycles, instruction and byte counts collected in one pass", {"OnePassCounts"}},
      {kTriageSetName.data(),  // a literal: null-terminated
       "whole-range totals and a time series per range by PM sampling, no replay (experimental)",
       {"PmSamplingCounts"}},
      {"basic", "Speed Of Light throughputs, duration, DRAM bytes, instructions, achieved occupancy", {"SpeedOfLight"}},
      {"memory",
       "memory workload: L1/L2/DRAM throughput, hit rates, traffic per operation",
       {"MemoryWorkloadAnalysis"}},
      {"compute",
       "compute workload: IPC, pipe utilisation, FP operation counts, issue and eligibility",
       {"ComputeWorkloadAnalysis"}},
      {"detailed", "basic + compute + memory", detailed},
      {"full",
       "detailed + throughput breakdowns, warp stalls, scheduler, occupancy limiters, workload "
       "distribution, instruction statistics, full L1/L2 tables",
       full},
  };
  std::vector<MetricSet> sets;
  for (const SetSpec& spec : specs) {
    MetricSet set{spec.name, spec.description, spec.sections, {}};
    std::unordered_set<std::string> seen;
    for (const std::string& section_name : spec.sections) {
      const auto section = std::find_if(sections.begin(), sections.end(),
                                        [&](const MetricSection& s) { return s.name == section_name; });
      if (section == sections.end()) continue;  // the tables above name only sections defined here
      for (const std::string& role : section->roles) {
        if (seen.insert(role).second) set.metrics.push_back(role);
      }
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

// Made once and never destroyed: the injection library's exit handler (the
// report's write) may run after the destructors of statics made after it
// was registered, as these are, at the first range.
const std::vector<MetricSection>& metric_sections() {
  static const std::vector<MetricSection>& sections = *new const std::vector<MetricSection>(build_metric_sections());
  return sections;
}

const std::vector<MetricSet>& metric_sets() {
  static const std::vector<MetricSet>& sets = *new const std::vector<MetricSet>(build_metric_sets(metric_sections()));
  return sets;
}

const MetricSection* find_metric_section(std::string_view name) {
  for (const MetricSection& section : metric_sections()) {
    if (section.name == name) return &section;
  }
  return nullptr;
}

std::vector<std::string> role_spellings(std::string_view role) {
  std::vector<std::string> out = {std::string(role)};
  const auto& table = other_spellings();
  if (auto it = table.find(out.front()); it != table.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  return out;
}

ResolvedMetrics resolve_roles(const std::vector<std::string>& roles, const MetricPresence& chip_has) {
  ResolvedMetrics out;
  std::unordered_set<std::string> seen;
  for (const std::string& role : roles) {
    bool found = false;
    for (std::string& name : role_spellings(role)) {
      if (!chip_has(name)) continue;
      if (seen.insert(name).second) out.metrics.push_back(std::move(name));
      found = true;
      break;
    }
    if (!found) out.missing.push_back(role);
  }
  return out;
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

StatusOr<ResolvedMetrics> resolve_metric_list(std::string_view metrics_csv, std::string_view set_name,
                                              const MetricPresence& chip_has) {
  return resolve_metric_list(split_metric_csv(metrics_csv), set_name, chip_has);
}

StatusOr<ResolvedMetrics> resolve_metric_list(const std::vector<std::string>& explicit_metrics,
                                              std::string_view set_name, const MetricPresence& chip_has) {
  ResolvedMetrics out;
  ResolvedMetrics from_set;
  if (!trim(set_name).empty()) {
    RR_ASSIGN_OR_RETURN(const MetricSet* set, find_metric_set(trim(set_name)));
    from_set = resolve_roles(set->metrics, chip_has);
  }
  out.metrics = union_of({&explicit_metrics, &from_set.metrics});
  out.missing = std::move(from_set.missing);
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
