// rank_alloc: one rank of a two-rank job (RANK set, as torchrun sets it) whose
// ranges are the same on every rank except one: `iterations` NVTX ranges
// `step`, each applying affine(x, salt) twice; in the rank given by
// --alloc-rank, the range given by --alloc-step also calls cudaMallocManaged
// between its kernels (allocation_in_range there: managed memory; device
// memory from cudaMalloc would be kept and replayed; under --collectives replay
// the other ranks take peer_declined for that range alone). `tmp` is freed
// after the range. Prints the checksums of x.
//   app_rank_alloc [--iterations N] [--alloc-rank R] [--alloc-step S]
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_rank_alloc [--iterations N] [--alloc-rank R] [--alloc-step S]\n"
    "  --iterations N  NVTX ranges `step` (default 3)\n"
    "  --alloc-rank R  the rank (RANK) whose range S allocates (default 1; -1: none)\n"
    "  --alloc-step S  that range's number, from 0 (default 1)\n";

int run(int iterations, int alloc_rank, int alloc_step) {
  const char* rank_text = std::getenv("RANK");
  const int rank = rank_text != nullptr ? std::atoi(rank_text) : 0;
  init_device();
  std::vector<uint32_t> expected = random_words(kAppElements, 0x5a11c0de);
  uint32_t* x = upload(expected);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint32_t salt = 0x300u + static_cast<uint32_t>(iteration);
    uint32_t* tmp = nullptr;
    nvtxRangePushA("step");
    launch_affine(x, kAppElements, salt, /*stream=*/0);
    if (rank == alloc_rank && iteration == alloc_step) CHECK_CUDA(cudaMallocManaged(&tmp, 4096));
    launch_affine(x, kAppElements, salt + 1, /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    if (tmp != nullptr) CHECK_CUDA(cudaFree(tmp));
    host_affine(expected, salt);
    host_affine(expected, salt + 1);
  }
  check_and_print(download(x, kAppElements), expected, "x");
  CHECK_CUDA(cudaFree(x));
  print_checksums_done();
  return 0;
}

int number_after(int& i, int argc, char** argv) {
  if (i + 1 >= argc) {
    std::fputs(kUsage, stderr);
    std::exit(2);
  }
  return std::atoi(argv[++i]);
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  int iterations = 3;
  int alloc_rank = 1;
  int alloc_step = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--iterations") {
      iterations = number_after(i, argc, argv);
    } else if (arg == "--alloc-rank") {
      alloc_rank = number_after(i, argc, argv);
    } else if (arg == "--alloc-step") {
      alloc_step = number_after(i, argc, argv);
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  return run(iterations, alloc_rank, alloc_step);
}
