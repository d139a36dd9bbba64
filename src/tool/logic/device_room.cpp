// Device room (see device_room.h).
#include "tool/logic/device_room.h"

#include <limits>

namespace rangereplay::tool {

std::uint64_t device_bytes_requested(MemoryEffect effect, const AllocationParams& params) {
  switch (effect) {
    case MemoryEffect::kAddDevice:
    case MemoryEffect::kAddStreamOrdered:
    case MemoryEffect::kCreatePhysical: return params.bytes;
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

bool must_make_room(std::uint64_t free_bytes, std::uint64_t requested, std::uint64_t held_bytes) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if (held_bytes == 0 || requested == 0) return false;
  const std::uint64_t wanted =
      requested > kMax - kAllocationHeadroomBytes ? kMax : requested + kAllocationHeadroomBytes;
  if (free_bytes >= wanted) return false;
  const std::uint64_t after = free_bytes > kMax - held_bytes ? kMax : free_bytes + held_bytes;
  return after >= requested;
}

}  // namespace rangereplay::tool
