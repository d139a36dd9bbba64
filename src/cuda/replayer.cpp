// Re-submission of recorded work (see replayer.h).
#include "cuda/replayer.h"

#include <cstring>

#include "cuda/cu_status.h"

namespace rangereplay {

StatusOr<Replayer> Replayer::create(const RecordedProgram& program) {
  Replayer r(program);
  r.params_.resize(program.ops.size());
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const auto* k = std::get_if<KernelLaunchOp>(&program.ops[i]);
    if (k == nullptr) continue;
    auto& ptrs = r.params_[i];
    ptrs.reserve(k->arg_offsets.size());
    for (std::uint32_t off : k->arg_offsets) ptrs.push_back(const_cast<std::uint8_t*>(k->arg_bytes.data()) + off);
  }
  return r;
}

namespace {

// One recorded kernel launch on `stream`, with `args` (pointers into its
// argument bytes; empty: no arguments).
Status launch(const KernelLaunchOp& k, const std::vector<void*>& args, CUstream stream) {
  void** params = args.empty() ? nullptr : const_cast<void**>(args.data());
  CUfunction f = reinterpret_cast<CUfunction>(k.function);
  switch (k.api) {
    case LaunchApi::kLaunchKernel:
      RR_CU(cuLaunchKernel(f, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.shared_mem_bytes,
                           stream, params, nullptr));
      break;
    case LaunchApi::kCooperative:
      RR_CU(cuLaunchCooperativeKernel(f, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2],
                                      k.shared_mem_bytes, stream, params));
      break;
    case LaunchApi::kLaunchKernelEx: {
      CUlaunchConfig config{};
      config.gridDimX = k.grid[0];
      config.gridDimY = k.grid[1];
      config.gridDimZ = k.grid[2];
      config.blockDimX = k.block[0];
      config.blockDimY = k.block[1];
      config.blockDimZ = k.block[2];
      config.sharedMemBytes = k.shared_mem_bytes;
      config.hStream = stream;
      config.attrs = k.attribute_count
                         ? reinterpret_cast<CUlaunchAttribute*>(const_cast<std::uint8_t*>(k.attributes.data()))
                         : nullptr;
      config.numAttrs = k.attribute_count;
      RR_CU(cuLaunchKernelEx(&config, f, params, nullptr));
      break;
    }
  }
  return ok_status();
}

}  // namespace

Status Replayer::submit(CUstream stream, KernelBrackets* brackets) const {
  std::size_t kernel = 0;
  for (std::size_t i = 0; i < program_->ops.size(); ++i) {
    const RecordedOp& op = program_->ops[i];
    if (const auto* k = std::get_if<KernelLaunchOp>(&op)) {
      if (brackets != nullptr) RR_RETURN_IF_ERROR(brackets->open(kernel));
      Status launched = launch(*k, params_[i], stream);
      // A bracket opened is closed, even after a failed launch.
      if (brackets != nullptr) {
        Status closed = brackets->close();
        if (launched.ok()) launched = std::move(closed);
      }
      RR_RETURN_IF_ERROR(launched);
      ++kernel;
    } else if (const auto* m = std::get_if<MemsetOp>(&op)) {
      switch (m->element_bytes) {
        case 1: RR_CU(cuMemsetD8Async(m->dst, static_cast<unsigned char>(m->value), m->count, stream)); break;
        case 2: RR_CU(cuMemsetD16Async(m->dst, static_cast<unsigned short>(m->value), m->count, stream)); break;
        default: RR_CU(cuMemsetD32Async(m->dst, m->value, m->count, stream)); break;
      }
    } else if (const auto* c = std::get_if<CopyDeviceOp>(&op)) {
      RR_CU(cuMemcpyDtoDAsync(c->dst, c->src, c->bytes, stream));
    } else if (const auto* h = std::get_if<CopyFromHostOp>(&op)) {
      // Pageable source: the driver stages it before returning, so the
      // recorded bytes may be reused immediately.
      RR_CU(cuMemcpyHtoDAsync(h->dst, h->data.data(), h->data.size(), stream));
    } else if (const auto* g = std::get_if<GraphLaunchOp>(&op)) {
      // The exec is the application's, alive until the window ends (the
      // recorder declines a range that destroys or updates it).
      RR_CU(cuGraphLaunch(reinterpret_cast<CUgraphExec>(g->exec), stream));
    }
  }
  return ok_status();
}

}  // namespace rangereplay
