// malloc_async: stream-ordered allocations made and freed outside the ranges,
// used by the kernels inside them. `acc` comes from the device's default pool
// (cudaMallocAsync) and lives across all ranges; each range's `scratch` comes
// from an explicit pool (cudaMallocFromPoolAsync) just before the range and is
// freed (cudaFreeAsync) just after it. Per range:
//   scratch = source;  affine(scratch, salt);  acc = 3 acc + scratch
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
    "usage: app_malloc_async [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2) using stream-ordered\n"
    "                  allocations made outside them\n";

int run(int iterations) {
  init_device();
  constexpr size_t kBytes = kAppElements * sizeof(uint32_t);
  const std::vector<uint32_t> source_words = random_words(kAppElements, 0xa9900002);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa9900003);
  uint32_t* source = upload(source_words);

  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool = nullptr;
  CHECK_CUDA(cudaMemPoolCreate(&pool, &props));

  uint32_t* acc = nullptr;
  CHECK_CUDA(cudaMallocAsync(&acc, kBytes, stream));
  CHECK_CUDA(cudaMemcpyAsync(acc, expected_acc.data(), kBytes, cudaMemcpyHostToDevice, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x100u + static_cast<uint32_t>(iteration);
    uint32_t* scratch = nullptr;
    CHECK_CUDA(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&scratch), kBytes, pool, stream));
    nvtxRangePushA("step");
    launch_copy(scratch, source, kAppElements, stream);
    launch_affine(scratch, kAppElements, salt, stream);
    launch_accumulate(acc, scratch, kAppElements, stream);
    nvtxRangePop();
    CHECK_CUDA(cudaFreeAsync(scratch, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));

    std::vector<uint32_t> expected_scratch = source_words;
    host_affine(expected_scratch, salt);
    host_accumulate(expected_acc, expected_scratch);
  }

  std::vector<uint32_t> result(kAppElements);
  CHECK_CUDA(cudaMemcpyAsync(result.data(), acc, kBytes, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaFreeAsync(acc, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  check_and_print(result, expected_acc, "acc");
  CHECK_CUDA(cudaMemPoolDestroy(pool));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(source));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
