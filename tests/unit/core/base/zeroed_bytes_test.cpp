// A byte buffer zero at allocation (core/base/zeroed_bytes.h), the counter
// data image's storage.
#include "core/base/zeroed_bytes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rangereplay {
namespace {

bool all_zero(const ZeroedBytes& b) {
  return std::all_of(b.span().begin(), b.span().end(), [](std::uint8_t x) { return x == 0; });
}

TEST(ZeroedBytes, is_zero_when_made_also_where_the_heap_held_other_bytes) {
  // Small blocks come from the heap's free lists: a freed block full of
  // 0xAB is likely to be handed out again.
  for (int round = 0; round < 8; ++round) {
    auto* dirty = new std::uint8_t[4096];
    std::fill(dirty, dirty + 4096, std::uint8_t{0xAB});
    delete[] dirty;
    ZeroedBytes b(4096);
    ASSERT_EQ(b.size(), 4096u);
    EXPECT_TRUE(all_zero(b));
  }
  // A large block (a fresh mapping) of 64 MiB.
  ZeroedBytes large(std::size_t{64} << 20);
  EXPECT_EQ(large.size(), std::size_t{64} << 20);
  EXPECT_TRUE(all_zero(large));
}

TEST(ZeroedBytes, copies_assigns_and_moves_every_byte) {
  ZeroedBytes a(16);
  for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<std::uint8_t>(i + 1);
  ZeroedBytes copy = a;
  ASSERT_EQ(copy.size(), 16u);
  EXPECT_TRUE(std::equal(copy.span().begin(), copy.span().end(), a.span().begin()));
  EXPECT_NE(copy.data(), a.data());

  const std::vector<std::uint8_t> other = {9, 8, 7};
  copy.assign(other);  // another size: a new block
  EXPECT_EQ(std::vector<std::uint8_t>(copy.span().begin(), copy.span().end()), other);
  const std::uint8_t* block = copy.data();
  copy.assign(std::vector<std::uint8_t>{1, 2, 3});  // the same size: the same block
  EXPECT_EQ(copy.data(), block);
  EXPECT_EQ(copy.data()[2], 3);

  ZeroedBytes part = copy;
  part.assign(part.span().first(2));  // from within itself, into a new block
  EXPECT_EQ(std::vector<std::uint8_t>(part.span().begin(), part.span().end()), (std::vector<std::uint8_t>{1, 2}));

  ZeroedBytes moved = std::move(a);
  EXPECT_EQ(moved.size(), 16u);
  EXPECT_EQ(moved.data()[15], 16);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from state is specified

  moved = ZeroedBytes(4);
  EXPECT_EQ(moved.size(), 4u);
  EXPECT_TRUE(all_zero(moved));
}

TEST(ZeroedBytes, empty_and_cleared_hold_no_block) {
  ZeroedBytes none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_TRUE(none.span().empty());
  ZeroedBytes zero(0);
  EXPECT_TRUE(zero.empty());
  ZeroedBytes b(8);
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.data(), nullptr);
  b.assign({});
  EXPECT_TRUE(b.empty());
}

}  // namespace
}  // namespace rangereplay
