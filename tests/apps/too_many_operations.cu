// too_many_operations: a range of many small kernel launches, by default one
// more than the recorder keeps (kMaxRecordedOperations = 65536 in
// src/core/base/decline_reason.h). Expected decline: too_many_operations. Each
// launch applies affine with its own salt to a small buffer, so any lost,
// repeated or reordered launch changes the result:
//   range: for k in [0, launches): affine(x, salt + k)
// With --launches 4096 and a large metric list (--set full) the same program
// exercises the counter-image cap instead (counters_unavailable; see
// tests/e2e/declines.py).
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_too_many_operations [--iterations N] [--launches L]\n"
    "  --iterations N  number of NVTX ranges `step` (default 2)\n"
    "  --launches L    kernel launches per range (default 65537, one past the recorder's cap)\n";

// A small odd word count: the host reference stays cheap at 65537 launches.
constexpr size_t kWords = 257;
constexpr uint64_t kDefaultLaunches = 65537;

struct Options {
  int iterations = 2;
  uint64_t launches = kDefaultLaunches;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--iterations") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n > 1000) usage_error("--iterations at most 1000", argv[i]);
      options.iterations = static_cast<int>(n);
    } else if (std::strcmp(argv[i], "--launches") == 0) {
      options.launches = parse_count(option_value(argc, argv, i));
      if (options.launches > 10000000) usage_error("--launches at most 10000000", argv[i]);
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  return options;
}

int run(const Options& options) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kWords, 0xa9900091);
  uint32_t* x = upload(expected_x);
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    const uint32_t salt = 0xa00u + static_cast<uint32_t>(iteration) * 0x10000u;
    nvtxRangePushA("step");
    for (uint64_t k = 0; k < options.launches; ++k)
      launch_affine(x, kWords, salt + static_cast<uint32_t>(k), /*stream=*/0);
    nvtxRangePop();
    CHECK_CUDA(cudaDeviceSynchronize());
    for (uint64_t k = 0; k < options.launches; ++k) host_affine(expected_x, salt + static_cast<uint32_t>(k));
  }
  std::printf("launches per range %llu\n", static_cast<unsigned long long>(options.launches));
  check_and_print(download(x, kWords), expected_x, "x");
  CHECK_CUDA(cudaFree(x));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_options(argc, argv));
}
