// The shape of a kernel launch (grid, block, dynamic shared memory) copied
// from a driver struct that names it the way the driver API does
// (gridDimX..Z, blockDimX..Z, sharedMemBytes: cuLaunchKernel's and
// cuLaunchCooperativeKernel's parameters, CUlaunchConfig,
// CUDA_KERNEL_NODE_PARAMS) into one with grid[3], block[3] and
// shared_mem_bytes (KernelLaunchOp, the tool's decoded launch parameters).
//
// Thread-safety: a pure function.
#pragma once

namespace rangereplay::cu {

template <class Driver, class Shape>
void copy_launch_shape(const Driver& from, Shape& to) {
  to.grid[0] = from.gridDimX;
  to.grid[1] = from.gridDimY;
  to.grid[2] = from.gridDimZ;
  to.block[0] = from.blockDimX;
  to.block[1] = from.blockDimY;
  to.block[2] = from.blockDimZ;
  to.shared_mem_bytes = from.sharedMemBytes;
}

}  // namespace rangereplay::cu
