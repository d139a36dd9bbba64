// Bump suballocation with overflow-safe alignment (see bump_suballocator.h).
#include "core/snapshot/storage/bump_suballocator.h"

#include <cassert>

#include "core/snapshot/storage/byte_math.h"

namespace rangereplay::storage {

BumpSuballocator::BumpSuballocator(std::uint64_t alignment_bytes) : alignment_bytes_(alignment_bytes) {
  assert(is_power_of_two(alignment_bytes) && "BumpSuballocator alignment must be a power of two");
}

void BumpSuballocator::reset(std::uint64_t capacity_bytes) {
  capacity_bytes_ = capacity_bytes;
  cursor_ = 0;
}

std::uint64_t BumpSuballocator::available() const {
  const std::optional<std::uint64_t> next = align_up(cursor_, alignment_bytes_);
  if (!next || *next >= capacity_bytes_) return 0;
  return capacity_bytes_ - *next;
}

std::uint64_t BumpSuballocator::reserve(std::uint64_t bytes) {
  assert(bytes > 0 && bytes <= available() && "reserve() past the suballocator's capacity");
  const std::uint64_t offset = *align_up(cursor_, alignment_bytes_);
  cursor_ = offset + bytes;
  return offset;
}

}  // namespace rangereplay::storage
