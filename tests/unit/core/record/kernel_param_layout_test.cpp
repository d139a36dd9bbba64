// pack_kernel_arguments: a launch's (or a graph kernel node's) arguments, from
// a kernelParams array or a packed `extra` buffer, laid out at the function's
// parameter offsets, as the pointer scan reads them.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/record/kernel_param_layout.h"
#include "core/record/pointer_scan.h"

namespace rangereplay {
namespace {

void* key(std::uintptr_t marker) { return reinterpret_cast<void*>(marker); }

struct Twelve {
  std::uint32_t a, b, c;
};

// (char c, double d, Twelve t): offsets 0, 8, 16 as nvcc packs them; 28 bytes.
const KernelParamLayout kMixed{{0, 8, 16}, {1, 8, 12}, 28};

TEST(PackKernelArguments, a_kernel_without_parameters_and_no_arguments_packs_nothing) {
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(KernelParamLayout{}, nullptr, nullptr, &op).ok());
  EXPECT_TRUE(op.arg_bytes.empty());
  EXPECT_TRUE(op.arg_offsets.empty());
  EXPECT_TRUE(op.arg_sizes.empty());
}

TEST(PackKernelArguments, one_byte_parameter_is_copied_alone) {
  const KernelParamLayout layout{{0}, {1}, 1};
  std::uint8_t value = 0xA7;
  void* params[] = {&value};
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(layout, params, nullptr, &op).ok());
  EXPECT_EQ(op.arg_bytes, (std::vector<std::uint8_t>{0xA7}));
  EXPECT_EQ(op.arg_offsets, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(op.arg_sizes, (std::vector<std::uint32_t>{1}));
}

TEST(PackKernelArguments, parameters_land_at_their_offsets_with_zeros_between) {
  char c = 'x';
  double d = 1.5;
  Twelve t{0x11111111u, 0x22222222u, 0x33333333u};
  void* params[] = {&c, &d, &t};
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(kMixed, params, nullptr, &op).ok());
  ASSERT_EQ(op.arg_bytes.size(), 28u);
  std::vector<std::uint8_t> expected(28, 0);
  expected[0] = 'x';
  std::memcpy(expected.data() + 8, &d, 8);
  std::memcpy(expected.data() + 16, &t, 12);
  EXPECT_EQ(op.arg_bytes, expected);
  EXPECT_EQ(op.arg_offsets, kMixed.offsets);
  EXPECT_EQ(op.arg_sizes, kMixed.sizes);
}

TEST(PackKernelArguments, the_largest_parameter_buffer_is_copied_whole) {
  // 32764 bytes: CUDA's limit for a kernel's parameters (12.1 and later).
  const KernelParamLayout layout{{0, 8}, {8, 32756}, 32764};
  std::uint64_t pointer = 0x7f00deadbeefULL;
  std::vector<std::uint8_t> big(32756);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 7 + 3);
  void* params[] = {&pointer, big.data()};
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(layout, params, nullptr, &op).ok());
  ASSERT_EQ(op.arg_bytes.size(), 32764u);
  std::uint64_t first = 0;
  std::memcpy(&first, op.arg_bytes.data(), 8);
  EXPECT_EQ(first, pointer);
  EXPECT_TRUE(std::equal(big.begin(), big.end(), op.arg_bytes.begin() + 8));
}

TEST(PackKernelArguments, an_extra_buffer_is_copied_whole_and_padded_to_the_layout) {
  std::vector<std::uint8_t> buffer = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // 11 bytes: shorter than 28
  std::size_t size = buffer.size();
  void* extra[] = {key(kLaunchParamBufferPointer), buffer.data(), key(kLaunchParamBufferSize), &size,
                   key(kLaunchParamEnd)};
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(kMixed, nullptr, extra, &op).ok());
  std::vector<std::uint8_t> expected = buffer;
  expected.resize(28, 0);
  EXPECT_EQ(op.arg_bytes, expected);
  EXPECT_EQ(op.arg_offsets, kMixed.offsets);
}

TEST(PackKernelArguments, an_extra_buffer_longer_than_the_layout_is_kept_whole) {
  std::vector<std::uint8_t> buffer(33, 0x5A);
  std::size_t size = buffer.size();
  // Size first, then pointer: the order of the pairs does not matter.
  void* extra[] = {key(kLaunchParamBufferSize), &size, key(kLaunchParamBufferPointer), buffer.data(),
                   key(kLaunchParamEnd)};
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(kMixed, nullptr, extra, &op).ok());
  EXPECT_EQ(op.arg_bytes, buffer);
}

TEST(PackKernelArguments, an_extra_buffer_without_a_size_gives_zeros_of_the_layout_size) {
  std::uint8_t buffer[4] = {9, 9, 9, 9};
  void* extra[] = {key(kLaunchParamBufferPointer), buffer, key(kLaunchParamEnd)};
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(kMixed, nullptr, extra, &op).ok());
  EXPECT_EQ(op.arg_bytes, std::vector<std::uint8_t>(28, 0));
}

TEST(PackKernelArguments, an_extra_list_without_a_buffer_pointer_is_an_error) {
  std::size_t size = 8;
  void* extra[] = {key(kLaunchParamBufferSize), &size, key(kLaunchParamEnd)};
  KernelLaunchOp op;
  const Status s = pack_kernel_arguments(kMixed, nullptr, extra, &op);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "launch 'extra' without CU_LAUNCH_PARAM_BUFFER_POINTER");
}

TEST(PackKernelArguments, no_arguments_for_a_kernel_that_takes_some_is_an_error) {
  KernelLaunchOp op;
  const Status s = pack_kernel_arguments(kMixed, nullptr, nullptr, &op);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "kernel launch without arguments for a kernel that takes some");
}

TEST(PackKernelArguments, kernel_params_win_over_an_extra_list) {
  std::uint8_t value = 0x42;
  void* params[] = {&value};
  std::uint8_t buffer[1] = {0x99};
  std::size_t size = 1;
  void* extra[] = {key(kLaunchParamBufferPointer), buffer, key(kLaunchParamBufferSize), &size, key(kLaunchParamEnd)};
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(KernelParamLayout{{0}, {1}, 1}, params, extra, &op).ok());
  EXPECT_EQ(op.arg_bytes, (std::vector<std::uint8_t>{0x42}));
}

TEST(PackKernelArguments, a_pointer_after_a_small_parameter_is_found_by_the_pointer_scan) {
  // (int n, unsigned* buf): the pointer at offset 8, an aligned word.
  const KernelParamLayout layout{{0, 8}, {4, 8}, 16};
  std::int32_t n = 65539;
  std::uint64_t buf = 0x7f0000001010ULL;  // inside the second range
  void* params[] = {&n, &buf};
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(layout, params, nullptr, &op).ok());
  const std::vector<MemoryRange> pinned = {MemoryRange(DevicePtr(0x1000), 0x100),
                                           MemoryRange(DevicePtr(0x7f0000001000ULL), 0x40)};
  EXPECT_EQ(ranges_pointed_into(op.arg_bytes, pinned), (std::vector<std::size_t>{1}));
}

TEST(KernelLaunchOp, forgetting_arguments_empties_them_and_says_why) {
  std::uint64_t word = 0x1234;
  void* params[] = {&word};
  KernelLaunchOp op;
  ASSERT_TRUE(pack_kernel_arguments(KernelParamLayout{{0}, {8}, 8}, params, nullptr, &op).ok());
  op.forget_arguments("device-updatable");
  EXPECT_EQ(op.arguments_unknown, "device-updatable");
  EXPECT_TRUE(op.arg_bytes.empty());
  EXPECT_TRUE(op.arg_offsets.empty());
  EXPECT_TRUE(op.arg_sizes.empty());
}

}  // namespace
}  // namespace rangereplay
