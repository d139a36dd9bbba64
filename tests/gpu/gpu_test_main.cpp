// Entry point of every GPU test executable: runs the tests when a CUDA device
// is present, and otherwise exits with 77, which CTest reports as skipped.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int count = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    std::fprintf(stderr, "skipped: no CUDA device on this machine\n");
    return 77;
  }
  return RUN_ALL_TESTS();
}
