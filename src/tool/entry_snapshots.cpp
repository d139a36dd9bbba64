// EntrySnapshots (entry_snapshots.h): the entry snapshot of a range, its
// regions, its storage and its differential restore plan, and the bytes of
// device memory allocated inside a range. The write-set snapshots are in
// write_set_snapshot.cpp.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/elapsed.h"
#include "core/snapshot/storage/tier_budget.h"
#include "cuda/cu_status.h"
#include "cuda/digest_plan.h"
#include "report/format_helpers.h"
#include "tool/controller_helpers.h"
#include "tool/entry_snapshots.h"
#include "tool/module_globals.h"

namespace rangereplay::tool {

namespace {
using Clock = std::chrono::steady_clock;

// Most bytes of device memory allocated inside one range whose bytes are
// kept (twice: as allocated and at the range's end) in host memory.
constexpr std::uint64_t kMaxKeptAllocationBytes = std::uint64_t{512} << 20;

// /proc/meminfo's MemAvailable in bytes; nullopt where it cannot be read.
std::optional<std::uint64_t> host_memory_available() {
  StatusOr<std::uint64_t> available = storage::read_meminfo_available("/proc/meminfo");
  return available.ok() ? std::optional<std::uint64_t>(*available) : std::nullopt;
}

// The snapshot tiers as the user capped them (0 = no cap); a pinned arena
// by the copy engines, or by the mapped kernel when it has many spans.
SnapshotOptions snapshot_options(const ProfileConfig& config) {
  SnapshotOptions options;
  options.device_limit_bytes = config.snapshot_device_limit;
  options.host_limit_bytes = config.snapshot_host_limit;
  options.copy.pinned_method = PinnedCopyMethod::kAuto;
  return options;
}

}  // namespace

std::vector<MemoryRange> EntrySnapshots::select_snapshot_regions(ActiveRange& range) {
  // Every allocation the range's kernels can write, but pinned host memory
  // and host-attached managed memory (captured at their first use by a
  // kernel instead: host_regions.cpp) and another context's device memory.
  auto lock = parts_.inventory.lock();
  SnapshotSelection selection =
      select_for_snapshot(parts_.inventory.regions_locked(), range.device, reinterpret_cast<std::uint64_t>(range.ctx));
  range.allocations = std::move(selection.snapshot);
  range.host_mapped = std::move(selection.host_mapped);
  range.other_device_memory = std::move(selection.other_device);
  range.other_context_memory = std::move(selection.other_context);
  std::vector<MemoryRange> regions;
  regions.reserve(range.allocations.size());
  for (const auto& a : range.allocations) regions.push_back(a.range);
  return regions;
}

std::optional<Decline> EntrySnapshots::capture_entry_state(ActiveRange& range, bool allow_write_set) {
  parts_.mutex.set_stage("range begin: capturing the entry snapshot");
  auto capture_start = Clock::now();
  range.write_set.reset();
  const std::vector<MemoryRange> regions = select_snapshot_regions(range);
  range.record.regions = static_cast<std::uint32_t>(regions.size());
  // Entry and exit states are planned together here (snapshot.h), so a
  // snapshot that does not fit declines the range before pass 0, unless
  // its largest regions fit as write sets.
  auto snap = Snapshot::create(storage_for(range), regions, kSnapshotStates, tool_stream_);
  if (allow_write_set && !snap.ok() && snap.status().decline_reason() == DeclineReason::kSnapshotDoesNotFit)
    snap = create_write_set_snapshot(range, regions);
  Status s = snap.ok() ? snap->capture(SnapshotState::kEntry, tool_stream_) : snap.status();
  if (s.ok() && range.write_set) s = digest_write_set_entry(range);
  if (s.ok()) s = cu_status(cuStreamSynchronize(tool_stream_), "cuStreamSynchronize", __FILE__, __LINE__);
  if (!s.ok()) {
    range.write_set.reset();
    return decline_of(s, DeclineReason::kReplayFailed);
  }
  range.record.footprint_bytes = snap->bytes();
  range.record.tiers.clear();
  for (const SnapshotTierUsage& tier : snap->tiers())
    range.record.tiers.push_back({tier.tier, tier.bytes, tier.arena_bytes, tier.new_allocation});
  for (const std::string& note : snap->plan().notes) range.record.notes.push_back("snapshot storage: " + note);
  if (snap->narrow_items() > 0)
    range.record.notes.push_back(std::to_string(snap->narrow_items()) +
                                 " snapshot copy items of regions not 16-byte aligned use narrower vectors");
  range.snapshot.emplace(std::move(snap).value());
  if (parts_.config.restore == RestoreMode::kDifferential) plan_differential_restore(range);
  range.record.restore =
      std::string(name_of(kRestoreModeNames, range.restore_plan ? RestoreMode::kDifferential : RestoreMode::kFull));
  range.record.timings.capture_ms += ms_since(capture_start);
  debug("entry snapshot captured%s (%ld bytes)", "", static_cast<long>(range.record.footprint_bytes));
  return std::nullopt;
}

void EntrySnapshots::plan_differential_restore(ActiveRange& range) {
  // One region per entry piece (a region split over the device and pinned
  // tiers is two regions); the snapshot address is device-accessible either
  // way, so the digest kernel copies changed chunks back from either tier.
  std::vector<DigestRegion> regions;
  std::vector<std::uint32_t> allocations;
  for (const storage::StatePiece& piece : range.snapshot->pieces(SnapshotState::kEntry)) {
    regions.push_back({piece.app, DevicePtr(piece.copy)});
    allocations.push_back(piece.region);  // Snapshot::create's regions are range.allocations, in order
  }
  // The entry digests are of the application's memory (device reads), which
  // the capture just copied: same bytes, faster than reading pinned copies.
  auto plan = DigestPlan::create(regions, DigestPlanOptions{}, tool_stream_);
  Status s = plan.ok() ? plan->digest_entry(tool_stream_) : plan.status();
  if (s.ok()) s = cu_status(cuStreamSynchronize(tool_stream_), "cuStreamSynchronize", __FILE__, __LINE__);
  if (!s.ok()) {
    range.record.notes.push_back(
        "differential restore unavailable for this range, every pass restored all snapshot bytes: " + s.message());
    return;
  }
  range.restore_plan.emplace(std::move(plan).value());
  range.digest_allocations = std::move(allocations);
}

SnapshotStorage& EntrySnapshots::storage_for(const ActiveRange& range) {
  if (const auto* recording = std::get_if<Recording>(&range.state); recording == nullptr || !recording->deferrable) {
    if (!snapshot_storage_)
      snapshot_storage_ = std::make_unique<SnapshotStorage>(snapshot_options(parts_.config), range.ctx);
    return *snapshot_storage_;
  }
  for (const auto& storage : batch_storage_) {
    if (!storage->in_use()) return *storage;
  }
  batch_storage_.push_back(std::make_unique<SnapshotStorage>(snapshot_options(parts_.config), range.ctx));
  return *batch_storage_.back();
}

void EntrySnapshots::release_idle_batch_storage() {
  for (std::size_t i = 1; i < batch_storage_.size(); ++i) {
    if (!batch_storage_[i]->in_use()) batch_storage_[i]->release().ignore();
  }
}

std::uint64_t EntrySnapshots::releasable_device_bytes(bool with_batch_snapshots) {
  std::uint64_t bytes = 0;
  if (snapshot_storage_ && !snapshot_storage_->in_use())
    bytes += snapshot_storage_->arena_bytes(SnapshotStorage::kDeviceTier);
  for (const auto& storage : batch_storage_) {
    if (!storage->in_use() || with_batch_snapshots) bytes += storage->arena_bytes(SnapshotStorage::kDeviceTier);
  }
  return bytes;
}

void EntrySnapshots::release_idle_storage() {
  if (snapshot_storage_ && !snapshot_storage_->in_use()) snapshot_storage_->release().ignore();
  for (const auto& storage : batch_storage_) {
    if (!storage->in_use()) storage->release().ignore();
  }
}

void EntrySnapshots::keep_allocation(ActiveRange& range, const MemoryRange& region, std::string_view call,
                                     CUcontext ctx, bool capture_open) {
  if (!range.snapshot || region.empty()) return;
  const auto decline = [&](const std::string& why) {
    range.eligibility.decline(DeclineReason::kAllocationInRange, std::string(call) + " inside the range: " + why);
  };
  if (capture_open) return decline("a stream capture was open, which copying the new memory's bytes would invalidate");
  if (ctx != range.ctx) return decline("the memory belongs to another context than the range's");
  const std::uint64_t host_limit = parts_.config.snapshot_host_limit;
  const std::uint64_t cap =
      host_limit > 0 ? std::min(kMaxKeptAllocationBytes, host_limit / 2) : kMaxKeptAllocationBytes;
  const std::uint64_t total = range.kept_allocation_bytes + region.size();
  if (total > cap) {
    return decline("the range allocated " + report::format_bytes(total) + ", more than the " +
                   report::format_bytes(cap) +
                   " whose bytes the tool keeps in host memory for its replays (as allocated and at the range's end)");
  }
  if (const std::optional<std::uint64_t> available = host_memory_available();
      available && 2 * region.size() > *available / 2) {
    return decline("two copies of its " + report::format_bytes(region.size()) + " would take more than half of the " +
                   report::format_bytes(*available) + " of host memory available");
  }
  ActiveRange::GlobalState state;
  state.address = region.start().address();
  try {
    state.entry.resize(region.size());
    state.exit.resize(region.size());  // capture_globals_exit fills it without allocating
  } catch (const std::bad_alloc&) {
    return decline("no host memory for two copies of its " + report::format_bytes(region.size()));
  }
  Status s = cu_status(cuMemcpyDtoHAsync(state.entry.data(), state.address, region.size(), tool_stream_),
                       "cuMemcpyDtoHAsync", __FILE__, __LINE__);
  if (s.ok()) s = cu_status(cuStreamSynchronize(tool_stream_), "cuStreamSynchronize", __FILE__, __LINE__);
  if (!s.ok()) return decline("its bytes could not be copied: " + s.message());
  range.globals.push_back(std::move(state));
  range.kept_allocation_bytes = total;
}

RangeGlobals EntrySnapshots::range_globals(ActiveRange& range) {
  return RangeGlobals{[this, &range] {
                        RR_RETURN_IF_ERROR(capture_globals_exit(range));
                        return capture_zeroed_exit(range);
                      },
                      [this, &range](bool exit_state) {
                        // Both are queued whatever the other's outcome: after a failed
                        // replay the exit hand-back is best effort, step by step.
                        const Status globals = restore_globals(range, exit_state, tool_stream_);
                        const Status zeroed = restore_zeroed(range, exit_state);
                        return globals.ok() ? zeroed : globals;
                      }};
}

}  // namespace rangereplay::tool
