// --verify: after every replay, the state of every snapshot region is
// digested on the GPU (src/cuda/digest_plan.h) and compared with the
// application's own range-exit state. A differing region is a divergence:
// reported with its allocation, never fatal (floating-point atomics
// legitimately reorder).
//
// With differential restore (the default) the restore plan's own digests are
// compared (range_controller.cpp: its exit digests from capture_changed, and
// the digests each restore found, which describe the state the previous pass
// left), so verifying reads nothing extra. With --restore full, a digest-only
// plan over the allocations is digested after each pass (below).
#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "cuda/cu_status.h"
#include "tool/profiler_tool.h"

namespace rangereplay::tool {

StatusOr<DigestPlan> ProfilerTool::exit_digests(ActiveRange& range) {
  // Only the application's regions are digested; the plan never restores, so
  // each region's "snapshot" address is the region itself.
  std::vector<DigestRegion> regions;
  regions.reserve(range.allocations.size());
  range.digest_allocations.clear();
  for (const Allocation& a : range.allocations) {
    range.digest_allocations.push_back(static_cast<std::uint32_t>(regions.size()));
    regions.push_back({a.range, a.range.start()});
  }
  RR_ASSIGN_OR_RETURN(DigestPlan plan, DigestPlan::create(regions, DigestPlanOptions{}, tool_stream_));
  RR_RETURN_IF_ERROR(plan.digest(tool_stream_));
  RR_CU(cuStreamSynchronize(tool_stream_));
  range.exit_chunk_digests.assign(plan.host_digests().begin(), plan.host_digests().end());
  return plan;
}

Status ProfilerTool::compare_with_exit(ActiveRange& range, DigestPlan& plan, report::PassRecord& pass) {
  RR_RETURN_IF_ERROR(plan.digest(tool_stream_));
  RR_CU(cuStreamSynchronize(tool_stream_));
  record_divergences(range, plan.table(), plan.host_digests(), range.exit_chunk_digests, pass);
  return ok_status();
}

void ProfilerTool::record_divergences(const ActiveRange& range, const ChunkTable& table,
                                      std::span<const std::uint64_t> found, std::span<const std::uint64_t> exit,
                                      report::PassRecord& pass) {
  if (found.size() != table.chunk_count() || exit.size() != table.chunk_count()) return;
  // Regions come in ascending order and the pieces of one allocation are
  // consecutive regions, so each divergent allocation is reported once.
  std::optional<std::uint32_t> last;
  for (std::uint32_t r : table.differing_regions(found, exit)) {
    if (r >= range.digest_allocations.size()) continue;
    const std::uint32_t index = range.digest_allocations[r];
    if (index >= range.allocations.size() || last == index) continue;
    last = index;
    const Allocation& a = range.allocations[index];
    pass.divergences.push_back({a.range.start().address(), a.range.size(),
                                std::string(a.origin) + " #" + std::to_string(a.serial) + " (" +
                                    allocation_kind_name(a.kind) + ")"});
  }
}

}  // namespace rangereplay::tool
