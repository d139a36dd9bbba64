// What the tool knows about the application thread that calls it: whether
// it is running the tool's own CUDA work (callbacks return at once then, so
// replays are never recorded again), its small thread number and the kernel
// launch it is making. Defined in profiler_tool.cpp, where the callbacks
// set them.
//
// Thread-safety: each value is the calling thread's own (thread_local);
// tool_thread_number's counter is atomic.
#pragma once

#include <cstdint>

#include "core/base/environment.h"

namespace rangereplay::tool {

/// RANGEREPLAY_DEBUG is set: the tool traces where its time goes on stderr.
inline bool debug_enabled() { return environment::debug(); }

/// A small number for the calling application thread (1, 2, ... in the order
/// threads first reach the tool): range selection, capture modes, debug lines.
std::uint64_t tool_thread_number();

/// True while the current thread runs the tool's own CUDA work.
bool in_tool();

/// The process-wide number of the kernel launch the current thread is
/// making (KernelLaunchOp::launch_index); -1 before its first launch.
std::int64_t current_launch_index();

/// Marks the current thread as running the tool's own work for its
/// lifetime (nests: the previous mark comes back at destruction).
class InToolScope {
 public:
  InToolScope();
  ~InToolScope();
  InToolScope(const InToolScope&) = delete;
  InToolScope& operator=(const InToolScope&) = delete;

 private:
  bool previous_;
};

}  // namespace rangereplay::tool
