// Module-scope __device__ variables in a range. The
// allocation inventory cannot see them, so at the first launch of a kernel
// whose module has writable variables (known from the module's cubin, see
// core/record/cubin_symbols.h), their bytes are copied: no kernel of that module has
// run in the range yet, so these are the range-entry values. The replay window
// restores them before every replay and hands back their exit values at the end.
// A module with variables loaded inside the range (lazily, inside the launch,
// after this capture point) is not covered: that load declines the range
// (module_load_in_range, see core/record/module_load_decision.h).
#include <cupti.h>

#include "cuda/cu_status.h"
#include "tool/module_globals.h"

namespace rangereplay::tool {

namespace {

// Device address and size of variable `name` of the module (or library) that
// defines `f`, which may be a CUfunction or, from the runtime, a CUkernel.
// {0, 0} when the loaded module has no such variable (CUDA_ERROR_NOT_FOUND):
// the symbol tables read list every cubin's symbols, and some have no device
// storage in the image that was loaded (seen on the H200 with PyTorch's
// CUB kernels: libcu++ `cpo` objects); no kernel can write it, so there is
// nothing to snapshot.
StatusOr<std::pair<CUdeviceptr, std::size_t>> global_address(CUfunction f, const std::string& name) {
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  CUmodule module = nullptr;
  if (cuFuncGetModule(&module, f) == CUDA_SUCCESS) {
    const CUresult r = cuModuleGetGlobal(&address, &bytes, module, name.c_str());
    if (r == CUDA_SUCCESS) return std::make_pair(address, bytes);
    if (r == CUDA_ERROR_NOT_FOUND) return std::make_pair(CUdeviceptr{0}, std::size_t{0});
  }
  CUlibrary library = nullptr;
  RR_CU(cuKernelGetLibrary(&library, reinterpret_cast<CUkernel>(f)));
  const CUresult r = cuLibraryGetGlobal(&address, &bytes, library, name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND) return std::make_pair(CUdeviceptr{0}, std::size_t{0});
  RR_CU(r);
  return std::make_pair(address, bytes);
}

}  // namespace

Status track_module_globals(ActiveRange& range, CUfunction f, const ModuleGlobals& module) {
  if (f == nullptr) return internal_error("no function handle in the launch");
  for (const CubinGlobal& g : module.globals) {
    RR_ASSIGN_OR_RETURN(auto where, global_address(f, g.name));
    if (where.first == 0 || where.second == 0) continue;  // not in the loaded module
    if (holds_global_state(range, where.first)) continue;
    // Synchronous: the launch that follows may change the variable.
    RR_RETURN_IF_ERROR(capture_global_state(range, where.first, where.second));
  }
  return ok_status();
}

bool holds_global_state(const ActiveRange& range, std::uint64_t address) {
  for (const auto& g : range.globals) {
    if (g.address == address) return true;
  }
  return false;
}

Status capture_global_state(ActiveRange& range, std::uint64_t address, std::size_t bytes) {
  ActiveRange::GlobalState state;
  state.address = address;
  state.entry.resize(bytes);
  RR_CU(cuMemcpyDtoH(state.entry.data(), address, bytes));
  range.globals.push_back(std::move(state));
  return ok_status();
}

Status capture_globals_exit(ActiveRange& range) {
  for (auto& g : range.globals) {
    g.exit.resize(g.entry.size());
    RR_CU(cuMemcpyDtoH(g.exit.data(), g.address, g.exit.size()));
  }
  return ok_status();
}

Status restore_globals(const ActiveRange& range, bool exit_state, CUstream stream) {
  for (const auto& g : range.globals) {
    const auto& bytes = exit_state ? g.exit : g.entry;
    if (bytes.empty()) continue;
    RR_CU(cuMemcpyHtoDAsync(g.address, bytes.data(), bytes.size(), stream));
  }
  return ok_status();
}

}  // namespace rangereplay::tool
