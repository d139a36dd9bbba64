// --verify: after every replay, the state of every snapshot region is
// digested on the GPU (src/cuda/digest_plan.h) and compared with the
// application's own range-exit state. A differing region is a divergence:
// reported with its allocation, never fatal (floating-point atomics
// legitimately reorder). MISSION.md point 9.
#include <algorithm>
#include <vector>

#include "cuda/cu_status.h"
#include "tool/profiler_tool.h"

namespace rangereplay::tool {

StatusOr<DigestPlan> ProfilerTool::exit_digests(ActiveRange& range) {
  // Only the application's regions are digested; the plan never restores, so
  // each region's "snapshot" address is the region itself.
  std::vector<DigestRegion> regions;
  regions.reserve(range.allocations.size());
  for (const Allocation& a : range.allocations) regions.push_back({a.range, a.range.start()});
  RR_ASSIGN_OR_RETURN(DigestPlan plan, DigestPlan::create(regions, DigestPlanOptions{}, tool_stream_));
  RR_RETURN_IF_ERROR(plan.digest(tool_stream_));
  RR_CU(cuStreamSynchronize(tool_stream_));
  range.exit_chunk_digests.assign(plan.host_digests().begin(), plan.host_digests().end());
  return plan;
}

Status ProfilerTool::compare_with_exit(ActiveRange& range, DigestPlan& plan, report::PassRecord& pass) {
  RR_RETURN_IF_ERROR(plan.digest(tool_stream_));
  RR_CU(cuStreamSynchronize(tool_stream_));
  for (std::uint32_t r : plan.table().differing_regions(plan.host_digests(), range.exit_chunk_digests)) {
    if (r >= range.allocations.size()) continue;
    const Allocation& a = range.allocations[r];
    pass.divergences.push_back({a.range.start().address(), a.range.size(),
                                std::string(a.origin) + " #" + std::to_string(a.serial) + " (" +
                                    allocation_kind_name(a.kind) + ")"});
  }
  return ok_status();
}

}  // namespace rangereplay::tool
