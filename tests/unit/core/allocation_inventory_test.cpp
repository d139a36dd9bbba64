#include "core/allocation_inventory.h"

#include <gtest/gtest.h>

namespace rangereplay {
namespace {

Allocation dev(std::uint64_t start, std::uint64_t size) {
  return {MemoryRange(DevicePtr(start), size), AllocationKind::kDevice, "cuMemAlloc_v2", 0};
}

TEST(AllocationInventory, regions_come_back_sorted_with_serials_in_allocation_order) {
  AllocationInventory inv;
  inv.add(dev(0x3000, 16));
  inv.add(dev(0x1000, 32));
  auto r = inv.regions();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].range.start().address(), 0x1000u);
  EXPECT_EQ(r[0].serial, 2u);
  EXPECT_EQ(r[1].serial, 1u);
  EXPECT_EQ(inv.footprint_bytes(), 48u);
}

TEST(AllocationInventory, remove_forgets_only_the_named_start) {
  AllocationInventory inv;
  inv.add(dev(0x1000, 32));
  EXPECT_FALSE(inv.remove(DevicePtr(0x1008)).has_value());
  auto removed = inv.remove(DevicePtr(0x1000));
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->range.size(), 32u);
  EXPECT_EQ(inv.size(), 0u);
}

TEST(AllocationInventory, find_containing_respects_half_open_bounds) {
  AllocationInventory inv;
  inv.add(dev(0x1000, 0x100));
  EXPECT_TRUE(inv.find_containing(DevicePtr(0x10ff)).has_value());
  EXPECT_FALSE(inv.find_containing(DevicePtr(0x1100)).has_value());
  EXPECT_FALSE(inv.find_containing(DevicePtr(0xfff)).has_value());
}

TEST(AllocationInventory, reused_address_replaces_the_old_entry) {
  AllocationInventory inv;
  inv.add(dev(0x1000, 0x100));
  inv.add(dev(0x1000, 0x40));
  EXPECT_EQ(inv.size(), 1u);
  EXPECT_EQ(inv.footprint_bytes(), 0x40u);
}

}  // namespace
}  // namespace rangereplay
