// Which GPUs the profiler serves: compute capability and CUPTI's chip list.
#include "core/config/gpu_support.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rangereplay {
namespace {

const std::vector<std::string> kChips = {"GV100", "TU102", "GA100", "GA102", "GH100", "AD102", "GB100", "GB202"};

TEST(IsAmpereOrLaterChip, sorts_cupti_chip_names_by_architecture) {
  for (const char* old : {"GK110", "GM204", "GP100", "GV100", "GV11B", "TU102", "TU117"})
    EXPECT_FALSE(is_ampere_or_later_chip(old)) << old;
  for (const char* chip : {"GA100", "GA10B", "AD102", "GH100", "GB100", "GB10B", "GB202", "GB20B", "GR100"})
    EXPECT_TRUE(is_ampere_or_later_chip(chip)) << chip;
  EXPECT_FALSE(is_ampere_or_later_chip(""));
  EXPECT_FALSE(is_ampere_or_later_chip("G"));
}

TEST(CheckGpuSupported, accepts_known_chips_from_ampere_on) {
  EXPECT_TRUE(check_gpu_supported("NVIDIA H200", 9, 0, "GH100", kChips).ok());
  EXPECT_TRUE(check_gpu_supported("NVIDIA A100-SXM4-80GB", 8, 0, "GA100", kChips).ok());
  EXPECT_TRUE(check_gpu_supported("NVIDIA GeForce RTX 5090", 12, 0, "GB202", kChips).ok());
}

TEST(CheckGpuSupported, refuses_a_gpu_before_ampere_in_one_line) {
  Status s = check_gpu_supported("Tesla V100-SXM2-16GB", 7, 0, "GV100", kChips);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "Tesla V100-SXM2-16GB (GV100, compute capability 7.0) cannot be profiled: rangereplay needs an NVIDIA GPU "
            "from Ampere on (compute capability 8.0 or later); choose another GPU with CUDA_VISIBLE_DEVICES, or use "
            "Nsight Compute on this one");
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
  // Turing is refused by its compute capability even though CUPTI knows it.
  EXPECT_EQ(check_gpu_supported("NVIDIA T4", 7, 5, "TU104", kChips).code(), StatusCode::kFailedPrecondition);
}

TEST(CheckGpuSupported, refuses_a_chip_cupti_does_not_know) {
  Status s = check_gpu_supported("NVIDIA Future", 13, 0, "GX100", kChips);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "NVIDIA Future (GX100, compute capability 13.0) cannot be profiled: the CUPTI library loaded does not know "
            "chip 'GX100', so its metrics cannot be named or scheduled; install the CUDA toolkit's CUPTI that "
            "supports this GPU (or newer) and put it first on LD_LIBRARY_PATH");
  EXPECT_EQ(check_gpu_supported("NVIDIA H200", 9, 0, "GH100", {}).code(), StatusCode::kFailedPrecondition);
}

TEST(CheckGpuSupported, names_the_gpu_generically_when_its_name_is_unknown) {
  Status s = check_gpu_supported("", 7, 0, "", kChips);
  EXPECT_EQ(s.message().rfind("the GPU (compute capability 7.0) cannot be profiled: ", 0), 0u) << s.message();
}

}  // namespace
}  // namespace rangereplay
