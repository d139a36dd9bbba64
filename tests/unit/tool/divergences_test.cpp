// --verify's divergences: one per allocation with a differing chunk, each
// allocation once although its pieces are several regions, in region order.
#include "tool/logic/divergences.h"

#include <gtest/gtest.h>

#include <vector>

namespace rangereplay::tool {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

Allocation allocation(std::uint64_t address, std::uint64_t bytes, AllocationKind kind, std::uint64_t serial) {
  Allocation a;
  a.range = MemoryRange(DevicePtr(address), bytes);
  a.kind = kind;
  a.origin = kind == AllocationKind::kManaged ? "cuMemAllocManaged" : "cuMemAlloc_v2";
  a.serial = serial;
  return a;
}

struct Fixture {
  // Allocation 0 (2 MiB) is split over two regions (a device and a pinned
  // piece: 1 MiB each); allocation 1 (1 MiB + 16) is one region of two chunks.
  std::vector<Allocation> allocations = {allocation(0x10000000, 2 * kMiB, AllocationKind::kDevice, 3),
                                         allocation(0x20000000, kMiB + 16, AllocationKind::kManaged, 7)};
  std::vector<MemoryRange> regions = {MemoryRange(DevicePtr(0x10000000), kMiB),
                                      MemoryRange(DevicePtr(0x10000000 + kMiB), kMiB),
                                      MemoryRange(DevicePtr(0x20000000), kMiB + 16)};
  std::vector<std::uint32_t> region_allocations = {0, 0, 1};
  ChunkTable table = ChunkTable::build(regions).value();  // chunks: r0, r1, r2, r2 (16 bytes)
  std::vector<std::uint64_t> exit = {1, 2, 3, 4};
};

TEST(Divergences, each_divergent_allocation_is_reported_once) {
  Fixture f;
  ASSERT_EQ(f.table.chunk_count(), 4u);
  report::PassRecord pass;
  const std::vector<std::uint64_t> found = {9, 9, 3, 9};  // both pieces of 0, the tail of 1
  record_divergences(f.allocations, f.region_allocations, f.table, found, f.exit, pass);
  EXPECT_EQ(pass.divergences,
            (std::vector<report::Divergence>{{0x10000000, 2 * kMiB, "cuMemAlloc_v2 #3 (device)"},
                                             {0x20000000, kMiB + 16, "cuMemAllocManaged #7 (managed)"}}));
}

TEST(Divergences, identical_digests_report_nothing) {
  Fixture f;
  report::PassRecord pass;
  record_divergences(f.allocations, f.region_allocations, f.table, f.exit, f.exit, pass);
  EXPECT_TRUE(pass.divergences.empty());
}

TEST(Divergences, only_the_allocation_whose_chunk_differs) {
  Fixture f;
  report::PassRecord pass;
  const std::vector<std::uint64_t> found = {1, 2, 3, 5};
  record_divergences(f.allocations, f.region_allocations, f.table, found, f.exit, pass);
  ASSERT_EQ(pass.divergences.size(), 1u);
  EXPECT_EQ(pass.divergences[0].address, 0x20000000u);
}

TEST(Divergences, digests_that_do_not_match_the_table_report_nothing) {
  Fixture f;
  report::PassRecord pass;
  const std::vector<std::uint64_t> short_list = {9, 9, 9};
  record_divergences(f.allocations, f.region_allocations, f.table, short_list, f.exit, pass);
  record_divergences(f.allocations, f.region_allocations, f.table, f.exit, short_list, pass);
  EXPECT_TRUE(pass.divergences.empty());
}

TEST(Divergences, regions_without_an_allocation_are_skipped) {
  Fixture f;
  report::PassRecord pass;
  const std::vector<std::uint32_t> two_known = {0, 0};  // region 2 maps to none
  const std::vector<std::uint64_t> found = {1, 9, 9, 9};
  record_divergences(f.allocations, two_known, f.table, found, f.exit, pass);
  ASSERT_EQ(pass.divergences.size(), 1u);
  EXPECT_EQ(pass.divergences[0].address, 0x10000000u);
}

}  // namespace
}  // namespace rangereplay::tool
