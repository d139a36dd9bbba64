// Helpers over a range's recorded work (see recorded_program.h).
#include "core/record/recorded_program.h"

namespace rangereplay {

std::size_t RecordedProgram::kernel_count() const {
  std::size_t n = 0;
  for (const auto& op : ops) {
    if (std::holds_alternative<KernelLaunchOp>(op)) ++n;
    if (const auto* g = std::get_if<GraphLaunchOp>(&op); g != nullptr && g->kernels) n += g->kernels->size();
  }
  return n;
}

std::vector<const KernelLaunchOp*> RecordedProgram::kernels() const {
  std::vector<const KernelLaunchOp*> out;
  for (const auto& op : ops) {
    if (const auto* k = std::get_if<KernelLaunchOp>(&op)) out.push_back(k);
    if (const auto* g = std::get_if<GraphLaunchOp>(&op); g != nullptr && g->kernels)
      for (const KernelLaunchOp& k : *g->kernels) out.push_back(&k);
  }
  return out;
}

std::vector<std::uint64_t> RecordedProgram::graph_execs() const {
  std::vector<std::uint64_t> out;
  for (const auto& op : ops)
    if (const auto* g = std::get_if<GraphLaunchOp>(&op)) out.push_back(g->exec);
  return out;
}

std::vector<LaunchUnit> RecordedProgram::launch_units() const {
  std::vector<LaunchUnit> out;
  for (const auto& op : ops) {
    if (std::holds_alternative<KernelLaunchOp>(op)) out.push_back({1, false});
    if (const auto* g = std::get_if<GraphLaunchOp>(&op))
      out.push_back({g->kernels ? static_cast<std::uint32_t>(g->kernels->size()) : 0u, true});
  }
  return out;
}

}  // namespace rangereplay
