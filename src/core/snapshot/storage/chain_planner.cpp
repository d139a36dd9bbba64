// The planning, commit, rollback and replan loop (see chain_planner.h).
#include "core/snapshot/storage/chain_planner.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot/storage/byte_math.h"

namespace rangereplay::storage {
namespace {

// What the loop knows about each tier during one plan_and_commit call.
struct TierState {
  std::uint64_t budget_bytes = 0;
  bool disabled = false;
  std::string reason;  // why disabled
};

std::string hex(std::uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string region_text(const MemoryRange& region) {
  return "region " + hex(region.start().address()) + " of " + std::to_string(region.size()) + " bytes";
}

Status validate(std::span<const Request> requests) {
  for (const Request& r : requests) {
    if (r.region_offset > r.region.size()) {
      return invalid_argument("snapshot request for " + region_text(r.region) + " starts at offset " +
                              std::to_string(r.region_offset) + ", past the region's end");
    }
  }
  return ok_status();
}

std::vector<TierState> query_budgets(std::span<StorageTier* const> tiers, std::vector<std::string>& notes) {
  std::vector<TierState> states(tiers.size());
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    StatusOr<std::uint64_t> budget = tiers[t]->budget();
    if (budget.ok()) {
      states[t].budget_bytes = *budget;
    } else {
      states[t].disabled = true;
      states[t].reason = "budget query failed: " + budget.status().message();
      notes.push_back("tier '" + tiers[t]->name() + "' disabled: " + states[t].reason);
    }
  }
  return states;
}

std::string tiers_text(std::span<StorageTier* const> tiers, std::span<const TierState> states) {
  if (tiers.empty()) return "no tiers";
  std::string text = "tiers: ";
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    if (t > 0) text += "; ";
    text += tiers[t]->name();
    text += states[t].disabled ? " disabled (" + states[t].reason + ")"
                               : " budget " + std::to_string(states[t].budget_bytes) + " bytes";
  }
  return text;
}

// One pass of placement over the enabled tiers. Fills placements and, per
// tier, budget_bytes, bytes, disabled and disabled_reason.
StatusOr<StoragePlan> place(std::span<StorageTier* const> tiers, std::span<const TierState> states,
                            std::span<const Request> requests) {
  StoragePlan plan;
  plan.tiers.resize(tiers.size());
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    tiers[t]->begin_plan(states[t].disabled ? 0 : states[t].budget_bytes);
    plan.tiers[t].budget_bytes = states[t].disabled ? 0 : states[t].budget_bytes;
    plan.tiers[t].disabled = states[t].disabled;
    plan.tiers[t].disabled_reason = states[t].reason;
  }

  std::vector<std::size_t> order(requests.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return requests[a].priority > requests[b].priority; });

  for (std::size_t index : order) {
    const Request& request = requests[index];
    plan.footprint_bytes = saturating_add(plan.footprint_bytes, request.bytes());
    std::uint64_t offset = request.region_offset;
    std::uint64_t remaining = request.bytes();
    for (std::size_t t = 0; t < tiers.size() && remaining > 0; ++t) {
      // Re-ask the tier until it declines: admission may take a prefix at a time.
      while (remaining > 0) {
        const TierOffer offer = tiers[t]->offer(remaining);
        if (offer.bytes == 0) break;
        plan.placements.push_back(Placement{t, request.region, offset, offer.bytes, offer.arena_offset});
        offset += offer.bytes;
        remaining -= offer.bytes;
        plan.tiers[t].bytes += offer.bytes;
      }
    }
    if (remaining > 0) {
      return resource_exhausted("snapshot storage is " + std::to_string(remaining) + " bytes short for " +
                                region_text(request.region) + " (" + tiers_text(tiers, states) + ")");
    }
  }
  return plan;
}

// Copies the arena fields (which change on commit) from the tiers.
void fill_arena_fields(std::span<StorageTier* const> tiers, StoragePlan& plan) {
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    const TierOutcome arena = tiers[t]->outcome();
    TierOutcome& out = plan.tiers[t];
    out.tier = arena.tier;
    out.planned_bytes = arena.planned_bytes;
    out.arena_bytes = arena.arena_bytes;
    out.arena_address = arena.arena_address;
    out.new_allocation = arena.new_allocation;
  }
}

}  // namespace

StatusOr<StoragePlan> plan_on_tiers(std::span<StorageTier* const> tiers, std::span<const Request> requests) {
  RR_RETURN_IF_ERROR(validate(requests));
  std::vector<std::string> notes;
  const std::vector<TierState> states = query_budgets(tiers, notes);
  RR_ASSIGN_OR_RETURN(StoragePlan plan, place(tiers, states, requests));
  fill_arena_fields(tiers, plan);
  plan.notes = std::move(notes);
  return plan;
}

StatusOr<StoragePlan> plan_and_commit_on_tiers(std::span<StorageTier* const> tiers, std::span<const Request> requests) {
  RR_RETURN_IF_ERROR(validate(requests));
  for (StorageTier* tier : tiers) tier->end_range();

  std::vector<std::string> notes;
  std::vector<TierState> states = query_budgets(tiers, notes);
  for (std::uint32_t replans = 0;; ++replans) {
    RR_ASSIGN_OR_RETURN(StoragePlan plan, place(tiers, states, requests));

    std::vector<std::size_t> committed;
    std::optional<std::size_t> failed;
    Status failure;
    for (std::size_t t = 0; t < tiers.size(); ++t) {
      if (tiers[t]->planned_bytes() == 0) continue;  // only tiers that received bytes allocate
      failure = tiers[t]->commit();
      if (!failure.ok()) {
        failed = t;
        break;
      }
      committed.push_back(t);
    }

    if (!failed) {
      fill_arena_fields(tiers, plan);
      plan.replans = replans;
      plan.notes = std::move(notes);
      return plan;
    }

    for (auto it = committed.rbegin(); it != committed.rend(); ++it) tiers[*it]->rollback();
    TierState& state = states[*failed];
    state.disabled = true;
    state.reason =
        "commit of " + std::to_string(tiers[*failed]->planned_bytes()) + " bytes failed: " + failure.message();
    notes.push_back("tier '" + tiers[*failed]->name() + "' " + state.reason + "; replanned without it");
  }
}

}  // namespace rangereplay::storage
