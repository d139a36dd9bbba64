// vmm_map_in_range: a range that maps device memory with the virtual-memory
// API (cuMemCreate + cuMemAddressReserve outside it, cuMemMap +
// cuMemSetAccess inside it) between its kernels. Expected decline:
// allocation_in_range (cuMemMap inside the range). The range still runs once,
// so the program's own result must stay right:
//   affine(x, salt);  map tmp;  tmp = x;  affine(tmp, salt + 1)
// `tmp` is unmapped after the range (outside it).
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"
#include "vmm_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_vmm_map_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2), each calling cuMemMap\n";

constexpr size_t kBytes = kAppElements * sizeof(uint32_t);

int run(int iterations) {
  init_device();
  const VmmDevice vmm = vmm_device();
  const size_t size = vmm.round_up(kBytes);

  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900051);
  std::vector<uint32_t> expected_tmp;
  std::vector<uint32_t> result_tmp;
  uint32_t* x = upload(expected_x);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x500u + static_cast<uint32_t>(iteration);
    // Handle and address range: no accessible memory yet, nothing to decline.
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr va = 0;
    CHECK_CU(cuMemCreate(&handle, size, &vmm.prop, 0));
    CHECK_CU(cuMemAddressReserve(&va, size, 0, 0, 0));
    auto* tmp = reinterpret_cast<uint32_t*>(va);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    CHECK_CU(cuMemMap(va, size, 0, handle, 0));
    CHECK_CU(cuMemSetAccess(va, size, &vmm.read_write, 1));
    launch_copy(tmp, x, kAppElements, /*stream=*/0);
    launch_affine(tmp, kAppElements, salt + 1, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    result_tmp = download(tmp, kAppElements);
    CHECK_CU(cuMemUnmap(va, size));
    CHECK_CU(cuMemRelease(handle));
    CHECK_CU(cuMemAddressFree(va, size));
    host_affine(expected_x, salt);
    expected_tmp = expected_x;
    host_affine(expected_tmp, salt + 1);
  }
  check_and_print(download(x, kAppElements), expected_x, "x");
  check_and_print(result_tmp, expected_tmp, "tmp");
  CHECK_CUDA(cudaFree(x));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
