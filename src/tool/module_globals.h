// The state a range holds outside its snapshot (ActiveRange::globals):
// module-scope __device__ variables of the modules its kernels run in, and
// pinned host buffers its kernels are passed (host_regions.h). Their entry
// bytes are copied at the first launch that can write them, their exit
// bytes when the replay window begins; both are restored like the
// snapshot's regions.
//
// Thread-safety: the range's thread only (the tool's lock); callers are in
// an InToolScope. Errors are the failing driver call's (cuda/cu_status.h).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "core/base/status.h"
#include "core/record/module_registry.h"
#include "tool/active_range.h"

namespace rangereplay::tool {

/// Captures the entry bytes of `module`'s writable variables that `range`
/// does not hold yet, for a launch of `f` (a CUfunction or, from the
/// runtime, a CUkernel; an error when null). Synchronous: the launch that
/// follows may change them.
Status track_module_globals(ActiveRange& range, CUfunction f, const ModuleGlobals& module);

/// Whether `range` already holds the state of the variable or buffer that
/// starts at device address `address`.
bool holds_global_state(const ActiveRange& range, std::uint64_t address);

/// Copies `bytes` bytes at device-readable `address` into a new entry of
/// `range.globals` (cuMemcpyDtoH, synchronous).
Status capture_global_state(ActiveRange& range, std::uint64_t address, std::size_t bytes);

/// Copies every held entry's bytes as they are now into its exit state.
Status capture_globals_exit(ActiveRange& range);

/// Enqueues the copies of every held entry's entry state (or, with
/// `exit_state`, its exit state) back to the device on `stream`.
Status restore_globals(const ActiveRange& range, bool exit_state, CUstream stream);

}  // namespace rangereplay::tool
