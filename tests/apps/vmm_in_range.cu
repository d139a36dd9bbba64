// vmm_in_range: device memory from the virtual-memory API (cuMemCreate +
// cuMemAddressReserve + cuMemMap + cuMemSetAccess), mapped before the ranges
// and written by the kernels inside them. Expected: every range replayed,
// checksums equal to a run without the tool (the inventory tracks the mapped
// spans, so the snapshot covers them).
//
// Layout: a reservation of three chunks, each its own cuMemCreate handle,
// mapped side by side (the inventory coalesces them) with one cuMemSetAccess
// over all three; the third chunk is then unmapped and released before the
// ranges (the inventory trims it: a snapshot touching it would fault).
//   acc = [va, +n words)            in chunk 0
//   x   = [va + chunk - 128 KiB, +n words)   straddles chunks 0 and 1
// Per range:  affine(x, salt);  acc = 3 acc + x
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
    "usage: app_vmm_in_range [--iterations N]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2) writing memory mapped\n"
    "                  with cuMemMap before them\n";

constexpr size_t kBytes = kAppElements * sizeof(uint32_t);
constexpr size_t kStraddle = size_t{128} << 10;  // bytes of x in chunk 0

int run(int iterations) {
  init_device();
  const VmmDevice vmm = vmm_device();
  // A chunk of at least 1 MiB, a multiple of the granularity (2 MiB on most GPUs).
  const size_t chunk = vmm.round_up(size_t{1} << 20);
  CHECK_THAT(kBytes <= chunk - kStraddle);  // acc ends before x begins
  CHECK_THAT(kBytes - kStraddle <= chunk);  // x ends inside chunk 1

  CUdeviceptr va = 0;
  CHECK_CU(cuMemAddressReserve(&va, 3 * chunk, 0, 0, 0));
  CUmemGenericAllocationHandle handles[3] = {};
  for (int i = 0; i < 3; ++i) {
    CHECK_CU(cuMemCreate(&handles[i], chunk, &vmm.prop, 0));
    CHECK_CU(cuMemMap(va + i * chunk, chunk, 0, handles[i], 0));
  }
  CHECK_CU(cuMemSetAccess(va, 3 * chunk, &vmm.read_write, 1));
  // The third chunk goes away before the ranges.
  CHECK_CU(cuMemUnmap(va + 2 * chunk, chunk));
  CHECK_CU(cuMemRelease(handles[2]));

  auto* acc = reinterpret_cast<uint32_t*>(va);
  auto* x = reinterpret_cast<uint32_t*>(va + chunk - kStraddle);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa9900041);
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900042);
  CHECK_CUDA(cudaMemcpy(acc, expected_acc.data(), kBytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(x, expected_x.data(), kBytes, cudaMemcpyHostToDevice));

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x400u + static_cast<uint32_t>(iteration);
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    launch_accumulate(acc, x, kAppElements, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    host_affine(expected_x, salt);
    host_accumulate(expected_acc, expected_x);
  }

  check_and_print(download(x, kAppElements), expected_x, "x");
  check_and_print(download(acc, kAppElements), expected_acc, "acc");
  for (int i = 0; i < 2; ++i) {  // one cuMemUnmap per cuMemMap
    CHECK_CU(cuMemUnmap(va + i * chunk, chunk));
    CHECK_CU(cuMemRelease(handles[i]));
  }
  CHECK_CU(cuMemAddressFree(va, 3 * chunk));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 2, kUsage));
}
