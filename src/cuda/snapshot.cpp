// Snapshot states planned by the storage planner, copied by CopyPlans (see snapshot.h).
#include "cuda/snapshot.h"

#include <array>
#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace rangereplay {
namespace {

std::optional<std::uint64_t> cap(std::uint64_t limit_bytes) {
  return limit_bytes == 0 ? std::nullopt : std::optional<std::uint64_t>(limit_bytes);
}

std::size_t index_of(SnapshotState state) { return static_cast<std::size_t>(state); }

const char* state_name(SnapshotState state) { return state == SnapshotState::kEntry ? "entry" : "exit"; }

}  // namespace

SnapshotStorage::SnapshotStorage(const SnapshotOptions& options, CUcontext context)
    : options_(options),
      chain_(DeviceTier(storage::TierOptions{"device", cap(options.device_limit_bytes), /*retain=*/true,
                                             /*commit_whole_alignment=*/true},
                        storage::PrefixChunking(options.granule_bytes),
                        storage::BumpSuballocator(options.alignment_bytes), context, options.growth_divisor),
             PinnedTier(storage::TierOptions{"pinned", cap(options.host_limit_bytes), /*retain=*/true,
                                             /*commit_whole_alignment=*/true},
                        storage::WholeRegion{}, storage::BumpSuballocator(options.alignment_bytes), context,
                        options.growth_divisor),
             storage::NullAllocator{}) {
  assert(options.alignment_bytes <= kBackingAlignment &&
         "the bump alignment cannot exceed what the backings guarantee for an arena's base");
}

SnapshotStorage::~SnapshotStorage() = default;  // the chain frees every arena, last tier first

std::uint64_t SnapshotStorage::arena_bytes(std::size_t tier) {
  const std::optional<storage::BackingBlock>* block = nullptr;
  if (tier == kDeviceTier) block = &chain_.tier<kDeviceTier>().block();
  if (tier == kPinnedTier) block = &chain_.tier<kPinnedTier>().block();
  return block != nullptr && block->has_value() ? (*block)->bytes : 0;
}

Status SnapshotStorage::release() {
  if (in_use_) return failed_precondition("snapshot storage released while a snapshot still uses it");
  chain_.release();
  return ok_status();
}

StatusOr<Snapshot> Snapshot::create(SnapshotStorage& storage, std::span<const MemoryRange> regions,
                                    std::size_t state_count, CUstream stream) {
  StatusOr<Snapshot> snapshot = plan_and_allocate(storage, regions, state_count, stream);
  // Out of storage (the tiers' caps, or device or pinned memory): the
  // snapshot does not fit.
  if (!snapshot.ok() && snapshot.status().code() == StatusCode::kResourceExhausted)
    return Status(snapshot.status()).with_decline_reason(DeclineReason::kSnapshotDoesNotFit);
  return snapshot;
}

StatusOr<Snapshot> Snapshot::plan_and_allocate(SnapshotStorage& storage, std::span<const MemoryRange> regions,
                                               std::size_t state_count, CUstream stream) {
  if (state_count == 0 || state_count > kSnapshotStates) {
    return invalid_argument("a snapshot has 1 or " + std::to_string(kSnapshotStates) + " states, not " +
                            std::to_string(state_count));
  }
  if (storage.in_use_) {
    return failed_precondition("the snapshot storage still holds the previous range's snapshot");
  }

  // One request per non-empty region and state; earlier states get higher
  // priority, so the planner places all of state 0 first, then state 1, each
  // in region order (storage_plan.h: placements in priority, then request,
  // then tier order).
  std::vector<storage::Request> requests;  // StateLayout::build walks them in this order
  requests.reserve(regions.size() * state_count);
  std::uint64_t bytes = 0;
  for (const MemoryRange& region : regions) bytes += region.size();
  for (std::size_t s = 0; s < state_count; ++s) {
    const auto priority = static_cast<std::int32_t>(state_count - 1 - s);
    for (const MemoryRange& region : regions) {
      if (!region.empty()) requests.push_back(storage::Request{region, 0, priority});
    }
  }

  RR_ASSIGN_OR_RETURN(storage::StoragePlan plan, storage.chain_.plan_and_commit(requests));
  Snapshot snapshot;
  snapshot.storage_.reset(&storage);  // from here on, the destructor ends the storage's range
  storage.in_use_ = true;
  snapshot.bytes_ = bytes;
  snapshot.plan_ = std::move(plan);
  const storage::StoragePlan& placed = snapshot.plan_;
  if (placed.tiers.size() != SnapshotStorage::Chain::kTierCount) {
    return internal_error("the storage plan has " + std::to_string(placed.tiers.size()) + " tiers, expected " +
                          std::to_string(SnapshotStorage::Chain::kTierCount));
  }

  // Split the placements into states (the planner's order, request by
  // request), each state's pieces into per-tier copy spans, and build one
  // copy plan per state.
  RR_ASSIGN_OR_RETURN(snapshot.layout_, storage::StateLayout::build(placed, regions, state_count));
  snapshot.copy_plans_.reserve(state_count);
  for (std::size_t s = 0; s < state_count; ++s) {
    RR_ASSIGN_OR_RETURN(CopyPlan copy_plan, CopyPlan::create(snapshot.arena_lists(s), storage.options_.copy, stream));
    snapshot.copy_plans_.push_back(std::move(copy_plan));
  }
  return StatusOr<Snapshot>(std::move(snapshot));
}

std::vector<ArenaCopyList> Snapshot::arena_lists(std::size_t state) const {
  std::vector<ArenaCopyList> arenas(SnapshotStorage::Chain::kTierCount);
  for (std::size_t t = 0; t < arenas.size(); ++t) {
    arenas[t].kind = t == SnapshotStorage::kDeviceTier ? ArenaKind::kDevice : ArenaKind::kPinnedHost;
    arenas[t].base = plan_.tiers[t].arena_address;
    arenas[t].bytes = plan_.tiers[t].arena_bytes;
  }
  for (const storage::StatePiece& piece : layout_.pieces(state))
    arenas[piece.tier].spans.push_back(CopySpan{piece.app.start(), piece.arena_offset, piece.app.size()});
  return arenas;
}

void Snapshot::EndStorageRange::operator()(SnapshotStorage* storage) const noexcept {
  storage->chain_.end_range();
  storage->in_use_ = false;
}

Status Snapshot::check_state(SnapshotState state) const {
  if (storage_ == nullptr) return failed_precondition("snapshot used after it was moved from");
  if (index_of(state) >= copy_plans_.size()) {
    return invalid_argument(std::string("the ") + state_name(state) + " state was not planned (" +
                            std::to_string(copy_plans_.size()) + " state(s))");
  }
  return ok_status();
}

Status Snapshot::capture(SnapshotState state, CUstream stream) {
  RR_RETURN_IF_ERROR(check_state(state));
  return copy_plans_[index_of(state)].capture(stream);
}

Status Snapshot::restore(SnapshotState state, CUstream stream) {
  RR_RETURN_IF_ERROR(check_state(state));
  return copy_plans_[index_of(state)].restore(stream);
}

Status Snapshot::plan_copy_engine_restore(SnapshotState state, CUstream stream) {
  RR_RETURN_IF_ERROR(check_state(state));
  std::unique_ptr<CopyPlan>& engines = engine_plans_[index_of(state)];
  if (engines) return ok_status();
  CopyPlanOptions options = storage_->options_.copy;
  options.device_by_copy_engines = true;
  options.pinned_method = PinnedCopyMethod::kCopyEngine;
  RR_ASSIGN_OR_RETURN(CopyPlan plan, CopyPlan::create(arena_lists(index_of(state)), options, stream));
  engines = std::make_unique<CopyPlan>(std::move(plan));
  return ok_status();
}

Status Snapshot::restore_by_copy_engines(SnapshotState state, CUstream stream) {
  RR_RETURN_IF_ERROR(check_state(state));
  const std::unique_ptr<CopyPlan>& engines = engine_plans_[index_of(state)];
  if (!engines)
    return failed_precondition(std::string("the ") + state_name(state) +
                               " state has no copy-engine plan (plan_copy_engine_restore)");
  return engines->restore(stream);
}

std::vector<SnapshotTierUsage> Snapshot::tiers() const {
  std::vector<SnapshotTierUsage> usage;
  for (const storage::TierOutcome& tier : plan_.tiers) {
    if (tier.bytes == 0) continue;
    usage.push_back({tier.tier, tier.bytes, tier.arena_bytes, tier.new_allocation});
  }
  return usage;
}

const CopyPlan& Snapshot::copy_plan(SnapshotState state) const {
  assert(index_of(state) < copy_plans_.size() && "copy_plan() of a state that was not planned");
  return copy_plans_[index_of(state)];
}

std::span<const storage::StatePiece> Snapshot::pieces(SnapshotState state) const {
  if (index_of(state) >= layout_.state_count()) return {};
  return layout_.pieces(index_of(state));
}

std::optional<storage::ArenaSpan> Snapshot::exclusive_span(SnapshotState state, std::uint64_t end_alignment) const {
  if (index_of(state) >= layout_.state_count()) return std::nullopt;
  return layout_.exclusive_span(index_of(state), end_alignment);
}

std::uint64_t Snapshot::narrow_items() const {
  std::uint64_t items = 0;
  for (const CopyPlan& plan : copy_plans_) items += plan.stats().narrow_items;
  return items;
}

}  // namespace rangereplay
