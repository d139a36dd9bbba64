#include "core/base/status.h"
#include "core/base/memory_range.h"

#include <gtest/gtest.h>

namespace rangereplay {
namespace {

StatusOr<int> half_of_even(int v) {
  if (v % 2) return invalid_argument("odd value " + std::to_string(v));
  return v / 2;
}

Status twice(int v, int* out) {
  RR_ASSIGN_OR_RETURN(int h, half_of_even(v));
  RR_ASSIGN_OR_RETURN(int q, half_of_even(h));
  *out = q;
  return ok_status();
}

TEST(Status, ok_status_reads_ok) {
  EXPECT_TRUE(ok_status().ok());
  EXPECT_EQ(ok_status().to_string(), "ok");
}

TEST(Status, error_carries_code_and_message) {
  Status s = invalid_argument("bad metric 'x'");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.to_string(), "invalid argument: bad metric 'x'");
}

TEST(Status, assign_or_return_propagates_the_first_error) {
  int out = -1;
  EXPECT_TRUE(twice(8, &out).ok());
  EXPECT_EQ(out, 2);
  Status s = twice(6, &out);
  EXPECT_EQ(s.message(), "odd value 3");
}

TEST(MemoryRange, half_open_containment_and_overlap) {
  MemoryRange r(DevicePtr(0x1000), 0x100);
  EXPECT_TRUE(r.contains(DevicePtr(0x1000)));
  EXPECT_TRUE(r.contains(DevicePtr(0x10ff)));
  EXPECT_FALSE(r.contains(DevicePtr(0x1100)));
  EXPECT_TRUE(r.overlaps(MemoryRange(DevicePtr(0x10ff), 1)));
  EXPECT_FALSE(r.overlaps(MemoryRange(DevicePtr(0x1100), 8)));
  EXPECT_FALSE(r.overlaps(MemoryRange(DevicePtr(0x1000), 0)));
}

}  // namespace
}  // namespace rangereplay
