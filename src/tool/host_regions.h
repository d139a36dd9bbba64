// Pinned host memory and other devices' memory passed to a range's kernels
// (host_regions.cpp says why they stay out of the snapshot).
//
// Thread-safety: the range's thread only (the tool's lock); callers are in
// an InToolScope.
#pragma once

#include <cstddef>

#include "tool/active_range.h"

namespace rangereplay::tool {

/// Scans the arguments of the kernels `range` recorded from op index
/// `first_new` on: direct launches, and the kernel nodes of graph launches
/// whose arguments are known. A pointer into another device's memory
/// declines multiple_devices; a pinned host buffer is captured into
/// range.globals at its first use. `per_thread_stream`: the launch was a
/// _ptsz variant (stream 0 is the per-thread default stream). A capture
/// that fails declines the range: snapshot_does_not_fit for a buffer over
/// the size the tool copies, replay_failed otherwise. `capture_open`: a
/// stream capture is open or beginning in the process; copying a pinned
/// buffer (a stream synchronize and a synchronous copy) would invalidate
/// it, so a buffer to capture declines the range stream_capture_active
/// instead, before any driver call.
void scan_kernel_pointers(ActiveRange& range, std::size_t first_new, bool per_thread_stream, bool capture_open);

}  // namespace rangereplay::tool
