// The allocation inventory: classic allocations, virtual-memory mappings
// (map, access, partial unmaps) and device-mapped pinned host memory.
#include "core/record/allocation_inventory.h"

#include <gtest/gtest.h>

#include <ostream>
#include <vector>

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

TEST(AllocationInventory, managed_memory_attaches_to_the_host_and_back) {
  AllocationInventory inv;
  inv.add({MemoryRange(DevicePtr(0x1000), 0x100), AllocationKind::kManaged, "cuMemAllocManaged", 0});
  inv.add(dev(0x2000, 0x100));
  EXPECT_TRUE(inv.set_host_attached(DevicePtr(0x1080), true));  // any address inside it
  EXPECT_TRUE(inv.find_containing(DevicePtr(0x1000))->host_attached);
  EXPECT_FALSE(inv.set_host_attached(DevicePtr(0x2000), true));  // not managed
  EXPECT_FALSE(inv.find_containing(DevicePtr(0x2000))->host_attached);
  EXPECT_FALSE(inv.set_host_attached(DevicePtr(0x1100), true));  // past its end
  EXPECT_FALSE(inv.set_host_attached(DevicePtr(0x800), true));   // before every allocation
  EXPECT_TRUE(inv.set_host_attached(DevicePtr(0x1000), false));  // to a stream again
  EXPECT_FALSE(inv.regions()[0].host_attached);
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

Allocation mapping(std::uint64_t start, std::uint64_t size) {
  return {MemoryRange(DevicePtr(start), size), AllocationKind::kVirtual, "cuMemMap", 0, 0, kNoDevices};
}

Allocation mapped_host(std::uint64_t device, std::uint64_t host, std::uint64_t size) {
  return {MemoryRange(DevicePtr(device), size), AllocationKind::kMappedHost, "cuMemHostAlloc", 0, host};
}

// (start, size, writable_devices) of every region, for exact comparisons.
struct Span {
  std::uint64_t start, size, writable;
  friend bool operator==(const Span&, const Span&) = default;
};
std::ostream& operator<<(std::ostream& os, const Span& s) {
  return os << "[0x" << std::hex << s.start << ", +0x" << s.size << ") writable 0x" << s.writable << std::dec;
}
std::vector<Span> spans(const AllocationInventory& inv) {
  std::vector<Span> out;
  for (const Allocation& a : inv.regions())
    out.push_back({a.range.start().address(), a.range.size(), a.writable_devices});
  return out;
}

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kVa = std::uint64_t{0x7f0000000000};

TEST(AllocationInventory, a_new_mapping_is_writable_by_no_device_until_access_is_set) {
  AllocationInventory inv;
  inv.add(mapping(kVa, 4 * kMiB));
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_FALSE(inv.regions()[0].writable_by(0));
  EXPECT_FALSE(inv.regions()[0].writable_by(-1));
  EXPECT_EQ(inv.set_access(MemoryRange(DevicePtr(kVa), 4 * kMiB), 0, true), 4 * kMiB);
  const Allocation a = inv.regions()[0];
  EXPECT_TRUE(a.writable_by(0));
  EXPECT_FALSE(a.writable_by(1));
  EXPECT_TRUE(a.writable_by(-1));
  EXPECT_EQ(a.writable_devices, 1u);
  EXPECT_EQ(a.kind, AllocationKind::kVirtual);
  EXPECT_EQ(a.origin, "cuMemMap");
}

TEST(AllocationInventory, classic_allocations_are_writable_by_every_device) {
  const Allocation a = dev(0x1000, 16);
  EXPECT_TRUE(a.writable_by(0));
  EXPECT_TRUE(a.writable_by(7));
  EXPECT_TRUE(a.writable_by(200));  // ordinals from 63 up share bit 63
}

TEST(AllocationInventory, an_empty_mapping_is_not_recorded) {
  AllocationInventory inv;
  inv.add(mapping(kVa, 0));
  EXPECT_EQ(inv.size(), 0u);
}

TEST(AllocationInventory, unmapping_a_whole_mapping_forgets_exactly_its_bytes) {
  AllocationInventory inv;
  inv.add(mapping(kVa, 2 * kMiB));
  inv.add(dev(0x1000, 64));
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa), 2 * kMiB)), 2 * kMiB);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{0x1000, 64, kAllDevices}}));
}

TEST(AllocationInventory, unmapping_the_middle_splits_the_span_in_two) {
  AllocationInventory inv;
  inv.add(mapping(kVa, 4 * kMiB));
  inv.set_access(MemoryRange(DevicePtr(kVa), 4 * kMiB), 1, true);
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa + kMiB), kMiB)), kMiB);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, kMiB, 2}, {kVa + 2 * kMiB, 2 * kMiB, 2}}));
  const auto regions = inv.regions();
  EXPECT_EQ(regions[0].serial, regions[1].serial);  // both pieces of one mapping
  EXPECT_EQ(regions[1].origin, "cuMemMap");
  EXPECT_EQ(inv.footprint_bytes(), 3 * kMiB);
}

TEST(AllocationInventory, unmapping_a_head_or_a_tail_trims_the_span) {
  AllocationInventory inv;
  inv.add(mapping(kVa, 4 * kMiB));
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa), kMiB)), kMiB);
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa + 3 * kMiB), kMiB)), kMiB);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa + kMiB, 2 * kMiB, kNoDevices}}));
}

TEST(AllocationInventory, an_unmap_covering_several_spans_and_gaps_forgets_only_mapped_bytes) {
  AllocationInventory inv;
  inv.add(mapping(kVa, 2 * kMiB));
  inv.add(mapping(kVa + 3 * kMiB, 2 * kMiB));
  inv.add(mapping(kVa + 6 * kMiB, 2 * kMiB));
  // [va+1M, va+7M): the end of the first, all of the second, the start of the third.
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa + kMiB), 6 * kMiB)), 4 * kMiB);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, kMiB, kNoDevices}, {kVa + 7 * kMiB, kMiB, kNoDevices}}));
}

TEST(AllocationInventory, unmap_never_touches_other_kinds_of_allocation) {
  AllocationInventory inv;
  inv.add(dev(0x10000, 0x100));
  inv.add(mapped_host(0x20000, 0x20000, 0x100));
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(0x10000), 0x20000)), 0u);
  EXPECT_EQ(inv.size(), 2u);
}

TEST(AllocationInventory, unmapping_nothing_or_untracked_addresses_changes_nothing) {
  AllocationInventory inv;
  inv.add(mapping(kVa, kMiB));
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa), 0)), 0u);
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa + kMiB), kMiB)), 0u);  // touches the end, does not overlap
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa - kMiB), kMiB)), 0u);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, kMiB, kNoDevices}}));
}

TEST(AllocationInventory, one_byte_and_unaligned_unmaps_are_exact) {
  AllocationInventory inv;
  inv.add(mapping(0x1001, 0x333));  // [0x1001, 0x1334)
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(0x1001), 1)), 1u);
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(0x1100), 3)), 3u);
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(0x1333), 1)), 1u);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{0x1002, 0xfe, kNoDevices}, {0x1103, 0x230, kNoDevices}}));
  EXPECT_EQ(inv.footprint_bytes(), 0x333u - 5u);
}

TEST(AllocationInventory, adjacent_mappings_with_the_same_access_coalesce) {
  AllocationInventory inv;
  // An allocator growing one reservation page by page (map, then set access).
  for (std::uint64_t page = 0; page < 4; ++page) {
    inv.add(mapping(kVa + page * 2 * kMiB, 2 * kMiB));
    inv.set_access(MemoryRange(DevicePtr(kVa + page * 2 * kMiB), 2 * kMiB), 0, true);
  }
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, 8 * kMiB, 1}}));
  EXPECT_EQ(inv.regions()[0].serial, 1u);  // the first page's
  // Unmapping the third page splits it again.
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa + 4 * kMiB), 2 * kMiB)), 2 * kMiB);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, 4 * kMiB, 1}, {kVa + 6 * kMiB, 2 * kMiB, 1}}));
}

TEST(AllocationInventory, mappings_with_different_access_stay_apart) {
  AllocationInventory inv;
  inv.add(mapping(kVa, kMiB));
  inv.add(mapping(kVa + kMiB, kMiB));  // coalesces: both writable by no device yet
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_EQ(inv.set_access(MemoryRange(DevicePtr(kVa + kMiB), kMiB), 0, true), kMiB);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, kMiB, kNoDevices}, {kVa + kMiB, kMiB, 1}}));
  // Granting the same access to the first half joins them again.
  EXPECT_EQ(inv.set_access(MemoryRange(DevicePtr(kVa), kMiB), 0, true), kMiB);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, 2 * kMiB, 1}}));
}

TEST(AllocationInventory, access_to_part_of_a_span_splits_it_and_revoking_clears_one_device) {
  AllocationInventory inv;
  inv.add(mapping(kVa, 3 * kMiB));
  inv.set_access(MemoryRange(DevicePtr(kVa), 3 * kMiB), 0, true);
  inv.set_access(MemoryRange(DevicePtr(kVa), 3 * kMiB), 2, true);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, 3 * kMiB, 5}}));
  EXPECT_EQ(inv.set_access(MemoryRange(DevicePtr(kVa + kMiB), kMiB), 0, false), kMiB);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, kMiB, 5}, {kVa + kMiB, kMiB, 4}, {kVa + 2 * kMiB, kMiB, 5}}));
  EXPECT_EQ(inv.set_access(MemoryRange(DevicePtr(kVa + 5 * kMiB), kMiB), 0, true), 0u);  // nothing mapped there
  EXPECT_EQ(inv.set_access(MemoryRange(DevicePtr(kVa), 0), 0, true), 0u);
}

TEST(AllocationInventory, mappings_never_coalesce_with_other_kinds) {
  AllocationInventory inv;
  inv.add(dev(kVa, kMiB));
  Allocation m = mapping(kVa + kMiB, kMiB);
  m.writable_devices = kAllDevices;
  inv.add(m);
  EXPECT_EQ(inv.size(), 2u);
}

TEST(AllocationInventory, mapped_host_memory_is_removed_by_its_host_address) {
  AllocationInventory inv;
  inv.add(mapped_host(0x5000, 0x5000, 100));     // unified addressing: same address
  inv.add(mapped_host(0x9000, 0x123457, 0x31));  // write-combined: a different device address
  EXPECT_FALSE(inv.remove_host(0x5008).has_value());
  EXPECT_FALSE(inv.remove_host(0x9000).has_value());  // that is a device address, not a host one
  EXPECT_FALSE(inv.remove_host(0).has_value());
  auto wc = inv.remove_host(0x123457);
  ASSERT_TRUE(wc.has_value());
  EXPECT_EQ(wc->range, MemoryRange(DevicePtr(0x9000), 0x31));
  auto uva = inv.remove_host(0x5000);
  ASSERT_TRUE(uva.has_value());
  EXPECT_EQ(uva->range.size(), 100u);
  EXPECT_EQ(uva->kind, AllocationKind::kMappedHost);
  EXPECT_EQ(inv.size(), 0u);
}

TEST(AllocationInventory, remove_host_ignores_device_allocations_at_that_address) {
  AllocationInventory inv;
  inv.add(dev(0x5000, 100));
  EXPECT_FALSE(inv.remove_host(0x5000).has_value());
  EXPECT_EQ(inv.size(), 1u);
}

TEST(AllocationInventory, a_large_mapping_split_keeps_exact_byte_counts) {
  AllocationInventory inv;
  const std::uint64_t big = std::uint64_t{96} << 30;  // 96 GiB reservation
  inv.add(mapping(kVa, big));
  EXPECT_EQ(inv.unmap(MemoryRange(DevicePtr(kVa + (std::uint64_t{40} << 30)), 12345)), 12345u);
  EXPECT_EQ(inv.footprint_bytes(), big - 12345u);
  EXPECT_EQ(spans(inv), (std::vector<Span>{{kVa, std::uint64_t{40} << 30, kNoDevices},
                                           {kVa + (std::uint64_t{40} << 30) + 12345,
                                            big - (std::uint64_t{40} << 30) - 12345, kNoDevices}}));
}

TEST(AllocationInventory, kind_names_are_stable) {
  EXPECT_STREQ(allocation_kind_name(AllocationKind::kVirtual), "virtual");
  EXPECT_STREQ(allocation_kind_name(AllocationKind::kMappedHost), "mapped-host");
}

TEST(SnapshotSelection, a_range_snapshots_what_its_context_can_write_and_lists_the_rest) {
  const auto at = [](std::uint64_t start, AllocationKind kind, std::uint64_t context = 0) {
    Allocation a{MemoryRange(DevicePtr(start), 0x100), kind, "test", 0};
    a.context = context;
    return a;
  };
  std::vector<Allocation> all;
  all.push_back(at(0x5000, AllocationKind::kDevice, /*context=*/0xa));  // the range's context
  all.push_back(at(0x4000, AllocationKind::kDevice, /*context=*/0xb));  // another context, same device
  all.push_back(at(0x3000, AllocationKind::kDevice));                   // context unknown: snapshotted
  all.push_back(at(0x2000, AllocationKind::kMappedHost));
  Allocation managed = at(0x1000, AllocationKind::kManaged);
  managed.host_attached = true;
  all.push_back(managed);
  Allocation device1 = at(0x6000, AllocationKind::kDevice, 0xc);
  device1.writable_devices = device_bit(1);
  all.push_back(device1);
  all.push_back(at(0x7000, AllocationKind::kStreamOrdered));

  const SnapshotSelection s = select_for_snapshot(all, /*device=*/0, /*context=*/0xa);
  ASSERT_EQ(s.snapshot.size(), 3u);
  EXPECT_EQ(s.snapshot[0].range.start().address(), 0x5000u);
  EXPECT_EQ(s.snapshot[1].range.start().address(), 0x3000u);
  EXPECT_EQ(s.snapshot[2].range.start().address(), 0x7000u);
  ASSERT_EQ(s.host_mapped.size(), 2u);
  EXPECT_EQ(s.host_mapped[0].start().address(), 0x1000u);
  EXPECT_EQ(s.host_mapped[1].start().address(), 0x2000u);
  ASSERT_EQ(s.other_context.size(), 1u);
  EXPECT_EQ(s.other_context[0].start().address(), 0x4000u);
  ASSERT_EQ(s.other_device.size(), 1u);
  EXPECT_EQ(s.other_device[0].start().address(), 0x6000u);

  // A range whose context is unknown snapshots every context's memory, as before.
  EXPECT_EQ(select_for_snapshot(all, 0, 0).snapshot.size(), 4u);
}

}  // namespace
}  // namespace rangereplay
