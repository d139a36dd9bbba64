// Suballocators: where a tier puts the bytes its admission policy took.
//
// A suballocator hands out offsets inside one arena of a given capacity
// during planning; after planning, used() is the size the backing must
// allocate. The bump suballocator places pieces one after another at aligned
// offsets and commits one backing of exactly the bytes used.
// Not thread-safe: one planner drives it.
#pragma once

#include <concepts>
#include <cstdint>

namespace rangereplay::storage {

/// What a tier's suballocator must provide.
///  - reset(capacity): forget all reservations; the arena may grow to `capacity` bytes.
///  - available(): the largest piece the next reserve() can take (0: full).
///  - reserve(bytes): 0 < bytes <= available(); returns the piece's arena offset.
///  - used(): bytes the arena needs for all reservations so far (<= capacity).
template <class S>
concept Suballocator = std::move_constructible<S> && requires(S& sub, const S& const_sub, std::uint64_t bytes) {
  { sub.reset(bytes) } -> std::same_as<void>;
  { const_sub.available() } -> std::same_as<std::uint64_t>;
  { sub.reserve(bytes) } -> std::same_as<std::uint64_t>;
  { const_sub.used() } -> std::same_as<std::uint64_t>;
};

/// Bump allocation at offsets aligned to `alignment_bytes` from the arena base.
/// The arena's base address must itself be aligned at least that much (the
/// backing's job); then every destination address is aligned.
class BumpSuballocator {
 public:
  /// alignment_bytes: a power of two >= 1 (asserted). 256 suits the copy kernel.
  explicit BumpSuballocator(std::uint64_t alignment_bytes = 256);

  void reset(std::uint64_t capacity_bytes);
  std::uint64_t available() const;
  std::uint64_t reserve(std::uint64_t bytes);
  std::uint64_t used() const { return cursor_; }

  std::uint64_t alignment_bytes() const { return alignment_bytes_; }
  std::uint64_t capacity_bytes() const { return capacity_bytes_; }

 private:
  std::uint64_t alignment_bytes_;
  std::uint64_t capacity_bytes_ = 0;
  std::uint64_t cursor_ = 0;  // end of the last reservation
};

}  // namespace rangereplay::storage
