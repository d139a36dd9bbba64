// KernelParamLayout: where each parameter of a kernel sits in its packed
// argument buffer, and the packing of one launch's arguments into
// KernelLaunchOp::arg_bytes. Shared by direct launches (recorded at launch
// time, src/tool/recording.cpp) and graph kernel nodes (read when the graph
// is inspected, src/cuda/graph_inspector.cpp), so both hand the pointer scan
// (core/record/pointer_scan.h) the same bytes.
//
//   KernelParamLayout layout = ...;            // cuda/kernel_arguments.h reads it
//   RR_RETURN_IF_ERROR(pack_kernel_arguments(layout, kernel_params, extra, &op));
//
// No CUDA headers: the `extra` markers are cuda.h's CU_LAUNCH_PARAM_* values
// (checked against cuda.h in src/cuda/kernel_arguments.cpp). Pure and
// thread-safe; it reads only the caller's memory.
#pragma once

#include <cstdint>
#include <vector>

#include "core/base/status.h"
#include "core/record/recorded_program.h"

namespace rangereplay {

/// The layout cuFuncGetParamInfo / cuKernelGetParamInfo report, one entry per
/// parameter in declaration order.
struct KernelParamLayout {
  std::vector<std::uint32_t> offsets;  // byte offset of each parameter in the packed buffer
  std::vector<std::uint32_t> sizes;    // byte size of each parameter
  std::uint32_t total = 0;             // max(offset + size) over the parameters; 0 without any
};

/// cuda.h's CU_LAUNCH_PARAM_END_AS_INT, CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT
/// and CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT.
inline constexpr std::uintptr_t kLaunchParamEnd = 0x00;
inline constexpr std::uintptr_t kLaunchParamBufferPointer = 0x01;
inline constexpr std::uintptr_t kLaunchParamBufferSize = 0x02;

/// Fills op->arg_offsets and op->arg_sizes from `layout` and op->arg_bytes
/// (layout.total bytes, zero between parameters) from the launch's arguments,
/// as cuLaunchKernel takes them:
/// - `kernel_params` non-null: kernel_params[i] points to parameter i's
///   layout.sizes[i] bytes (the array holds layout.offsets.size() entries);
/// - else `extra` non-null: {key, value} pairs ending in kLaunchParamEnd; the
///   buffer at kLaunchParamBufferPointer is copied whole, its size read from
///   the size_t that kLaunchParamBufferSize's value points to (no size entry:
///   0 bytes), then zero-padded to layout.total;
/// - neither: no bytes, which is right only for a kernel without parameters.
/// Errors (op's argument fields are then unspecified): kInvalidArgument for
/// an `extra` list without a buffer pointer, or for no arguments given to a
/// kernel that takes some.
Status pack_kernel_arguments(const KernelParamLayout& layout, void* const* kernel_params, void* const* extra,
                             KernelLaunchOp* op);

}  // namespace rangereplay
