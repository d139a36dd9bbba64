// ModuleRegistry: what the tool knows about loaded modules, filled from the
// driver's module callbacks without the tool's main lock.
//
// The driver makes its module-loaded and module-unload callbacks (CUPTI's
// resource domain) while holding its own locks: a module loaded lazily inside
// cuOccupancyMaxActiveBlocksPerMultiprocessor, say, holds a lock that every
// CUPTI set-up call and many driver calls of other threads wait for. A
// callback that waited there for the tool's lock, held by a thread making
// such a call, deadlocked the application (seen on the H200 with OpenMP
// threads calling cuBLAS). So these callbacks take only this registry's leaf
// lock, which is never held across a call outside this class, and leave what
// concerns the range being recorded as events for its owner to apply.
//
//   registry.open_range_window();                             // range begin
//   registry.loaded(symbols);                                 // resource callback
//   auto globals = registry.globals_of("_Z6kernelPi");        // a launch in the range
//   for (const ModuleEvent& e : registry.close_range_window()) ...   // range end
//
// Thread-safety: every member function may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"
#include "core/record/cubin_symbols.h"

namespace rangereplay {

/// A loaded module's writable __device__ variables.
struct ModuleGlobals {
  std::vector<CubinGlobal> globals;  // writable __device__ variables
  std::string names;                 // for decline details (global_names)
};

/// A module load or unload while a range was open.
struct ModuleEvent {
  enum class Kind : std::uint8_t {
    kLoaded,        // a module without variables: harmless, counted in a note
    kLoadDeclines,  // module_load_in_range, `detail` says why
    kUnloaded,      // module_unload_in_range
  };
  Kind kind = Kind::kLoaded;
  std::string detail;
};

class ModuleRegistry {
 public:
  /// A range's window opens (its begin) and closes (its end): the loads and
  /// unloads in between are its events, handed over once by
  /// close_range_window (in order); events of earlier windows are dropped.
  void open_range_window();
  std::vector<ModuleEvent> close_range_window();
  /// A module was loaded; `symbols` as read_cubin_symbols read its cubin (an
  /// error: none, or unreadable). Its kernels with writable variables are
  /// noted; while a range's window is open it gets a kLoaded or kLoadDeclines
  /// event (module_load_decline).
  void loaded(const StatusOr<CubinSymbols>& symbols);
  /// A module is being unloaded; while a window is open it gets kUnloaded.
  void unloading();
  /// The variables of the module kernel `mangled_name` is in, or null when
  /// its module has none (or was never seen).
  std::shared_ptr<const ModuleGlobals> globals_of(const std::string& mangled_name) const;
  /// Module unloads so far in the process (in ranges or not): a replay
  /// window compares it before each pass, since an unload no longer waits
  /// for the window to end.
  std::uint64_t unloads() const { return unloads_.load(std::memory_order_acquire); }

 private:
  mutable std::mutex mutex_;
  std::atomic<std::uint64_t> unloads_{0};
  std::unordered_map<std::string, std::shared_ptr<const ModuleGlobals>> kernels_with_globals_;
  bool window_open_ = false;
  std::vector<ModuleEvent> events_;  // of the open window
};

}  // namespace rangereplay
