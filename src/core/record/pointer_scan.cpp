// Pointer words of a kernel's argument buffer (see pointer_scan.h).
#include "core/record/pointer_scan.h"

#include <algorithm>
#include <cstring>

namespace rangereplay {

std::vector<std::size_t> ranges_pointed_into(std::span<const std::uint8_t> arg_bytes,
                                             std::span<const MemoryRange> ranges) {
  std::vector<std::size_t> hits;
  if (ranges.empty()) return hits;
  for (std::size_t offset = 0; offset + sizeof(std::uint64_t) <= arg_bytes.size(); offset += sizeof(std::uint64_t)) {
    std::uint64_t word = 0;
    std::memcpy(&word, arg_bytes.data() + offset, sizeof word);
    const DevicePtr p(word);
    // The last range starting at or before p is the only one that can hold it.
    auto after = std::upper_bound(ranges.begin(), ranges.end(), p,
                                  [](DevicePtr x, const MemoryRange& r) { return x < r.start(); });
    if (after == ranges.begin()) continue;
    const auto candidate = std::prev(after);
    if (candidate->contains(p)) hits.push_back(static_cast<std::size_t>(candidate - ranges.begin()));
  }
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  return hits;
}

}  // namespace rangereplay
