// Helpers on the planner's value types (see storage_plan.h).
#include "core/snapshot/storage/storage_plan.h"

namespace rangereplay::storage {

std::vector<Request> whole_region_requests(std::span<const MemoryRange> regions, std::int32_t priority) {
  std::vector<Request> requests;
  requests.reserve(regions.size());
  for (const MemoryRange& region : regions) requests.push_back(Request{region, 0, priority});
  return requests;
}

}  // namespace rangereplay::storage
