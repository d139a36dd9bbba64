// Packing one launch's arguments (see kernel_param_layout.h).
#include "core/record/kernel_param_layout.h"

#include <cstddef>
#include <cstring>

namespace rangereplay {

Status pack_kernel_arguments(const KernelParamLayout& layout, void* const* kernel_params, void* const* extra,
                             KernelLaunchOp* op) {
  op->arg_offsets = layout.offsets;
  op->arg_sizes = layout.sizes;
  op->arg_bytes.assign(layout.total, 0);
  if (kernel_params != nullptr) {
    for (std::size_t i = 0; i < layout.offsets.size(); ++i)
      std::memcpy(op->arg_bytes.data() + layout.offsets[i], kernel_params[i], layout.sizes[i]);
    return ok_status();
  }
  if (extra != nullptr) {
    const void* buffer = nullptr;
    std::size_t size = 0;
    for (std::size_t i = 0; reinterpret_cast<std::uintptr_t>(extra[i]) != kLaunchParamEnd; i += 2) {
      const auto key = reinterpret_cast<std::uintptr_t>(extra[i]);
      if (key == kLaunchParamBufferPointer) buffer = extra[i + 1];
      if (key == kLaunchParamBufferSize) size = *static_cast<const std::size_t*>(extra[i + 1]);
    }
    if (buffer == nullptr) return invalid_argument("launch 'extra' without CU_LAUNCH_PARAM_BUFFER_POINTER");
    const auto* bytes = static_cast<const std::uint8_t*>(buffer);
    op->arg_bytes.assign(bytes, bytes + size);
    if (op->arg_bytes.size() < layout.total) op->arg_bytes.resize(layout.total, 0);
    return ok_status();
  }
  if (!layout.offsets.empty()) return invalid_argument("kernel launch without arguments for a kernel that takes some");
  return ok_status();
}

}  // namespace rangereplay
