// --verify as the replay window's observer (tool/logic/replay_window.h): after
// every replay, the state of every snapshot region is digested on the GPU
// (src/cuda/digest_plan.h) and compared with the application's own range-exit
// state. A differing region is a divergence: reported in the pass's record
// with its allocation, never fatal (floating-point atomics legitimately
// reorder).
//
// A write-set range's regions are also digested whole after each replay
// (write_set_verifier): chunks outside its snapshot must stay as pass 0 left
// them.
//
// With differential restore the restore plan's own digests are compared (its
// exit digests from the exit capture, and the digests each restore found,
// which describe the state the previous replay left), so verifying reads
// nothing extra. With --restore full, a digest-only plan over the allocations
// digests the exit state before the first replay and the state after each.
//
// Thread-safety: the range's thread only (the tool's lock).
#pragma once

#include <cuda.h>

#include <memory>

#include "tool/active_range.h"
#include "tool/logic/replay_window.h"
#include "tool/restore_strategy.h"

namespace rangereplay::tool {

/// --verify with --restore full. Fills range.digest_allocations and
/// range.exit_chunk_digests at begin(); a digest plan that cannot be built
/// leaves a note in the range's record and verifies nothing.
std::unique_ptr<ReplayObserver> full_restore_verifier(ActiveRange& range, CUstream stream);

/// --verify with differential restore, over `restore`'s plan (built with
/// digest_all) and range.digest_allocations.
std::unique_ptr<ReplayObserver> differential_restore_verifier(const ActiveRange& range, DifferentialRestore& restore,
                                                              CUstream stream);

/// --verify of a write-set range (range.write_set, core/snapshot/write_set.h):
/// forwards every call to `inner` (the restore strategy's verifier, which
/// covers the snapshot's chunks; may be null) and after each replay digests
/// the write-set regions whole (one read of them per replay), reporting as
/// divergences of that pass the chunks outside the snapshot that differ from
/// the state pass 0 left. Needs range.write_set with its pass-0 digests
/// (verifies nothing more without them).
std::unique_ptr<ReplayObserver> write_set_verifier(ActiveRange& range, std::unique_ptr<ReplayObserver> inner,
                                                   CUstream stream);

}  // namespace rangereplay::tool
