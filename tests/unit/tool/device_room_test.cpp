// Device room: which allocations ask for device memory of their own size, and
// when the tool gives back what it holds before one.
#include "tool/logic/device_room.h"

#include <gtest/gtest.h>

#include <limits>

namespace rangereplay::tool {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(DeviceRoom, the_bytes_each_allocation_asks_for) {
  AllocationParams p;
  p.bytes = 3 * kMiB;
  EXPECT_EQ(device_bytes_requested(MemoryEffect::kAddDevice, p), 3 * kMiB);
  EXPECT_EQ(device_bytes_requested(MemoryEffect::kAddStreamOrdered, p), 3 * kMiB);
  EXPECT_EQ(device_bytes_requested(MemoryEffect::kCreatePhysical, p), 3 * kMiB);
  p.height = 10;  // cuMemAllocPitch: 3 MiB rows, 10 of them
  EXPECT_EQ(device_bytes_requested(MemoryEffect::kAddPitched, p), 30 * kMiB);
  for (MemoryEffect none : {MemoryEffect::kAddManaged, MemoryEffect::kAddPinnedHost, MemoryEffect::kMapVirtual,
                            MemoryEffect::kSetAccess, MemoryEffect::kRemove, MemoryEffect::kNone})
    EXPECT_EQ(device_bytes_requested(none, p), 0u);
}

TEST(DeviceRoom, a_pitched_size_that_overflows_saturates) {
  AllocationParams p;
  p.bytes = kMax / 2;
  p.height = 3;
  EXPECT_EQ(device_bytes_requested(MemoryEffect::kAddPitched, p), kMax);
}

TEST(DeviceRoom, room_is_made_only_when_the_request_and_the_headroom_do_not_fit) {
  const std::uint64_t request = 1024 * kMiB;
  const std::uint64_t held = 4096 * kMiB;
  EXPECT_FALSE(must_make_room(request + kAllocationHeadroomBytes, request, held));
  EXPECT_TRUE(must_make_room(request + kAllocationHeadroomBytes - 1, request, held));
  EXPECT_TRUE(must_make_room(0, request, held));
  // Nothing held: nothing to give back.
  EXPECT_FALSE(must_make_room(0, request, 0));
  // A call that asks for no device memory of its own size.
  EXPECT_FALSE(must_make_room(0, 0, held));
}

TEST(DeviceRoom, no_room_is_made_when_what_the_tool_holds_cannot_make_the_request_fit) {
  // 100 MiB free, the tool holds 400 MiB: 500 MiB fit after freeing, 501 not
  // (that allocation fails without the tool too).
  EXPECT_TRUE(must_make_room(100 * kMiB, 500 * kMiB, 400 * kMiB));
  EXPECT_FALSE(must_make_room(100 * kMiB, 501 * kMiB, 400 * kMiB));
  // No overflow near the top.
  EXPECT_TRUE(must_make_room(kMax - 1, kMax, kMax));
  EXPECT_FALSE(must_make_room(0, kMax, 1));
}

}  // namespace
}  // namespace rangereplay::tool
