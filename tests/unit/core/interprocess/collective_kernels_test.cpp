// Collective kernels are told from other kernels by name, mangled or not.
#include "core/interprocess/collective_kernels.h"

#include <gtest/gtest.h>

namespace rangereplay {
namespace {

TEST(CollectiveKernels, nccl_kernels_of_old_and_new_names) {
  EXPECT_EQ(collective_library_of("_Z32ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"),
            "NCCL");
  EXPECT_EQ(collective_library_of("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"), "NCCL");
  EXPECT_EQ(collective_library_of("void ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"), "NCCL");
  EXPECT_EQ(collective_library_of("_Z37ncclKernel_AllReduce_RING_LL_Sum_float12ncclWorkElem"), "NCCL");
  EXPECT_EQ(collective_library_of("ncclDevKernel_Generic"), "NCCL");
  // The symmetric-memory kernels of NCCL 2.27 and 2.28.
  EXPECT_EQ(collective_library_of("ncclSymDevKernel_AllReduce_AGxLL_R_sum_f32(ncclSymDevArgs)"), "NCCL");
  EXPECT_EQ(collective_library_of("_Z38ncclSymkDevKernel_ReduceScatter_LL_sum15ncclSymkDevWork"), "NCCL");
}

TEST(CollectiveKernels, nvshmem_kernels) {
  EXPECT_EQ(collective_library_of("_Z28nvshmemi_barrier_all_kernelv"), "NVSHMEM");
  EXPECT_EQ(collective_library_of("nvshmemi_barrier_all_kernel()"), "NVSHMEM");
}

TEST(CollectiveKernels, other_kernels_are_not_collectives) {
  EXPECT_EQ(collective_library_of("_Z5scalePfi"), std::nullopt);
  EXPECT_EQ(collective_library_of("scale(float*, int)"), std::nullopt);
  // A user kernel whose name merely contains the word, or takes a NCCL type.
  EXPECT_EQ(collective_library_of("_Z20my_ncclDevKernel_fooPf"), std::nullopt);
  EXPECT_EQ(collective_library_of("_Z4pack12ncclWorkElem"), std::nullopt);
  EXPECT_EQ(collective_library_of("void at::native::reduce_kernel<512, 1>(ncclDevKernel_x)"), std::nullopt);
  // Kernels in a namespace: the namespace's name is not the kernel's.
  EXPECT_EQ(collective_library_of("_ZN2at6native13reduce_kernelEv"), std::nullopt);
  EXPECT_EQ(collective_library_of(""), std::nullopt);
  EXPECT_EQ(collective_library_of("_Z999"), std::nullopt);
}

}  // namespace
}  // namespace rangereplay
