// Shared fixture of the GPU tests: the device's primary context, current on
// the test thread, and one non-blocking stream per test.
#pragma once

#include <cuda.h>
#include <gtest/gtest.h>

#define ASSERT_CU(call) ASSERT_EQ((call), CUDA_SUCCESS) << #call
#define EXPECT_CU(call) EXPECT_EQ((call), CUDA_SUCCESS) << #call

namespace rangereplay::gpu_test {

class GpuStreamTest : public ::testing::Test {
 protected:
  // The primary context is retained once and never released: the kernels'
  // runtime state lives in it for the whole process.
  void SetUp() override {
    static CUcontext primary = nullptr;
    if (primary == nullptr) {
      CUdevice device = 0;
      ASSERT_CU(cuDeviceGet(&device, 0));
      ASSERT_CU(cuDevicePrimaryCtxRetain(&primary, device));
    }
    context_ = primary;
    ASSERT_CU(cuCtxSetCurrent(primary));
    ASSERT_CU(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_CU(cuStreamSynchronize(stream_));
      EXPECT_CU(cuStreamDestroy(stream_));
    }
  }

  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
};

}  // namespace rangereplay::gpu_test
