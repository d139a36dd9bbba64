// --verify's divergences (see divergences.h).
#include "tool/logic/divergences.h"

#include <optional>
#include <string>

namespace rangereplay::tool {

void record_divergences(std::span<const Allocation> allocations, std::span<const std::uint32_t> region_allocations,
                        const ChunkTable& table, std::span<const std::uint64_t> found,
                        std::span<const std::uint64_t> exit, report::PassRecord& pass) {
  if (found.size() != table.chunk_count() || exit.size() != table.chunk_count()) return;
  // Regions come in ascending order and the pieces of one allocation are
  // consecutive regions, so each divergent allocation is reported once.
  std::optional<std::uint32_t> last;
  for (std::uint32_t r : table.differing_regions(found, exit)) {
    if (r >= region_allocations.size()) continue;
    const std::uint32_t index = region_allocations[r];
    if (index >= allocations.size() || last == index) continue;
    last = index;
    const Allocation& a = allocations[index];
    pass.divergences.push_back(
        {a.range.start().address(), a.range.size(),
         std::string(a.origin) + " #" + std::to_string(a.serial) + " (" + allocation_kind_name(a.kind) + ")"});
  }
}

}  // namespace rangereplay::tool
