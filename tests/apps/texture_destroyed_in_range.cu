// texture_destroyed_in_range: a range that makes a texture object over a
// buffer, launches a kernel reading through it, synchronizes and destroys the
// texture, then launches one more kernel, as image pipelines do around each
// launch. Expected decline: free_in_range (a replay's first kernel would read
// through the destroyed texture). The range still runs once, so the
// program's own result must stay right:
//   (range) tex = texture(x);  y = accumulate(y, tex);  destroy(tex);  affine(y, salt)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_texture_destroyed_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each destroying a texture object\n";

__global__ void accumulate_from_texture_kernel(uint32_t* acc, cudaTextureObject_t x, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    acc[i] = accumulate(acc[i], tex1Dfetch<uint32_t>(x, static_cast<int>(i)));
}

cudaTextureObject_t texture_over(const uint32_t* words, size_t n) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = const_cast<uint32_t*>(words);
  resource.res.linear.desc = cudaCreateChannelDesc<uint32_t>();
  resource.res.linear.sizeInBytes = n * sizeof(uint32_t);
  cudaTextureDesc description{};
  description.readMode = cudaReadModeElementType;
  cudaTextureObject_t texture = 0;
  CHECK_CUDA(cudaCreateTextureObject(&texture, &resource, &description, nullptr));
  return texture;
}

int run(int iterations) {
  init_device();
  std::vector<uint32_t> expected_y = random_words(kAppElements, 0xa9900051);
  uint32_t* y = upload(expected_y);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x500u + static_cast<uint32_t>(iteration);
    const std::vector<uint32_t> x_words = random_words(kAppElements, 0xa9900052 + iteration);
    uint32_t* x = upload(x_words);
    nvtxRangePushA("step");
    const cudaTextureObject_t texture = texture_over(x, kAppElements);
    accumulate_from_texture_kernel<<<grid_for(kAppElements, kAppThreads), kAppThreads>>>(y, texture, kAppElements);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaDestroyTextureObject(texture));
    launch_affine(y, kAppElements, salt, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaFree(x));
    host_accumulate(expected_y, x_words);
    host_affine(expected_y, salt);
  }
  check_and_print(download(y, kAppElements), expected_y, "y");
  CHECK_CUDA(cudaFree(y));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
