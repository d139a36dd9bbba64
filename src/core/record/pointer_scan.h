// Which tracked memory a kernel's argument bytes point into.
//
// Device-mapped pinned host memory is kept out of the entry snapshot (host
// threads, e.g. a data loader's pin-memory thread, write such buffers while a
// replay window runs, and most of them are only copy sources or targets);
// the tool captures one only when a kernel launched in the range is passed a
// pointer into it (src/tool/host_regions.cpp). This finds those pointers.
//
// Every 8-byte-aligned 64-bit word of the packed argument buffer is taken as
// a candidate address (pointer parameters, and pointers inside by-value
// structs, are 8-byte aligned in the CUDA parameter buffer). A word is a hit
// when it lies in [start, end) of one of `ranges`. Pointers reached only
// indirectly (stored in device memory) are not seen: a documented limitation
// (docs/limitations.md). Pure and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/base/memory_range.h"

namespace rangereplay {

/// Indices into `ranges` (sorted by start, non-overlapping) of the ranges that
/// some 8-byte-aligned word of `arg_bytes` points into, ascending and without
/// duplicates. A trailing part shorter than 8 bytes is ignored. O(words * log n).
std::vector<std::size_t> ranges_pointed_into(std::span<const std::uint8_t> arg_bytes,
                                             std::span<const MemoryRange> ranges);

}  // namespace rangereplay
