// The divergences --verify reports for one replay: the allocations whose
// digests after the replay differ from the application's own range-exit
// digests (tool/verify.h).
//
// CUDA-free (tests/unit/tool/divergences_test.cpp). Thread-safety: values.
#pragma once

#include <cstdint>
#include <span>

#include "core/record/allocation_inventory.h"
#include "core/snapshot/digest/chunk_table.h"
#include "report/report_model.h"

namespace rangereplay::tool {

/// Appends to `pass` one divergence per allocation with a chunk whose digest
/// differs between `found` and `exit` (one digest per chunk of `table`; the
/// table's region r is a piece of allocations[region_allocations[r]]). Each
/// allocation is reported once, in region order, with its address, size and
/// "<origin> #<serial> (<kind>)". Nothing when a digest list does not match
/// the table; regions or indices out of range are skipped.
void record_divergences(std::span<const Allocation> allocations, std::span<const std::uint32_t> region_allocations,
                        const ChunkTable& table, std::span<const std::uint64_t> found,
                        std::span<const std::uint64_t> exit, report::PassRecord& pass);

}  // namespace rangereplay::tool
