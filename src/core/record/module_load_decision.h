// Whether a module loaded inside a profiled range makes the range unsound to
// replay. Under lazy loading (CUDA's default since 12.2) a kernel's module is
// loaded at its first launch, often inside the first range. That load alone is
// harmless: replays relaunch only kernels the range already launched (loaded
// by then), and a module's code and constant banks are no application region.
// A module with writable module-scope variables (__device__ globals) is not:
// they get their initial values at load, the range may change them, and their
// entry state was never captured (the load fires inside cuLaunchKernel, after
// the launch's API-enter callback that captures module variables). A cubin
// that is absent or unreadable tells nothing, so it is treated the same way.
//
//   if (auto why = module_load_decline(read_cubin_symbols(bytes))) decline(kModuleLoadInRange, *why);
//
// Thread-safety: pure functions; no shared state.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "core/base/status.h"
#include "core/record/cubin_symbols.h"

namespace rangereplay {

/// Names of `globals`, comma-separated, in order; once the text passes 80
/// characters the rest are left out and ", ..." ends it. Empty for none.
std::string global_names(std::span<const CubinGlobal> globals);

/// The module_load_in_range decline detail for a module loaded inside a
/// profiled range, from its cubin as read_cubin_symbols read it (an error
/// status: no cubin, or an unreadable one), or std::nullopt when the load
/// leaves the range replayable (the module has no writable variables).
std::optional<std::string> module_load_decline(const StatusOr<CubinSymbols>& symbols);

}  // namespace rangereplay
