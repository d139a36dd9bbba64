// An in-memory BackingAllocator for planner tests: a pool of `free_bytes`
// that hands out fake addresses, can be told to fail, and writes every
// allocate / release / failure to a shared ledger so tests can assert the
// exact order of events across tiers and that nothing leaked.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/snapshot/storage/backing_allocator.h"
#include "core/snapshot/storage/byte_math.h"

namespace rangereplay::storage::testing {

/// What every FakeBacking of a test did, in order.
struct FakeLedger {
  std::vector<std::string> events;              // "allocate device 4096", "release pinned 8192", "fail device 4096"
  std::map<std::uint64_t, std::uint64_t> live;  // address -> bytes of blocks not yet released
  std::uint64_t next_address = 0x10000000;      // fake addresses, distinct across backings
};

class FakeBacking {
 public:
  /// A pool named `name` holding `free_bytes`.
  FakeBacking(FakeLedger& ledger, std::string name, std::uint64_t free_bytes)
      : ledger_(&ledger), name_(std::move(name)), free_bytes_(free_bytes) {}

  StatusOr<BackingBlock> allocate(std::uint64_t bytes) {
    EXPECT_GT(bytes, 0u) << "the planner allocated an empty arena";
    if (failures_left_ > 0 || bytes > free_bytes_) {
      if (failures_left_ > 0) --failures_left_;
      ledger_->events.push_back("fail " + name_ + " " + std::to_string(bytes));
      return resource_exhausted(name_ + " out of memory");
    }
    free_bytes_ -= bytes;
    BackingBlock block{ledger_->next_address, bytes, ++serial_};
    ledger_->next_address += 0x1000000;  // 16 MiB apart; sizes are not backed by real memory
    ledger_->live[block.address] = block.bytes;
    ledger_->events.push_back("allocate " + name_ + " " + std::to_string(bytes));
    return block;
  }

  void release(const BackingBlock& block) noexcept {
    auto it = ledger_->live.find(block.address);
    if (it == ledger_->live.end() || it->second != block.bytes) {
      ADD_FAILURE() << "release of a block " << name_ << " does not hold";
      return;
    }
    ledger_->live.erase(it);
    free_bytes_ = saturating_add(free_bytes_, block.bytes);
    ledger_->events.push_back("release " + name_ + " " + std::to_string(block.bytes));
  }

  /// retained + free, or the fixed budget set by set_budget().
  StatusOr<std::uint64_t> budget(std::uint64_t retained_bytes) const {
    if (budget_error_) return unavailable(name_ + " budget unknown");
    if (fixed_budget_) return *fixed_budget_;
    return saturating_add(retained_bytes, free_bytes_);
  }

  /// The next `count` allocations fail.
  void fail_allocations(int count = std::numeric_limits<int>::max()) { failures_left_ = count; }
  void set_budget(std::uint64_t bytes) { fixed_budget_ = bytes; }
  void fail_budget_query() { budget_error_ = true; }
  std::uint64_t free_bytes() const { return free_bytes_; }

 private:
  FakeLedger* ledger_;
  std::string name_;
  std::uint64_t free_bytes_;
  std::uint64_t serial_ = 0;
  int failures_left_ = 0;
  std::optional<std::uint64_t> fixed_budget_;
  bool budget_error_ = false;
};

static_assert(BackingAllocator<FakeBacking>);

}  // namespace rangereplay::storage::testing
