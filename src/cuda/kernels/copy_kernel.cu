// The batched copy kernel and its launch (see copy_kernel.h for the design).
#include "cuda/kernels/copy_kernel.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <string>

#include "cuda/kernels/copy_item.cuh"
#include "cuda/kernels/launch_count.h"
#include "cuda/kernels/runtime_status.h"
#include "cuda/kernels/warp_copy.cuh"

namespace rangereplay::kernels {
namespace {

using warp_copy::copy_piece;
using warp_copy::kWarpLanes;

// Warp k of block b copies item b * kCopyBlockWarps + k, then exits: the grid
// covers the stream, so blocks (and with them items) start in stream order as
// earlier ones retire. The early return is warp-uniform (i is per warp).
template <bool kStreaming>
__global__ void __launch_bounds__(kCopyBlockThreads, 4) copy_in_order_kernel(CopyKernelArgs args) {
  const std::uint32_t lane = threadIdx.x % kWarpLanes;
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kCopyBlockWarps + threadIdx.x / kWarpLanes;
  if (i >= args.item_count) return;
  const uint4 raw = __ldg(reinterpret_cast<const uint4*>(args.items) + i);
  const PieceEnds piece = piece_ends(raw, args, args.direction == CopyDirection::kCapture);
  copy_piece<kStreaming>(piece.dst, piece.src, piece.bytes, lane);
}

static_assert(kCopyBlockThreads % kWarpLanes == 0, "copy_in_order_kernel gives each warp one item");

}  // namespace

Status launch_copy_kernel_in_order(const CopyKernelArgs& args, bool streaming_cache_hints, int grid_blocks,
                                   CUstream stream) {
  if (args.item_count == 0) return ok_status();
  RR_ASSIGN_OR_RETURN(const int needed, in_order_grid(args.item_count));
  if (grid_blocks != needed) {
    return invalid_argument("copy_in_order_kernel grid of " + std::to_string(grid_blocks) + " blocks, " +
                            std::to_string(needed) + " needed");
  }
  cudaStream_t cuda_stream = stream;  // the same type as CUstream
  if (streaming_cache_hints) {
    copy_in_order_kernel<true><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  } else {
    copy_in_order_kernel<false><<<grid_blocks, kCopyBlockThreads, 0, cuda_stream>>>(args);
  }
  const cudaError_t error = cudaGetLastError();
  if (error == cudaSuccess) count_tool_kernel_launch();
  return runtime_status(error, "copy_in_order_kernel launch");
}

}  // namespace rangereplay::kernels
