// is_unrecorded_gpu_work: the driver calls a range declines for because a
// replay would leave them out.
#include "core/record/unrecorded_work.h"

#include <gtest/gtest.h>

namespace rangereplay {
namespace {

TEST(UnrecordedWork, two_and_three_dimensional_copies_and_sets_are_unrecorded) {
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemcpy2D_v2"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemcpy2DAsync_v2_ptsz"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemcpy3DPeerAsync"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemsetD2D8_v2"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemsetD2D32Async"));
}

TEST(UnrecordedWork, peer_array_and_batched_copies_are_unrecorded) {
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemcpyPeerAsync"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemcpyAtoD_v2"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemcpyHtoA_v2"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemcpyBatchAsync"));
}

TEST(UnrecordedWork, stream_memory_operations_legacy_launches_and_discards_are_unrecorded) {
  EXPECT_TRUE(is_unrecorded_gpu_work("cuStreamWriteValue32_v2"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuStreamWaitValue64_v2_ptsz"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuStreamBatchMemOp_v2"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuLaunch"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuLaunchGridAsync"));
  EXPECT_TRUE(is_unrecorded_gpu_work("cuMemDiscardBatchAsync"));
}

TEST(UnrecordedWork, calls_that_change_no_device_memory_are_not) {
  EXPECT_FALSE(is_unrecorded_gpu_work("cuEventRecord"));
  EXPECT_FALSE(is_unrecorded_gpu_work("cuStreamWaitEvent"));
  EXPECT_FALSE(is_unrecorded_gpu_work("cuMemPrefetchAsync_v2"));
  EXPECT_FALSE(is_unrecorded_gpu_work("cuMemAdvise_v2"));
  EXPECT_FALSE(is_unrecorded_gpu_work("cuStreamSynchronize"));
  EXPECT_FALSE(is_unrecorded_gpu_work("cuCtxGetCurrent"));
  EXPECT_FALSE(is_unrecorded_gpu_work("cuLaunchHostFunc"));  // its own decline, host_function_in_range
  EXPECT_FALSE(is_unrecorded_gpu_work(""));
}

}  // namespace
}  // namespace rangereplay
