// Kernels of collective-communication libraries. A collective kernel (an
// NCCL all-reduce, an NVSHMEM barrier) exchanges data with its peers in other
// processes or on other GPUs while it runs; replayed in one process alone, it
// waits for peers that never join it (a hang) or reads stale peer data. A
// range that launches one declines collective_in_range, before any replay.
//
// Recognized by the kernel's name, mangled or not: NCCL's device kernels are
// named ncclDevKernel_<Op>_... (NCCL 2.19 and later) or ncclKernel_<Op>_...
// (earlier), NVSHMEM's host-launched collectives and barriers nvshmemi_...
// (for example nvshmemi_barrier_all_kernel). User kernels that call NVSHMEM
// device functions themselves are not recognized.
//
// Thread-safety: pure function.
#pragma once

#include <optional>
#include <string_view>

namespace rangereplay {

/// The library ("NCCL" or "NVSHMEM") whose collective kernel `name` is (as
/// CUPTI reports a kernel's symbol, e.g.
/// "_Z32ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
/// or a demangled name), or nullopt for any other kernel.
std::optional<std::string_view> collective_library_of(std::string_view name);

}  // namespace rangereplay
