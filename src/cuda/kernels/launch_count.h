// The tool's own kernel launches, counted: each launch function of this
// folder (copy, digest, chunk copy, L2 flush) adds one for every kernel it
// enqueues. Under CUPTI's automatic per-kernel ranges each of those kernels
// is a counter range too: a replay window of several deferred ranges reads
// the count around each member's restore and flush, so that their counter
// ranges can be told from the replayed kernels' (tool/logic/replay_window.h).
//
// Thread-safety: any thread (a relaxed atomic counter; the window reads it
// on the thread that launches, with the tool's lock held).
#pragma once

#include <cstdint>

namespace rangereplay::kernels {

/// Kernels the launch functions of cuda/kernels have enqueued in this
/// process so far.
std::uint64_t tool_kernel_launches();

/// Adds one to tool_kernel_launches(): called by each launch function once
/// its kernel is enqueued.
void count_tool_kernel_launch();

}  // namespace rangereplay::kernels
