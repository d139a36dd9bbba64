// Arena: one storage tier made of three replaceable parts.
//
//   Arena<PrefixChunking, BumpSuballocator, DeviceBacking> device(
//       TierOptions{.name = "device", .limit_bytes = cli_device_limit, .retain = true},
//       PrefixChunking(2 << 20), BumpSuballocator(256), /*backing args...*/ ctx);
//
// The admission policy decides how much of a request the tier takes, the
// suballocator where it goes, the backing where the memory comes from
// (admission.h, bump_suballocator.h, backing_allocator.h). The arena adds
// what is the same for every tier: the user's limit, retain mode (one
// high-water arena kept across ranges, reused when big enough, else freed
// before the larger one is allocated) and commit/rollback.
// Move-constructible (the moved-from arena holds nothing); not thread-safe.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "core/snapshot/storage/admission.h"
#include "core/snapshot/storage/backing_allocator.h"
#include "core/snapshot/storage/bump_suballocator.h"
#include "core/snapshot/storage/byte_math.h"
#include "core/snapshot/storage/storage_tier.h"
#include "core/snapshot/storage/tier_budget.h"

namespace rangereplay::storage {

struct TierOptions {
  std::string name;                          // "device", "pinned": reports and errors
  std::optional<std::uint64_t> limit_bytes;  // user cap; lowers the budget, never raises it
  bool retain = false;                       // keep one high-water arena across ranges
  // Commit the used bytes rounded up to the suballocator's alignment (never
  // past its capacity), so the arena's last piece owns whole aligned slots
  // like every other piece: StateLayout::exclusive_span rounds a state's end
  // into them, and DigestPlan::capture_changed packs 256-byte slots there.
  bool commit_whole_alignment = false;
};

template <AdmissionPolicy Admission, Suballocator Sub, BackingAllocator Backing>
class Arena final : public StorageTier {
 public:
  /// `backing_args` are forwarded unchanged to Backing's constructor.
  template <class... BackingArgs>
  Arena(TierOptions options, Admission admission, Sub suballocator, BackingArgs&&... backing_args)
      : options_(std::move(options)),
        admission_(std::move(admission)),
        suballocator_(std::move(suballocator)),
        backing_(std::forward<BackingArgs>(backing_args)...) {}

  Arena(Arena&& other) noexcept(
      std::is_nothrow_move_constructible_v<Admission>&& std::is_nothrow_move_constructible_v<Sub>&&
          std::is_nothrow_move_constructible_v<Backing>)
      : options_(std::move(other.options_)),
        admission_(std::move(other.admission_)),
        suballocator_(std::move(other.suballocator_)),
        backing_(std::move(other.backing_)),
        block_(std::exchange(other.block_, std::nullopt)),
        committed_new_(std::exchange(other.committed_new_, false)),
        new_allocation_(std::exchange(other.new_allocation_, false)) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena& operator=(Arena&&) = delete;
  ~Arena() override { release(); }

  const TierOptions& options() const { return options_; }
  const Admission& admission() const { return admission_; }
  const Sub& suballocator() const { return suballocator_; }
  Backing& backing() { return backing_; }
  const Backing& backing() const { return backing_; }
  /// The arena held now (retained or committed), if any.
  const std::optional<BackingBlock>& block() const { return block_; }

  const std::string& name() const override { return options_.name; }

  StatusOr<std::uint64_t> budget() const override {
    const std::uint64_t retained = options_.retain && block_ ? block_->bytes : 0;
    RR_ASSIGN_OR_RETURN(std::uint64_t backing_budget, backing_.budget(retained));
    return apply_limit(backing_budget, options_.limit_bytes);
  }

  void begin_plan(std::uint64_t capacity_bytes) override {
    suballocator_.reset(capacity_bytes);
    committed_new_ = false;
    new_allocation_ = false;
  }

  TierOffer offer(std::uint64_t remaining_bytes) override {
    const std::uint64_t available = suballocator_.available();
    const std::uint64_t bytes = std::min({admission_.admit(remaining_bytes, available), remaining_bytes, available});
    if (bytes == 0) return {};
    return {bytes, suballocator_.reserve(bytes)};
  }

  std::uint64_t planned_bytes() const override { return suballocator_.used(); }

  Status commit() override {
    const std::uint64_t need = committed_size();
    committed_new_ = false;
    new_allocation_ = false;
    if (block_ && options_.retain && block_->bytes >= need) return ok_status();
    if (block_) release();  // too small (retain) or left over: free before allocating
    RR_ASSIGN_OR_RETURN(BackingBlock block, backing_.allocate(need));
    if (block.bytes < need) {
      backing_.release(block);
      return internal_error("tier '" + options_.name + "': backing returned " + std::to_string(block.bytes) +
                            " bytes for a request of " + std::to_string(need));
    }
    block_ = block;
    committed_new_ = true;
    new_allocation_ = true;
    return ok_status();
  }

  /// The bytes commit() allocates: used(), or with commit_whole_alignment
  /// used() rounded up to the alignment when the capacity has room.
  std::uint64_t committed_size() const {
    const std::uint64_t used = suballocator_.used();
    if constexpr (requires {
                    suballocator_.alignment_bytes();
                    suballocator_.capacity_bytes();
                  }) {
      if (options_.commit_whole_alignment && used > 0) {
        const std::optional<std::uint64_t> rounded = align_up(used, suballocator_.alignment_bytes());
        if (rounded && *rounded <= suballocator_.capacity_bytes()) return *rounded;
      }
    }
    return used;
  }

  void rollback() override {
    if (committed_new_) release();
    committed_new_ = false;
    new_allocation_ = false;
  }

  TierOutcome outcome() const override {
    TierOutcome out;
    out.tier = options_.name;
    out.planned_bytes = suballocator_.used();
    out.arena_bytes = block_ ? block_->bytes : 0;
    out.arena_address = block_ ? block_->address : 0;
    out.new_allocation = new_allocation_;
    return out;
  }

  void end_range() override {
    if (!options_.retain) release();
    committed_new_ = false;
  }

  void release() override {
    if (block_) backing_.release(*block_);
    block_.reset();
    committed_new_ = false;
  }

 private:
  TierOptions options_;
  Admission admission_;
  Sub suballocator_;
  Backing backing_;
  std::optional<BackingBlock> block_;
  bool committed_new_ = false;   // the last commit() allocated block_
  bool new_allocation_ = false;  // for the report: this plan allocated block_
};

}  // namespace rangereplay::storage
