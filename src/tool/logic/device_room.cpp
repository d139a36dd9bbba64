// Device room (see device_room.h).
#include "tool/logic/device_room.h"

#include <limits>

namespace rangereplay::tool {

std::uint64_t device_bytes_requested(MemoryEffect effect, const AllocationParams& params) {
  switch (effect) {
    case MemoryEffect::kAddDevice:
    case MemoryEffect::kAddStreamOrdered: return params.bytes;
    case MemoryEffect::kAddPitched: {
      const std::uint64_t rows = params.height;
      const std::uint64_t width = params.bytes;
      if (rows != 0 && width > std::numeric_limits<std::uint64_t>::max() / rows)
        return std::numeric_limits<std::uint64_t>::max();
      return width * rows;
    }
    default: return 0;
  }
}

bool must_make_room(std::uint64_t free_bytes, std::uint64_t requested, bool tool_holds_memory) {
  if (!tool_holds_memory || requested == 0) return false;
  const std::uint64_t wanted = requested > std::numeric_limits<std::uint64_t>::max() - kAllocationHeadroomBytes
                                   ? std::numeric_limits<std::uint64_t>::max()
                                   : requested + kAllocationHeadroomBytes;
  return free_bytes < wanted;
}

}  // namespace rangereplay::tool
