// FallbackAllocator: storage tiers chained in order, ending in NullAllocator.
//
// The chain is a compile-time list of Arena types (arena.h) whose last entry
// must be NullAllocator, the tier that admits nothing: reaching it means a
// region fits nowhere and the plan fails (checked by static_assert). A
// Placement names its tier by index in this list. The planning loop itself
// is chain_planner.h. Move-constructible; not thread-safe (the caller
// serializes plan_and_commit / end_range / release on one chain).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/snapshot/storage/chain_planner.h"
#include "core/snapshot/storage/storage_tier.h"

namespace rangereplay::storage {

/// The terminal of every chain: admits nothing, allocates nothing.
struct NullAllocator {
  static constexpr std::uint64_t admit(std::uint64_t /*request_bytes*/, std::uint64_t /*available_bytes*/) { return 0; }
};

/// True when Tiers... is a valid chain: zero or more StorageTier types, then NullAllocator.
template <class... Tiers>
inline constexpr bool is_fallback_chain_v = [] {
  if constexpr (sizeof...(Tiers) == 0) {
    return false;
  } else {
    using Last = std::tuple_element_t<sizeof...(Tiers) - 1, std::tuple<Tiers...>>;
    constexpr std::size_t kStorage = (std::size_t{std::is_base_of_v<StorageTier, Tiers>} + ...);
    return std::is_same_v<Last, NullAllocator> && kStorage == sizeof...(Tiers) - 1;
  }
}();

template <class... Tiers>
class FallbackAllocator {
  static_assert(is_fallback_chain_v<Tiers...>,
                "FallbackAllocator<Tiers...>: storage tiers (Arena<...>) followed by exactly "
                "one NullAllocator, last");

 public:
  /// Number of storage tiers (the NullAllocator not counted).
  static constexpr std::size_t kTierCount = sizeof...(Tiers) - 1;

  explicit FallbackAllocator(Tiers... tiers) : tiers_(std::move(tiers)...) {}
  FallbackAllocator(FallbackAllocator&&) = default;
  ~FallbackAllocator() { release(); }

  /// The tier at chain index I (Placement::tier == I).
  template <std::size_t I>
  auto& tier() {
    static_assert(I < kTierCount, "tier index past the storage tiers");
    return std::get<I>(tiers_);
  }

  /// Plans `requests` and commits the tiers that received bytes (see
  /// chain_planner.h). The plan's arenas stay valid until the next
  /// plan_and_commit, end_range or release.
  StatusOr<StoragePlan> plan_and_commit(std::span<const Request> requests) {
    auto tiers = tier_pointers();
    return plan_and_commit_on_tiers(tiers, requests);
  }

  /// Dry run: the placements plan_and_commit would try first; allocates and frees nothing.
  StatusOr<StoragePlan> plan(std::span<const Request> requests) {
    auto tiers = tier_pointers();
    return plan_on_tiers(tiers, requests);
  }

  /// The range is over: frees every arena that is not retained.
  void end_range() {
    for (StorageTier* tier : tier_pointers()) tier->end_range();
  }

  /// Frees every arena, retained or not, last tier first.
  void release() {
    auto tiers = tier_pointers();
    for (auto it = tiers.rbegin(); it != tiers.rend(); ++it) (*it)->release();
  }

 private:
  std::array<StorageTier*, kTierCount> tier_pointers() {
    return [this]<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<StorageTier*, kTierCount>{&std::get<I>(tiers_)...};
    }
    (std::make_index_sequence<kTierCount>{});
  }

  std::tuple<Tiers...> tiers_;
};

}  // namespace rangereplay::storage
