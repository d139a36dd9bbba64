// mapped_host: pinned host memory that kernels write through its device
// mapping, allocated before the ranges in the three ways applications do:
//   h = cudaHostAlloc(cudaHostAllocMapped)   (cuMemHostAlloc with DEVICEMAP)
//   p = cudaMallocHost                       (pinned; mapped at the host address under unified addressing)
//   r = malloc'd pages + cudaHostRegister(cudaHostRegisterMapped)  (cuMemHostRegister with DEVICEMAP)
// Expected: every range replayed, checksums equal to a run without the tool
// (the inventory tracks the three buffers; each kernel is passed a pointer
// into them, so the tool captures them at that launch and restores them
// before each replay: src/tool/host_regions.cpp). Per range:
//   affine(h, salt);  affine(p, salt + 1);  affine(r, salt + 2);  acc = 3 acc + h
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_mapped_host [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2) whose kernels write\n"
    "                  device-mapped pinned host memory\n";

constexpr size_t kBytes = kAppElements * sizeof(uint32_t);
constexpr size_t kPage = 4096;

// Copies `words` into the host buffer `host`.
void fill(uint32_t* host, const std::vector<uint32_t>& words) { std::memcpy(host, words.data(), kBytes); }

std::vector<uint32_t> read(const uint32_t* host) { return std::vector<uint32_t>(host, host + kAppElements); }

int run(int iterations) {
  init_device();
  int can_map = 0, unified = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, 0));
  CHECK_THAT(can_map != 0);
  CHECK_THAT(unified != 0);  // cudaMallocHost memory is device-accessible at its host address

  uint32_t* h = nullptr;
  CHECK_CUDA(cudaHostAlloc(&h, kBytes, cudaHostAllocMapped));
  uint32_t* h_dev = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(&h_dev, h, 0));

  uint32_t* p = nullptr;
  CHECK_CUDA(cudaMallocHost(&p, kBytes));

  const size_t registered_bytes = (kBytes + kPage - 1) / kPage * kPage;
  auto* r = static_cast<uint32_t*>(std::aligned_alloc(kPage, registered_bytes));
  CHECK_THAT(r != nullptr);
  CHECK_CUDA(cudaHostRegister(r, kBytes, cudaHostRegisterMapped));
  uint32_t* r_dev = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(&r_dev, r, 0));

  std::vector<uint32_t> expected_h = random_words(kAppElements, 0xa9900061);
  std::vector<uint32_t> expected_p = random_words(kAppElements, 0xa9900062);
  std::vector<uint32_t> expected_r = random_words(kAppElements, 0xa9900063);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa9900064);
  fill(h, expected_h);
  fill(p, expected_p);
  fill(r, expected_r);
  uint32_t* acc = upload(expected_acc);

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x600u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    launch_affine(h_dev, kAppElements, salt, /*stream=*/0);
    launch_affine(p, kAppElements, salt + 1, /*stream=*/0);
    launch_affine(r_dev, kAppElements, salt + 2, /*stream=*/0);
    launch_accumulate(acc, h_dev, kAppElements, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_affine(expected_h, salt);
    host_affine(expected_p, salt + 1);
    host_affine(expected_r, salt + 2);
    host_accumulate(expected_acc, expected_h);
  }

  // The host reads its own memory: no copy back.
  check_and_print(read(h), expected_h, "h");
  check_and_print(read(p), expected_p, "p");
  check_and_print(read(r), expected_r, "r");
  check_and_print(download(acc, kAppElements), expected_acc, "acc");
  CHECK_CUDA(cudaFree(acc));
  CHECK_CUDA(cudaHostUnregister(r));
  std::free(r);
  CHECK_CUDA(cudaFreeHost(p));
  CHECK_CUDA(cudaFreeHost(h));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
