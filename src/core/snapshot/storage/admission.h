// Admission policies: how many bytes of a request one storage tier takes.
//
// An admission policy sees only the bytes still wanted and the bytes the
// tier's suballocator can still hand out in one piece, and answers with a
// count in [0, min(request, available)]; 0 declines. It knows nothing about
// offsets or the backing, so a tier's policy can be swapped on its own.
// Policies are small values; admit() is const and thread-safe.
#pragma once

#include <cassert>
#include <concepts>
#include <cstdint>

namespace rangereplay::storage {

/// What a tier's admission policy must provide.
template <class A>
concept AdmissionPolicy = std::move_constructible<A> &&
    requires(const A& policy, std::uint64_t request_bytes, std::uint64_t available_bytes) {
  { policy.admit(request_bytes, available_bytes) } -> std::same_as<std::uint64_t>;
};

/// All or nothing: the whole request when it fits, else 0.
struct WholeRegion {
  std::uint64_t admit(std::uint64_t request_bytes, std::uint64_t available_bytes) const {
    return request_bytes <= available_bytes ? request_bytes : 0;
  }
};

/// Splits a request on a granule: the whole request when it fits (even when
/// it is not a whole number of granules: that is the region's tail), else the
/// largest prefix that is a whole number of granules and fits. So a region
/// spread over several tiers is split only at multiples of `granule_bytes`
/// from the request's start, and every piece but the last is whole granules.
class PrefixChunking {
 public:
  /// granule_bytes > 0 (e.g. 2 MiB).
  explicit PrefixChunking(std::uint64_t granule_bytes) : granule_bytes_(granule_bytes) {
    assert(granule_bytes > 0 && "PrefixChunking needs a granule of at least one byte");
  }
  std::uint64_t granule_bytes() const { return granule_bytes_; }

  std::uint64_t admit(std::uint64_t request_bytes, std::uint64_t available_bytes) const {
    if (request_bytes <= available_bytes) return request_bytes;
    return available_bytes - available_bytes % granule_bytes_;
  }

 private:
  std::uint64_t granule_bytes_;
};

}  // namespace rangereplay::storage
