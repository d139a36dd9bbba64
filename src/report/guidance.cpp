// Rule-based findings per kernel (see guidance.h).
#include "report/guidance.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "core/config/metric_sets.h"

namespace rangereplay::report {
namespace {

using K = QuantityKind;

struct Unit {
  std::string_view name;
  std::string_view role;
};
constexpr std::array<Unit, 3> kMemoryUnits = {{
    {"L1/TEX", "l1tex__throughput.avg.pct_of_peak_sustained_active"},
    {"L2", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"DRAM", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
}};

// Stall reasons with what each means and what to try.
struct Stall {
  std::string_view reason;
  std::string_view role;
  std::string_view advice;
};
constexpr std::string_view kSelected = "Selected";
constexpr std::string_view kNotSelected = "Not Selected";
constexpr std::array<Stall, 19> kStalls = {{
    {"Long Scoreboard", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
     "warps wait for global, local or texture data: keep more loads in flight (more independent loads per thread, "
     "more warps), stage data in shared memory, or move fewer bytes"},
    {"Short Scoreboard", "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
     "warps wait for shared memory or special-function results: cut shared-memory bank conflicts and MUFU "
     "(transcendental) instructions"},
    {"Barrier", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
     "warps wait at __syncthreads: balance the work between a block's warps or synchronize less often"},
    {"Branch Resolving", "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio",
     "warps wait for branch targets: fewer or uniform branches"},
    {"Dispatch Stall", "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
     "the dispatcher could not issue: usually pipeline conflicts; rarely actionable"},
    {"Drain", "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
     "exiting warps wait for their stores to drain: normal at the end of short kernels"},
    {"GMMA", "smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio",
     "warps wait for warpgroup MMA (wgmma) results: overlap them with loads of the next tile"},
    {"IMC Miss", "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio",
     "warps wait for the immediate-constant cache: use fewer distinct constants, or pass them as arguments"},
    {"LG Throttle", "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
     "the local/global memory queue is full: wider (vector) loads and stores, fewer local-memory spills"},
    {"Math Pipe Throttle", "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
     "a math pipe is saturated: spread work to other pipes or types (e.g. tensor cores)"},
    {"Membar", "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
     "warps wait at memory fences: fewer __threadfence or system-scope fences"},
    {"MIO Throttle", "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
     "the memory I/O queue is full (shared memory, special functions): fewer, wider shared accesses"},
    {"Misc", "smsp__average_warps_issue_stalled_misc_per_issue_active.ratio", "miscellaneous hardware reasons"},
    {"No Instruction", "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio",
     "instruction cache misses: smaller code (less unrolling or inlining) in the hot loop"},
    {"Not Selected", "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", ""},
    {"Selected", "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", ""},
    {"Sleeping", "smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio",
     "warps sleep (nanosleep or yield): check the back-off of spin loops"},
    {"Tex Throttle", "smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio",
     "the texture queue is full: fewer texture fetches or more ALU work per fetch"},
    {"Wait", "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
     "fixed-latency dependencies: more independent instructions between dependent ones (ILP)"},
}};

std::string shown(double value, QuantityKind kind, std::string_view noun = {}) {
  Quantity q = format_quantity(value, kind, noun);
  return q.unit.empty() ? q.value : q.unit == "%" ? q.value + "%" : q.value + " " + q.unit;
}

// The value of a role with what a finding shows of it; nullopt when missing.
struct Got {
  FindingValue value;
  double operator*() const { return value.value; }
};
std::optional<Got> get(const MetricLookup& metrics, std::string_view label, std::string_view role, QuantityKind kind,
                       std::string_view noun = {}) {
  for (std::string& name : role_spellings(role)) {
    if (auto it = metrics.find(name); it != metrics.end()) {
      return Got{{std::string(label), std::move(name), it->second, shown(it->second, kind, noun)}};
    }
  }
  return std::nullopt;
}

std::optional<Finding> bottleneck_rule(const MetricLookup& metrics) {
  const std::optional<BottleneckVerdict> v = classify_bottleneck(metrics);
  if (!v) return std::nullopt;
  Finding f;
  f.rule = "bottleneck";
  const std::optional<Got> compute = get(metrics, "Compute (SM) Throughput", kSolComputeRole, K::kPercent);
  const std::optional<Got> memory = get(metrics, "Memory Throughput", kSolMemoryRole, K::kPercent);
  f.values = {compute->value, memory->value};
  std::string busiest;
  if (!v->busiest_unit.empty()) {
    for (const Unit& u : kMemoryUnits) {
      if (u.name != v->busiest_unit) continue;
      if (auto g = get(metrics, fmt::format("{} Throughput", u.name), u.role, K::kPercent))
        f.values.push_back(g->value);
    }
    busiest = fmt::format(", its busiest unit {} at {}", v->busiest_unit, shown(v->busiest_unit_pct, K::kPercent));
  }
  const std::string figures =
      fmt::format("compute (SM) throughput {} and memory throughput {}{}", shown(v->compute_pct, K::kPercent),
                  shown(v->memory_pct, K::kPercent), busiest);
  switch (v->kind) {
    case Bottleneck::kMemory:
      f.title = "Memory bound";
      f.detail =
          fmt::format("The memory side is the busier and at least {:.0f}% of peak: {}.", kThroughputBoundPct, figures);
      f.advice =
          "Move fewer bytes: see Memory Workload Analysis for the unit that limits; coalesce accesses, reuse data "
          "through shared memory or L2, use narrower types, fuse kernels that pass data through memory.";
      break;
    case Bottleneck::kCompute:
      f.title = "Compute bound";
      f.detail = fmt::format("The SM is the busier and at least {:.0f}% of peak: {}.", kThroughputBoundPct, figures);
      f.advice =
          "Execute fewer or cheaper instructions: see Compute Workload Analysis for the busiest pipe; use tensor "
          "cores or lower precision where the math allows, and cut address and control overhead.";
      break;
    case Bottleneck::kLatency:
      f.title = "Latency bound";
      f.detail = fmt::format("Both are below {:.0f}% of peak ({}); the {} side is the higher.", kThroughputBoundPct,
                             figures, v->memory_side_pct() >= v->compute_pct ? "memory" : "compute");
      f.advice =
          "Neither throughput limits: the warps wait. See the stall reasons and occupancy; give the SMs more "
          "independent work (more blocks or warps, more loads in flight per thread); a grid too small to fill the "
          "GPU shows the same.";
      break;
  }
  return f;
}

std::optional<Finding> stall_rule(const MetricLookup& metrics) {
  const std::vector<StallShare> top = top_stalls(metrics, 2);
  if (top.empty()) return std::nullopt;
  Finding f;
  f.rule = "warp_stalls";
  std::vector<std::string> parts, advice;
  for (const StallShare& s : top) {
    f.values.push_back({s.reason, s.metric, s.cycles, shown(s.cycles, K::kRatio, "cycle")});
    parts.push_back(fmt::format("{} {:.2f} cycles per issued instruction ({:.1f}% of stall cycles)", s.reason, s.cycles,
                                s.share_pct));
    for (const Stall& st : kStalls) {
      if (st.reason == s.reason) advice.push_back(fmt::format("{}: {}", s.reason, st.advice));
    }
  }
  f.title = fmt::format("Warps mostly stall on {}", top.front().reason);
  f.detail = fmt::format("Largest stall reasons: {}.", fmt::join(parts, "; "));
  f.advice = fmt::format("{}.", fmt::join(advice, "; "));
  return f;
}

std::optional<Finding> occupancy_rule(const KernelRecord& kernel, const MetricLookup& metrics) {
  const std::optional<Got> achieved =
      get(metrics, "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", K::kPercent);
  if (!achieved || **achieved >= kLowOccupancyPct) return std::nullopt;
  const std::optional<BottleneckVerdict> verdict = classify_bottleneck(metrics);
  // A kernel at a throughput limit gains nothing from more warps.
  if (verdict && verdict->kind != Bottleneck::kLatency) return std::nullopt;
  Finding f;
  f.rule = "occupancy";
  f.values.push_back(achieved->value);
  std::string theoretical;
  if (auto t = get(metrics, "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct", K::kPercent)) {
    f.values.push_back(t->value);
    theoretical = fmt::format(" of a theoretical {}", t->value.shown);
  }
  // The limiter: the launch's block limits when the report has them (the
  // smallest), else what warp launches waited for, else a small block.
  std::string limiter, advice;
  struct Limit {
    std::string_view label, role, what, advice;
  };
  static constexpr std::array<Limit, 4> kLimits = {{
      {"Block Limit Registers", "launch__occupancy_limit_registers", "registers",
       "use fewer registers per thread (__launch_bounds__, -maxrregcount, less unrolling or fewer live values)"},
      {"Block Limit Shared Mem", "launch__occupancy_limit_shared_mem", "shared memory",
       "use less shared memory per block (smaller tiles) or raise the carve-out"},
      {"Block Limit Warps", "launch__occupancy_limit_warps", "warps per block", "use smaller blocks"},
      {"Block Limit SM", "launch__occupancy_limit_blocks", "blocks per SM", "use larger blocks (at least 64 threads)"},
  }};
  const Limit* smallest = nullptr;
  double smallest_blocks = 0;
  for (const Limit& l : kLimits) {
    if (auto g = get(metrics, l.label, l.role, K::kCount, "block")) {
      f.values.push_back(g->value);
      if (smallest == nullptr || **g < smallest_blocks) {
        smallest = &l;
        smallest_blocks = **g;
      }
    }
  }
  if (smallest != nullptr) {
    limiter = fmt::format("{} limit it to {} blocks per SM", smallest->what, shown(smallest_blocks, K::kCount));
    advice = fmt::format("To raise it, {}.", smallest->advice);
  } else {
    static constexpr std::array<Limit, 4> kWaits = {{
        {"Warp launches waiting for registers",
         "tpc__warp_launch_cycles_stalled_shader_cs_reason_register_allocation.sum", "registers",
         "use fewer registers per thread (__launch_bounds__, -maxrregcount, less unrolling or fewer live values)"},
        {"Warp launches waiting for shared memory",
         "tpc__warp_launch_cycles_stalled_shader_cs_reason_shmem_allocation.sum", "shared memory",
         "use less shared memory per block (smaller tiles) or raise the carve-out"},
        {"Warp launches waiting for block slots", "tpc__warp_launch_cycles_stalled_shader_cs_reason_cta_allocation.sum",
         "block slots", "use larger blocks (at least 64 threads)"},
        {"Warp launches waiting for barriers",
         "tpc__warp_launch_cycles_stalled_shader_cs_reason_barrier_allocation.sum", "barriers",
         "use fewer named barriers per block"},
    }};
    const Limit* most = nullptr;
    double most_cycles = 0;
    for (const Limit& l : kWaits) {
      if (auto g = get(metrics, l.label, l.role, K::kCycles)) {
        f.values.push_back(g->value);
        if (**g > most_cycles) {
          most = &l;
          most_cycles = **g;
        }
      }
    }
    const double threads = double(kernel.block.x) * kernel.block.y * kernel.block.z;
    if (most != nullptr) {
      limiter = fmt::format("warp launches waited {} for {}", shown(most_cycles, K::kCycles), most->what);
      advice = fmt::format("To raise it, {}.", most->advice);
    } else if (threads < kSmallBlockThreads) {
      f.values.push_back({"Block Size", "", threads, shown(threads, K::kCount, "thread")});
      limiter = fmt::format("blocks of {} threads fill at most {:.0f} warps of an SM at {:.0f} blocks per SM",
                            shown(threads, K::kCount), kMaxBlocksPerSm * std::ceil(threads / 32), kMaxBlocksPerSm);
      advice = fmt::format("Use blocks of at least {:.0f} threads.", kSmallBlockThreads);
    } else {
      const double blocks = double(kernel.grid.x) * kernel.grid.y * kernel.grid.z;
      f.values.push_back({"Grid Size", "", blocks, shown(blocks, K::kCount, "block")});
      limiter = fmt::format("no resource limit shows (registers, shared memory, block slots); the grid has {} blocks",
                            shown(blocks, K::kCount));
      advice =
          "A grid too small to give every SM several blocks, or blocks that finish unevenly, leave warp slots "
          "empty: launch more, smaller blocks or more work per launch.";
    }
  }
  f.title = "Low occupancy";
  f.detail = fmt::format("Achieved occupancy is {}{}, below {:.0f}%, on a kernel no throughput limits; {}.",
                         achieved->value.shown, theoretical, kLowOccupancyPct, limiter);
  f.advice = advice;
  return f;
}

std::optional<Finding> uncoalesced_rule(const MetricLookup& metrics) {
  struct Op {
    std::string_view what, used_role, sectors_role, requests_role;
  };
  static constexpr std::array<Op, 2> kOps = {{
      {"loads", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
       "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
      {"stores", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
       "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
  }};
  Finding f;
  f.rule = "uncoalesced_access";
  std::vector<std::string> parts;
  double all_sectors = 0;
  for (const Op& op : kOps) all_sectors += role_value(metrics, op.sectors_role).value_or(0);
  for (const Op& op : kOps) {
    const std::optional<Got> sectors =
        get(metrics, fmt::format("Global {} sectors", op.what), op.sectors_role, K::kCount, "sector");
    const std::optional<Got> requests =
        get(metrics, fmt::format("Global {} requests", op.what), op.requests_role, K::kCount, "request");
    const std::optional<Got> used =
        get(metrics, fmt::format("Global {} bytes used per sector", op.what), op.used_role, K::kPercent);
    if (!sectors || !requests || **requests <= 0 || **sectors < kMinShareOfGlobalSectors * all_sectors) continue;
    const double per_request = **sectors / **requests;
    const bool wasteful = used ? **used < kMinBytesUsedPerSectorPct : per_request > kMaxCoalescedSectorsPerRequest;
    if (!wasteful) continue;
    f.values.push_back(sectors->value);
    f.values.push_back(requests->value);
    if (used) f.values.push_back(used->value);
    parts.push_back(fmt::format("global {} fetch {} sectors per request{}", op.what, shown(per_request, K::kRatio),
                                used ? fmt::format(" and use {} of each sector's bytes", used->value.shown) : ""));
  }
  if (parts.empty()) return std::nullopt;
  f.title = "Uncoalesced global access";
  f.detail = fmt::format(
      "The {}: a warp's 32-bit accesses to consecutive addresses take 4 sectors per request and "
      "use every byte.",
      fmt::join(parts, "; the "));
  f.advice =
      "Make neighbouring threads access neighbouring addresses (structure of arrays instead of array of structures, "
      "index by threadIdx.x in the fastest dimension), or stage strided data through shared memory.";
  return f;
}

std::optional<Finding> cache_rule(const MetricLookup& metrics) {
  const std::optional<Got> dram =
      get(metrics, "DRAM Throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", K::kPercent);
  const std::optional<Got> l2_hit = get(metrics, "L2 Hit Rate", "lts__t_sector_hit_rate.pct", K::kPercent);
  if (!dram || !l2_hit || **dram < kThroughputBoundPct) return std::nullopt;
  Finding f;
  f.rule = "cache_hit_rates";
  f.values = {dram->value, l2_hit->value};
  std::string l1_text;
  if (auto l1 = get(metrics, "L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct", K::kPercent)) {
    f.values.push_back(l1->value);
    l1_text = fmt::format("L1/TEX hit rate {}, ", l1->value.shown);
  }
  const std::optional<Got> read = get(metrics, "DRAM Bytes Read", "dram__bytes_read.sum", K::kBytes);
  const std::optional<Got> written = get(metrics, "DRAM Bytes Written", "dram__bytes_write.sum", K::kBytes);
  const std::optional<Got> ld_sectors =
      get(metrics, "Global Load Sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", K::kCount, "sector");
  std::string traffic;
  if (read && written) {
    f.values.push_back(read->value);
    f.values.push_back(written->value);
    traffic = fmt::format(" DRAM read {} and wrote {}.", read->value.shown, written->value.shown);
  }
  std::optional<double> read_fraction;
  if (read && ld_sectors && **ld_sectors > 0) {
    f.values.push_back(ld_sectors->value);
    read_fraction = **read / (**ld_sectors * 32);
    traffic += fmt::format(" DRAM reads are {:.0f}% of the {} the global loads requested.", *read_fraction * 100,
                           shown(**ld_sectors * 32, K::kBytes));
  }
  f.detail =
      fmt::format("DRAM is {} busy with {}L2 hit rate {}.{}", dram->value.shown, l1_text, l2_hit->value.shown, traffic);
  if (read_fraction && *read_fraction >= kStreamingReadFraction) {
    f.title = "DRAM traffic is the kernel's own data, read once";
    f.advice =
        "Each loaded byte comes from DRAM about once (streaming): caches cannot cut this traffic. Fuse the kernel "
        "with the ones that produce or consume its data, or use narrower types.";
  } else if (**l2_hit < kLowL2HitPct) {
    f.title = "L2 misses drive DRAM traffic";
    f.advice =
        "Most L2 lookups miss: reorder or tile the work so data is reused while it is in L2 or shared memory "
        "(block tiles, a swizzled block order), or keep a hot buffer in L2 with an access policy window.";
  } else {
    f.title = "DRAM busy despite L2 hits";
    f.advice =
        "The L2 hits, so the DRAM traffic is mostly writes or data touched once: write less (narrower types, no "
        "temporary arrays), or fuse with the consumer of the output.";
  }
  return f;
}

std::optional<Finding> tensor_rule(const MetricLookup& metrics) {
  const std::optional<Got> tensor =
      get(metrics, "Tensor Pipe", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent);
  if (!tensor) return std::nullopt;
  Finding f;
  f.rule = "tensor_pipe";
  if (**tensor >= kTensorPipeUsedPct) {
    f.values.push_back(tensor->value);
    f.title = "Tensor cores in use";
    f.detail = fmt::format("The tensor pipe is busy {} of the SMs' active cycles.", tensor->value.shown);
    f.advice = **tensor >= kThroughputBoundPct
                   ? "Tensor math is near its peak: a narrower type (BF16/FP16 to FP8) raises the ceiling."
                   : "The tensor cores wait: feed them faster (asynchronous copies or TMA into shared memory, larger "
                     "tiles, more stages).";
    return f;
  }
  const std::optional<Got> fma =
      get(metrics, "FMA Pipe", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", K::kPercent);
  const std::optional<Got> ffma = get(metrics, "FP32 FMA thread instructions",
                                      "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", K::kCount, "inst");
  const std::optional<Got> hfma = get(metrics, "FP16 FMA thread instructions",
                                      "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", K::kCount, "inst");
  const double fmas = (ffma ? **ffma : 0) + (hfma ? **hfma : 0);
  if (!fma || **fma < kBusyFmaPipePct || fmas <= 0) return std::nullopt;
  f.values = {tensor->value, fma->value};
  if (ffma) f.values.push_back(ffma->value);
  if (hfma) f.values.push_back(hfma->value);
  f.title = "FMA work the tensor cores could do";
  f.detail = fmt::format(
      "The FMA pipe is busy {} while the tensor pipe is idle ({}), with {} FP32 and {} FP16 FMA "
      "thread instructions.",
      fma->value.shown, tensor->value.shown, shown(ffma ? **ffma : 0, K::kCount), shown(hfma ? **hfma : 0, K::kCount));
  f.advice =
      "If this is a matrix product or convolution, let it use tensor cores: TF32 for FP32 data (in PyTorch "
      "torch.backends.cuda.matmul.allow_tf32 = True or torch.set_float32_matmul_precision('high')), or BF16/FP16 "
      "(autocast).";
  return f;
}

}  // namespace

std::string_view bottleneck_name(Bottleneck b) {
  switch (b) {
    case Bottleneck::kMemory: return "memory";
    case Bottleneck::kCompute: return "compute";
    case Bottleneck::kLatency: return "latency";
  }
  return "latency";
}

double BottleneckVerdict::memory_side_pct() const { return std::max(memory_pct, busiest_unit_pct); }

std::optional<BottleneckVerdict> classify_bottleneck(const MetricLookup& metrics) {
  const std::optional<double> compute = role_value(metrics, kSolComputeRole);
  const std::optional<double> memory = role_value(metrics, kSolMemoryRole);
  if (!compute || !memory) return std::nullopt;
  BottleneckVerdict v;
  v.compute_pct = *compute;
  v.memory_pct = *memory;
  for (const Unit& u : kMemoryUnits) {
    const std::optional<double> pct = role_value(metrics, u.role);
    if (pct && *pct > v.memory_pct && *pct > v.busiest_unit_pct) {
      v.busiest_unit = std::string(u.name);
      v.busiest_unit_pct = *pct;
    }
  }
  const double memory_side = v.memory_side_pct();
  if (memory_side >= kThroughputBoundPct && memory_side >= v.compute_pct) {
    v.kind = Bottleneck::kMemory;
  } else if (v.compute_pct >= kThroughputBoundPct) {
    v.kind = Bottleneck::kCompute;
  } else {
    v.kind = Bottleneck::kLatency;
  }
  return v;
}

std::vector<StallShare> top_stalls(const MetricLookup& metrics, std::size_t n) {
  std::vector<StallShare> all;
  double total = 0;
  for (const Stall& s : kStalls) {
    for (std::string& name : role_spellings(s.role)) {
      auto it = metrics.find(name);
      if (it == metrics.end()) continue;
      total += it->second;
      if (s.reason != kSelected && s.reason != kNotSelected && it->second > 0) {
        all.push_back({std::string(s.reason), std::move(name), it->second, 0});
      }
      break;
    }
  }
  if (total <= 0) return {};
  for (StallShare& s : all) s.share_pct = 100 * s.cycles / total;
  std::stable_sort(all.begin(), all.end(),
                   [](const StallShare& a, const StallShare& b) { return a.cycles > b.cycles; });
  if (all.size() > n) all.resize(n);
  return all;
}

std::vector<Finding> kernel_guidance(const KernelRecord& kernel) {
  const MetricLookup metrics = metric_lookup(kernel);
  std::vector<Finding> out;
  for (std::optional<Finding> f : {bottleneck_rule(metrics), stall_rule(metrics), occupancy_rule(kernel, metrics),
                                   uncoalesced_rule(metrics), cache_rule(metrics), tensor_rule(metrics)}) {
    if (f) out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace rangereplay::report
