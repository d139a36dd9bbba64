// One copy-kernel work item decoded for a launch: where its bytes go. Shared
// by the library's copy kernel (copy_kernel.cu) and the copy kernels that
// bench/copy_bench times against it, so every kernel reads the work stream
// the same way.
//
// Device code only; include from .cu files. Every function is inline.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/snapshot/work_stream.h"
#include "cuda/kernels/copy_kernel.h"

namespace rangereplay::kernels {

/// Where one item's bytes go: `bytes` bytes from src to dst.
struct PieceEnds {
  unsigned char* dst;
  const unsigned char* src;
  std::uint32_t bytes;
};

/// Decodes one item (a WorkItem as a 16-byte vector) for the launch's
/// direction (`capture`: application -> arena) and arena bases.
__device__ __forceinline__ PieceEnds piece_ends(const uint4& raw, const CopyKernelArgs& args, bool capture) {
  const WorkItem item{raw.x | (static_cast<std::uint64_t>(raw.y) << 32),
                      raw.z | (static_cast<std::uint64_t>(raw.w) << 32)};
  const std::uint32_t slot = item.arena_slot();
  const CUdeviceptr base = slot == 0   ? args.arena_base[0]
                           : slot == 1 ? args.arena_base[1]
                           : slot == 2 ? args.arena_base[2]
                                       : args.arena_base[3];
  auto* app = reinterpret_cast<unsigned char*>(item.app_address());
  auto* arena = reinterpret_cast<unsigned char*>(base + item.arena_offset());
  return PieceEnds{capture ? arena : app, capture ? app : arena, item.bytes()};
}

static_assert(kMaxArenaSlots == 4, "piece_ends selects among exactly four arena bases");

}  // namespace rangereplay::kernels
