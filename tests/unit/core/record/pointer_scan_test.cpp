// ranges_pointed_into: which pinned host ranges a kernel's argument bytes point into.
#include <gtest/gtest.h>

#include <cstring>

#include "core/record/pointer_scan.h"

namespace rangereplay {
namespace {

std::vector<std::uint8_t> words(std::initializer_list<std::uint64_t> values, std::size_t tail = 0) {
  std::vector<std::uint8_t> bytes(values.size() * 8 + tail, 0xEE);
  std::size_t offset = 0;
  for (std::uint64_t v : values) {
    std::memcpy(bytes.data() + offset, &v, 8);
    offset += 8;
  }
  return bytes;
}

const std::vector<MemoryRange> kRanges = {MemoryRange(DevicePtr(0x1000), 0x100), MemoryRange(DevicePtr(0x2000), 1),
                                          MemoryRange(DevicePtr(0x7f0000000000), 6ull << 30)};

TEST(RangesPointedInto, finds_first_last_and_one_byte_ranges) {
  EXPECT_EQ(ranges_pointed_into(words({0x1000}), kRanges), (std::vector<std::size_t>{0}));
  EXPECT_EQ(ranges_pointed_into(words({0x10ff}), kRanges), (std::vector<std::size_t>{0}));
  EXPECT_EQ(ranges_pointed_into(words({0x2000}), kRanges), (std::vector<std::size_t>{1}));
  EXPECT_EQ(ranges_pointed_into(words({0x7f0000000000 + (6ull << 30) - 1}), kRanges), (std::vector<std::size_t>{2}));
}

TEST(RangesPointedInto, ignores_addresses_just_outside_and_between) {
  EXPECT_TRUE(ranges_pointed_into(words({0xfff, 0x1100, 0x1fff, 0x2001, 0, ~0ull}), kRanges).empty());
  EXPECT_TRUE(ranges_pointed_into(words({0x7f0000000000 + (6ull << 30)}), kRanges).empty());
}

TEST(RangesPointedInto, reports_each_range_once_in_index_order) {
  EXPECT_EQ(ranges_pointed_into(words({0x2000, 0x1008, 0x1010, 0x7f0000000100, 0x2000}), kRanges),
            (std::vector<std::size_t>{0, 1, 2}));
}

TEST(RangesPointedInto, reads_only_8_byte_aligned_words) {
  // 0x1000 at offset 4 straddles two words: not a pointer parameter.
  std::vector<std::uint8_t> bytes(16, 0);
  const std::uint64_t p = 0x1000;
  std::memcpy(bytes.data() + 4, &p, 8);
  EXPECT_TRUE(ranges_pointed_into(bytes, kRanges).empty());
}

TEST(RangesPointedInto, ignores_a_short_tail_and_handles_empty_inputs) {
  auto bytes = words({0x1000}, 7);
  std::memcpy(bytes.data() + 8, "\x00\x20\x00\x00\x00\x00\x00", 7);
  EXPECT_EQ(ranges_pointed_into(bytes, kRanges), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(ranges_pointed_into({}, kRanges).empty());
  EXPECT_TRUE(ranges_pointed_into(words({0x1000}), {}).empty());
}

}  // namespace
}  // namespace rangereplay
