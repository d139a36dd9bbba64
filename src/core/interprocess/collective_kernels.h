// Kernels of collective-communication libraries. A collective kernel (an
// NCCL all-reduce, an NVSHMEM barrier) exchanges data with its peers in other
// processes or on other GPUs while it runs; replayed in one process alone, it
// waits for peers that never join it (a hang) or reads stale peer data. A
// range that launches one declines collective_in_range, before any replay.
//
// Recognized by the kernel's name, mangled or not: NCCL's device kernels are
// named nccl<...>Kernel_<Op>_...: ncclDevKernel_ (NCCL 2.19 and later),
// ncclKernel_ (earlier), ncclSymDevKernel_ and ncclSymkDevKernel_ (the
// symmetric-memory kernels of 2.27 and 2.28); NVSHMEM's host-launched
// collectives and barriers nvshmemi_..., nvshmemx_... or nvshmem_... (for
// example nvshmemi_barrier_all_kernel). Only a kernel's own name at global
// scope is read (a mangled name's first component): user kernels that call
// NVSHMEM device functions, and kernels in a namespace, are not recognized.
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
