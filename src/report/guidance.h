// Rule-based findings for one kernel, from its metric values alone: what
// limits it and what to try. Each finding names the values it used.
//
// Rules (thresholds are the named constants below, each with its reason):
//   bottleneck          Speed Of Light: memory, compute or latency bound.
//   warp_stalls         the two stall reasons with the largest share of the
//                       warps' cycles per issued instruction.
//   occupancy           achieved occupancy low on a kernel that is not
//                       throughput bound, and what limits it.
//   uncoalesced_access  global loads or stores that fetch sectors whose bytes
//                       the threads do not use.
//   cache_hit_rates     a busy DRAM explained by the L1 and L2 hit rates.
//   tensor_pipe         FP32/FP16 FMA work that tensor cores could do, or how
//                       busy the tensor pipe is.
// A rule whose metrics the kernel lacks says nothing. Metrics are found under
// any spelling of their role (core/config/metric_sets.h), so every chip from Ampere
// on gets the same rules.
//
//   for (const Finding& f : kernel_guidance(kernel)) fmt::print("{}: {} {}\n", f.title, f.detail, f.advice);
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/kernel_sections.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// Compute or memory throughput at or above this share of peak limits the
/// kernel; below it on both, Nsight Compute's rule of thumb is that latency
/// (too little parallelism or work to hide it) is what limits the kernel.
inline constexpr double kThroughputBoundPct = 60;
/// Achieved occupancy below this (16 of 64 warps per SM on Hopper) often
/// leaves too few warps to hide memory latency.
inline constexpr double kLowOccupancyPct = 25;
/// Blocks per SM at most (compute capability 7.0 to 9.0): blocks smaller than
/// kSmallBlockThreads cannot fill an SM's 64 warp slots.
inline constexpr double kMaxBlocksPerSm = 32;
inline constexpr double kSmallBlockThreads = 64;
/// Fewer than this share of the bytes of each fetched 32-byte sector used by
/// the threads: the access pattern wastes more than 40% of the traffic.
inline constexpr double kMinBytesUsedPerSectorPct = 60;
/// Without the bytes-used metric: more sectors per request than a warp of
/// fully coalesced 128-bit accesses needs (16) can only come from scattered
/// or strided addresses.
inline constexpr double kMaxCoalescedSectorsPerRequest = 16;
/// Loads or stores with fewer sectors than this share of the kernel's global
/// load and store sectors (e.g. one partial result stored per block) cost too
/// little for their access pattern to matter.
inline constexpr double kMinShareOfGlobalSectors = 0.1;
/// An L2 hit rate below this sends most L1 misses on to DRAM.
inline constexpr double kLowL2HitPct = 50;
/// DRAM reads at least this fraction of the bytes the global loads requested:
/// most loaded bytes come from DRAM once (a streaming kernel; the rest are a
/// previous kernel's data still in L2), so caches cannot cut the traffic.
inline constexpr double kStreamingReadFraction = 0.7;
/// FMA pipe busier than this with an idle tensor pipe: the FP work is large
/// enough that tensor cores (TF32, BF16, FP16) would pay.
inline constexpr double kBusyFmaPipePct = 50;
/// The tensor pipe counts as used above this (below it, stray instructions).
inline constexpr double kTensorPipeUsedPct = 1;

/// One value a finding used.
struct FindingValue {
  std::string label;   // e.g. "Memory Throughput"
  std::string metric;  // the metric as named in the kernel ("" for a launch field)
  double value = 0;    // as collected
  std::string shown;   // formatted with its unit, e.g. "47.47 %"
};

struct Finding {
  std::string rule;    // "bottleneck", "warp_stalls", ... (see above)
  std::string title;   // e.g. "Memory bound"
  std::string detail;  // what the values say, naming them
  std::string advice;  // what to try
  std::vector<FindingValue> values;
};

enum class Bottleneck { kMemory, kCompute, kLatency };

/// "memory", "compute" or "latency".
std::string_view bottleneck_name(Bottleneck b);

/// The Speed Of Light verdict: compute = SM throughput, memory = the larger of
/// the memory throughput and the busiest memory unit (L1/TEX, L2, DRAM), as
/// Nsight Compute's breakdown lists them. Memory bound when memory is at least
/// kThroughputBoundPct and not below compute, compute bound likewise, else
/// latency bound. nullopt without both headline throughputs.
struct BottleneckVerdict {
  Bottleneck kind = Bottleneck::kLatency;
  double compute_pct = 0;
  double memory_pct = 0;           // the Speed Of Light memory throughput
  std::string busiest_unit;        // "L1/TEX", "L2", "DRAM" or "" when none is above memory_pct
  double busiest_unit_pct = 0;     // its throughput, when busiest_unit is set
  double memory_side_pct() const;  // max(memory_pct, busiest_unit_pct)
};
std::optional<BottleneckVerdict> classify_bottleneck(const MetricLookup& metrics);

/// A stall reason's share of the warps' cycles per issued instruction.
struct StallShare {
  std::string reason;  // e.g. "Long Scoreboard"
  std::string metric;
  double cycles = 0;     // warp cycles per issued instruction spent in it
  double share_pct = 0;  // of the sum over all reasons
};
/// The `n` largest stall reasons, largest first, leaving out "Selected" (the
/// warp issued) and "Not Selected" (it could have: another warp did); empty
/// without stall metrics or with no stall cycles.
std::vector<StallShare> top_stalls(const MetricLookup& metrics, std::size_t n);

/// Every rule's finding for `kernel`, in the order of the rules above.
std::vector<Finding> kernel_guidance(const KernelRecord& kernel);

}  // namespace rangereplay::report
