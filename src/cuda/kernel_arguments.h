// Kernel arguments through the driver: a function's parameter layout
// (cuFuncGetParamInfo, or cuKernelGetParamInfo for a CUkernel handle) and the
// copy of one launch's arguments into a KernelLaunchOp. Direct launches are
// copied at launch time (src/tool/recording.cpp); graph kernel nodes when the
// graph is inspected (graph_inspector.cpp), from the node's own parameters.
//
//   KernelLaunchOp op;
//   RR_RETURN_IF_ERROR(copy_kernel_arguments(f, p->kernelParams, p->extra, &op));
//
// The caller must hold the tool's re-entrancy guard (the driver calls must
// not be observed as the application's). Thread-safe: the layout cache has
// its own lock.
#pragma once

#include <cuda.h>

#include "core/base/status.h"
#include "core/record/kernel_param_layout.h"
#include "core/record/recorded_program.h"

namespace rangereplay {

/// The parameter layout of `f`, a CUfunction or a CUkernel handle (cast to
/// CUfunction), read once per handle and cached until the next
/// forget_kernel_param_layouts(). A kernel
/// without parameters has an empty layout. Errors: the driver's, through
/// cu_status, when neither call accepts the handle.
StatusOr<KernelParamLayout> kernel_param_layout(CUfunction f);

/// Empties the layout cache: call it when a module or library is unloaded,
/// since a later load may reuse a function handle's address for a function
/// with another layout. Thread-safe.
void forget_kernel_param_layouts();

/// Copies the arguments of a launch of `f` (kernelParams, or the packed
/// `extra` buffer, as cuLaunchKernel takes them) into op's arg_bytes,
/// arg_offsets and arg_sizes. Errors: kernel_param_layout's, and
/// pack_kernel_arguments' (kInvalidArgument).
Status copy_kernel_arguments(CUfunction f, void* const* kernel_params, void* const* extra, KernelLaunchOp* op);

}  // namespace rangereplay
