// Helpers over a range's recorded work (see recorded_program.h).
#include "core/recorded_program.h"

namespace rangereplay {

std::size_t RecordedProgram::kernel_count() const {
  std::size_t n = 0;
  for (const auto& op : ops) n += std::holds_alternative<KernelLaunchOp>(op) ? 1 : 0;
  return n;
}

std::vector<const KernelLaunchOp*> RecordedProgram::kernels() const {
  std::vector<const KernelLaunchOp*> out;
  for (const auto& op : ops)
    if (const auto* k = std::get_if<KernelLaunchOp>(&op)) out.push_back(k);
  return out;
}

}  // namespace rangereplay
