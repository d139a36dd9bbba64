// Device room: the tool gives back the device memory it holds between ranges
// (the snapshots of ranges waiting for a batch, the snapshot tiers' retained
// arenas) before an application allocation that would not fit beside it, so
// that the application never runs out of memory because of the tool.
//
// Pure functions, tested on the CPU (tests/unit/tool/device_room_test.cpp);
// the RangeController asks cuMemGetInfo and frees. Thread-safety: none
// needed.
#pragma once

#include <cstdint>

#include "tool/logic/driver_calls.h"

namespace rangereplay::tool {

/// Free device memory kept beyond an allocation's own size before the tool
/// makes room: the driver's own bookkeeping and an allocator's rounding
/// (CUDA rounds allocations up to 2 MiB pages), 256 MiB.
inline constexpr std::uint64_t kAllocationHeadroomBytes = std::uint64_t{256} << 20;

/// The device bytes an allocation call asks for, from its row's effect and
/// decoded parameters: cuMemAlloc's and the stream-ordered allocations'
/// size, cuMemAllocPitch's width times height (the driver's pitch only
/// widens it), cuMemCreate's size on a device. 0 for calls that take no
/// device memory of their own size (managed memory, which the driver can
/// evict, pinned host memory, a map of physical memory already created,
/// access changes, frees).
std::uint64_t device_bytes_requested(MemoryEffect effect, const AllocationParams& params);

/// Whether the tool gives back the `held_bytes` of device memory it could
/// free before an allocation of `requested` bytes, with `free_bytes` free
/// now (cuMemGetInfo): when the request with the headroom does not fit in
/// what is free, and what the tool holds would let the request itself fit
/// (otherwise the allocation fails without the tool too, and the deferred
/// ranges keep their batch). Saturating arithmetic.
bool must_make_room(std::uint64_t free_bytes, std::uint64_t requested, std::uint64_t held_bytes);

}  // namespace rangereplay::tool
