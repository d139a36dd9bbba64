// kill_after_ranges: a program that ends without running its exit handlers
// right after its last NVTX range `step`, the ways a kill, a time limit or a
// crash end a process. It prints its results first, so a run with the tool
// can be compared with one without.
//   --ranges N   number of ranges `step` (default 2)
//   --end HOW    sigterm | sigkill | abort | exit (_exit(7)) | wait (prints
//                "ranges done", then sleeps up to 120 s for a signal from
//                outside, e.g. the launcher forwarding a time limit's SIGTERM)
// Expected with rangereplay: every range finished before the end is in the
// report, rebuilt from the tool's journal.
//   range: affine(x, salt);  acc = 3 acc + x
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <unistd.h>

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
    "usage: app_kill_after_ranges [--ranges N] [--end sigterm|sigkill|abort|exit|wait]\n"
    "  --ranges N  number of NVTX ranges `step` (default 2)\n"
    "  --end HOW   how the process ends after them, without its exit handlers (default sigterm)\n";

[[noreturn]] void end_process(const std::string& how) {
  std::fflush(stdout);
  if (how == "sigterm") ::raise(SIGTERM);
  if (how == "sigkill") ::raise(SIGKILL);
  if (how == "abort") std::abort();
  if (how == "exit") ::_exit(7);
  if (how == "wait") {
    std::printf("ranges done\n");
    std::fflush(stdout);
    for (int i = 0; i < 120; ++i) ::sleep(1);
    ::_exit(8);  // no signal came
  }
  usage_error("unknown --end", how.c_str());
}

int run(int ranges, const std::string& how) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa99001e1);
  std::vector<uint32_t> expected_acc = random_words(kAppElements, 0xa99001e2);
  uint32_t* x = upload(expected_x);
  uint32_t* acc = upload(expected_acc);
  for (int range = 0; range < ranges; ++range) {
    const uint32_t salt = 0xf00u + static_cast<uint32_t>(range);
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
  print_checksums_done();
  end_process(how);
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  int ranges = 2;
  std::string how = "sigterm";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      return 0;
    } else if (std::strcmp(argv[i], "--ranges") == 0) {
      ranges = static_cast<int>(parse_count(option_value(argc, argv, i)));
    } else if (std::strcmp(argv[i], "--end") == 0) {
      how = option_value(argc, argv, i);
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  return run(ranges, how);
}
