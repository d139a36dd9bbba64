// Splitting a two-state storage plan into its states (see state_layout.h).
#include "core/snapshot/storage/state_layout.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace rangereplay::storage {

StatusOr<StateLayout> StateLayout::build(const StoragePlan& plan, std::span<const MemoryRange> regions,
                                         std::size_t state_count) {
  if (state_count == 0) return invalid_argument("a state layout needs at least one state");
  StateLayout layout;
  layout.states_.resize(state_count);
  for (const TierOutcome& tier : plan.tiers) layout.arena_bytes_.push_back(tier.arena_bytes);
  std::size_t next = 0;
  for (std::size_t s = 0; s < state_count; ++s) {
    for (std::size_t r = 0; r < regions.size(); ++r) {
      const MemoryRange& region = regions[r];
      std::uint64_t covered = 0;
      while (covered < region.size()) {
        if (next == plan.placements.size()) {
          return internal_error("the storage plan ends before placing all " + std::to_string(region.size()) +
                                " bytes of region " + std::to_string(r) + " of state " + std::to_string(s));
        }
        const Placement& piece = plan.placements[next++];
        if (piece.region != region || piece.region_offset != covered || piece.tier >= plan.tiers.size() ||
            piece.bytes == 0 || piece.bytes > region.size() - covered) {
          return internal_error("storage placement " + std::to_string(next - 1) +
                                " is out of the planner's documented order for region " + std::to_string(r) +
                                " of state " + std::to_string(s));
        }
        layout.states_[s].push_back(StatePiece{MemoryRange(region.start() + covered, piece.bytes), piece.tier,
                                               piece.arena_offset, plan.destination(piece),
                                               static_cast<std::uint32_t>(r)});
        covered += piece.bytes;
      }
    }
  }
  if (next != plan.placements.size()) {
    return internal_error("the storage plan has " + std::to_string(plan.placements.size() - next) +
                          " placements past the requests");
  }
  return layout;
}

std::optional<ArenaSpan> StateLayout::exclusive_span(std::size_t state, std::uint64_t end_alignment) const {
  struct Bounds {
    std::uint64_t begin = ~std::uint64_t{0};
    std::uint64_t end = 0;
    std::uint64_t base = 0;  // the tier's arena address
  };
  std::map<std::size_t, Bounds> tiers;  // ordered: ties go to the earlier tier
  for (const StatePiece& p : states_.at(state)) {
    Bounds& b = tiers[p.tier];
    b.begin = std::min(b.begin, p.arena_offset);
    b.end = std::max(b.end, p.arena_offset + p.app.size());
    b.base = p.copy - p.arena_offset;
  }
  std::optional<ArenaSpan> best;
  for (auto& [tier, b] : tiers) {
    // Rounded up only into bytes the arena really has (no piece of this
    // snapshot starts there: pieces start at offsets aligned at least as much).
    const std::uint64_t arena_end = tier < arena_bytes_.size() ? arena_bytes_[tier] : 0;
    const std::uint64_t rounded =
        end_alignment > 1 ? (b.end + end_alignment - 1) / end_alignment * end_alignment : b.end;
    if (rounded > b.end && rounded <= arena_end) b.end = rounded;
    bool shared = false;
    for (std::size_t other = 0; other < states_.size() && !shared; ++other) {
      if (other == state) continue;
      for (const StatePiece& p : states_[other]) {
        if (p.tier == tier && p.arena_offset < b.end && b.begin < p.arena_offset + p.app.size()) {
          shared = true;
          break;
        }
      }
    }
    if (shared) continue;
    if (!best || b.end - b.begin > best->bytes) best = ArenaSpan{tier, b.base + b.begin, b.end - b.begin};
  }
  return best;
}

}  // namespace rangereplay::storage
