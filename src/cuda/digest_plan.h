// DigestPlan: GPU digests of a snapshot's regions, built once per snapshot
// plan and reused by every pass: the divergence check (--verify), differential
// restore, and the capture of only the chunks a range changed.
//
// At creation the regions are cut into chunks (core/snapshot/digest/chunk_table.h,
// 1 MiB by default), the chunk table with both addresses of every chunk (the
// application's and its snapshot copy's) is uploaded to device memory once,
// and the plan's device buffers (entry, current and exit digests, one dirty
// flag per chunk, counters) and their pinned host mirror are allocated. Every
// operation is then one launch of the digest kernel (cuda/kernels/
// digest_kernel.h), asynchronous on the caller's stream; nothing waits on the
// host. With DigestPlanOptions::copy_variant = kWarpPerPieceInOrder a restore
// copies in a launch of its own (chunk_copy_kernel), after the digest launch
// that decides, or alone when the digests are trusted (kUseDigests), unless
// the restore asks for one launch (RestoreLaunches::kOne).
//
//   std::vector<DigestRegion> regions = {{MemoryRange(app, bytes), DevicePtr(arena + offset)}};
//   RR_ASSIGN_OR_RETURN(DigestPlan plan, DigestPlan::create(regions, {}, stream));
//   RR_RETURN_IF_ERROR(copy_plan.capture(stream));        // range entry: the snapshot
//   RR_RETURN_IF_ERROR(plan.digest_entry(stream));        // ... and its digests, once
//   ... pass 0 (the application) ...
//   RR_RETURN_IF_ERROR(plan.capture_changed(stream, exit_arena, exit_bytes));  // exit state, changed chunks only
//   for each replayed pass:
//     RR_RETURN_IF_ERROR(plan.restore(stream));           // copies back only chunks that differ
//     RR_RETURN_IF_ERROR(plan.read_back(stream));         // counters, digests, flags -> host (async)
//     ... the pass ...
//   RR_RETURN_IF_ERROR(plan.restore_exit(stream));        // the application's own exit state
//
// restore() also records the digests of the memory it found (the state the
// previous pass left), so with --verify, host_digests() after read_back()
// compared with host_exit_digests() gives that pass's divergent chunks at no
// extra read (ChunkTable::differing_regions()).
//
// Digests are compared only inside one process and never persisted
// (core/snapshot/digest/chunk_digest.h).
// Thread-safety: a plan is not safe for concurrent calls; the caller
// serializes its operations on one stream (as the replay window does). The
// host mirror is valid once the stream has passed the read_back()/digest()
// that filled it.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <span>
#include <vector>

#include "core/base/memory_range.h"
#include "core/base/status.h"
#include "core/snapshot/digest/chunk_table.h"
#include "cuda/kernels/digest_kernel.h"
#include "cuda/owned.h"

namespace rangereplay {

/// One region of the plan: the application's bytes and, for restore, the
/// device-accessible address of the copy of its first byte (a device arena,
/// or the device pointer of mapped pinned host memory). A null snapshot
/// makes the region digest-only. A region whose snapshot is split over two
/// arenas is passed as two regions.
struct DigestRegion {
  MemoryRange app;
  DevicePtr snapshot;
};

struct DigestPlanOptions {
  /// Chunk size in bytes: a multiple of 16 in [16, 2^31].
  std::uint64_t chunk_bytes = kDefaultDigestChunkBytes;
  /// Blocks per chunk (1, 2, 4 or 8); 0 picks min(8, mean chunk bytes /
  /// 64 KiB) rounded down to a power of two, at least 1. A device without
  /// thread-block clusters (compute capability below 9.0) takes 0 or 1 only
  /// and always runs one block per chunk (core/snapshot/digest/cluster_blocks.h).
  std::uint32_t cluster_blocks = 0;
  /// How restore() and restore_exit() copy the chunks they move
  /// (cuda/kernels/digest_kernel.h), unless a restore() asks for
  /// RestoreLaunches::kOne; the same bytes either way.
  /// kWarpPerPieceInOrder copies them in a second launch, chunk_copy_kernel,
  /// with the copy kernel's in-order warp-per-item schedule (kUseDigests: that
  /// launch alone, deciding from the digests), and uploads 8 bytes per 32 KiB
  /// of the regions at creation. The default: in digest_bench (64 MB to
  /// 4 GB, 100% of chunks dirty, restore against the full-restore floor) it
  /// is faster than kClusterSlice in both kCopyPredicted and kUseDigests
  /// modes; kClusterSlice is faster when few chunks change and every chunk is
  /// digested (1% dirty, kDigestAll), because it needs no second launch
  /// (figures in docs/performance.md).
  kernels::DigestCopyVariant copy_variant = kernels::DigestCopyVariant::kWarpPerPieceInOrder;
};

/// How restore() decides which chunks to copy.
enum class ChunkRestoreMode : std::uint8_t {
  /// Digest every chunk; copy the ones whose digest differs from the
  /// reference. Exact: restored bytes are exactly the changed chunks' bytes.
  kDigestAll,
  /// Chunks flagged dirty by the previous restore()/capture_changed() are
  /// copied without being digested (a range tends to write the same chunks
  /// every pass); the others are digested as in kDigestAll. Same memory
  /// afterwards; host_digests() is not updated for the copied-unread chunks.
  kCopyPredicted,
  /// Trust the current digests (device_digests()) as describing the memory
  /// now: valid right after digest() with no write since (restore() leaves
  /// there the digests of the memory it found, before copying). Nothing is
  /// read but the changed chunks' sources; host_digests() is not updated.
  kUseDigests,
};

/// How many launches restore() takes.
enum class RestoreLaunches : std::uint8_t {
  /// As the plan's copy variant says: kWarpPerPieceInOrder digests in one
  /// launch and copies in a second (one launch in kUseDigests);
  /// kClusterSlice digests and copies in one.
  kPlanVariant,
  /// One: the digest launch copies the chunks it decides on itself
  /// (kClusterSlice's copy, whatever the plan's variant; the same bytes, a
  /// slower copy when many chunks changed: digest_bench). For a restore
  /// counted among CUPTI's automatic per-kernel ranges, where each launch is
  /// a counter range of its own and costs about a millisecond of the pass.
  kOne,
};

/// What a plan covers and how it launches.
struct DigestPlanStats {
  std::uint64_t total_bytes = 0;  // all regions
  std::uint64_t chunk_count = 0;
  std::uint32_t cluster_blocks = 0;  // blocks per chunk
  bool clusters = true;              // launched as thread-block clusters (compute capability 9.0 and newer)
  std::uint64_t grid_blocks = 0;     // blocks per launch
  bool has_snapshot = false;         // every non-empty region has a snapshot address
  kernels::DigestCopyVariant copy_variant = kernels::DigestCopyVariant::kClusterSlice;
  std::uint64_t copy_blocks = 0;  // kWarpPerPieceInOrder: blocks per chunk_copy_kernel launch (else 0)
};

class DigestPlan {
 public:
  /// Builds the plan in the current context; uploads the chunk table and
  /// zeroes the device buffers on `stream` (asynchronously: later operations
  /// on the same stream are ordered after it).
  /// Errors: kInvalidArgument for a bad chunk size, cluster size (above 1
  /// on a device without clusters) or copy variant; kOutOfRange for too many chunks (2^32, or a grid above 2^31 - 1
  /// blocks, the in-order copy's included); kResourceExhausted when device or
  /// pinned memory runs out (about 57 bytes per chunk on the device, 25
  /// pinned, plus 8 per 32 KiB in order); kFailedPrecondition without a
  /// current context; kInternal for other driver errors.
  static StatusOr<DigestPlan> create(std::span<const DigestRegion> regions, const DigestPlanOptions& options,
                                     CUstream stream);

  /// Moving a plan moves its buffers; the moved-from plan fails every call.
  DigestPlan(DigestPlan&&) noexcept = default;
  DigestPlan& operator=(DigestPlan&&) noexcept = default;
  /// Waits for the plan's last operation (an event, not a device sync), then
  /// frees its buffers. Errors are ignored.
  ~DigestPlan() = default;

  /// Digests the application's chunks into the entry digests (call once the
  /// snapshot holds the same bytes, e.g. right after its capture).
  Status digest_entry(CUstream stream);
  /// Digests the application's chunks into the current digests and copies
  /// them to host_digests() (asynchronously).
  Status digest(CUstream stream);
  /// Differential restore to the entry state: copies chunks back from their
  /// snapshot addresses as `mode` says, records the digests found (current
  /// digests), the dirty flags (1 = copied) and the counters. One launch, or
  /// two with kWarpPerPieceInOrder (a digest launch that decides, then the
  /// copy) except in kUseDigests or with RestoreLaunches::kOne.
  /// Errors: kFailedPrecondition when a region has no snapshot address.
  Status restore(CUstream stream, ChunkRestoreMode mode = ChunkRestoreMode::kDigestAll,
                 RestoreLaunches launches = RestoreLaunches::kPlanVariant);
  /// Exit capture: digests every chunk into the exit digests and copies the
  /// chunks that differ from the entry digests into `exit_arena` (device-
  /// accessible, `exit_arena_bytes` bytes; slots are 256-byte multiples
  /// packed in completion order), recording each chunk's slot (0 =
  /// unchanged). Read the counters back and check capture_overflow_chunks
  /// == 0 before relying on restore_exit(): a changed chunk that did not fit
  /// has no copy. Sets the dirty flags (1 = changed).
  /// Errors: kFailedPrecondition when a region has no snapshot address.
  Status capture_changed(CUstream stream, CUdeviceptr exit_arena, std::uint64_t exit_arena_bytes);
  /// Differential restore to the exit state recorded by capture_changed():
  /// reference = exit digests; a chunk that differs is copied from its exit
  /// slot, or from its snapshot when it had none (unchanged by the range).
  /// kUseDigests compares the last digest() with the exit digests.
  /// Errors: kFailedPrecondition before any capture_changed() or without
  /// snapshot addresses.
  Status restore_exit(CUstream stream, ChunkRestoreMode mode = ChunkRestoreMode::kDigestAll);
  /// Copies the counters, the entry, current and exit digests and the dirty
  /// flags to the host mirror (one asynchronous copy).
  Status read_back(CUstream stream);

  /// Host mirror (after read_back()/digest() completed; zeros before).
  std::span<const std::uint64_t> host_entry_digests() const;
  std::span<const std::uint64_t> host_digests() const;
  std::span<const std::uint64_t> host_exit_digests() const;
  std::span<const std::uint8_t> host_dirty() const;
  const kernels::DigestCounters& host_counters() const;
  /// Region digests from one chunk digest per chunk (ChunkTable::region_digests).
  std::vector<std::uint64_t> region_digests(std::span<const std::uint64_t> chunk_digests) const {
    return table_.region_digests(chunk_digests);
  }

  /// Device buffers, one entry per chunk, for fusing with other work.
  CUdeviceptr device_entry_digests() const;
  CUdeviceptr device_digests() const;
  CUdeviceptr device_exit_digests() const;
  CUdeviceptr device_dirty() const;
  CUdeviceptr device_counters() const;
  CUdeviceptr device_exit_locations() const;

  const ChunkTable& table() const { return table_; }
  const DigestPlanStats& stats() const { return stats_; }

 private:
  DigestPlan() = default;
  kernels::DigestKernelArgs base_args(kernels::DigestKernelMode mode) const;
  Status launch(const kernels::DigestKernelArgs& args, CUstream stream);
  Status launch_copy(const kernels::DigestKernelArgs& args, CUstream stream);
  /// restore() and restore_exit(): back to the state `reference` digests,
  /// changed chunks copied from `source_override` (0: their snapshots).
  Status restore_to(CUstream stream, ChunkRestoreMode mode, RestoreLaunches launches, CUdeviceptr reference,
                    CUdeviceptr source_override);
  /// The device allocation's address (0 for a moved-from plan).
  CUdeviceptr device() const { return driver_ ? driver_->device.get() : 0; }
  /// host_entry_digests(), host_digests(), host_exit_digests(): the chunk
  /// digests at `offset` in the host mirror (empty for a moved-from plan).
  std::span<const std::uint64_t> host_digests_at(std::uint64_t offset) const;
  /// The host mirror's bytes (null for a moved-from plan).
  const unsigned char* host() const {
    return driver_ ? static_cast<const unsigned char*>(driver_->host.get()) : nullptr;
  }

  // What the plan created in its context, freed there after its last
  // operation (cu::ContextObjects, whose `done` event each operation records
  // and which is destroyed last), in reverse declaration order: the device
  // allocation, then its pinned host mirror.
  struct DriverObjects {
    // Uploaded asynchronously by create(), so they live as long as the device buffer.
    std::vector<DigestChunkDescriptor> descriptors;
    std::vector<ChunkCopyBlock> copy_blocks;  // kWarpPerPieceInOrder: the same
    cu::PinnedBuffer host;                    // pinned mirror of the mirrored part
    // One device allocation: [mirrored part | state | exit locations | descriptors | copy blocks].
    // Mirrored part: counters (64 B) | entry | current | exit digests (8 B per
    // chunk each) | dirty flags (1 B per chunk, padded to 8).
    cu::DeviceBuffer device;
    void abandon() noexcept {
      (void)host.release();
      (void)device.release();
    }
  };
  cu::ContextObjects<DriverObjects> driver_;  // empty once moved from

  ChunkTable table_;
  DigestPlanStats stats_;
  std::uint64_t mirror_bytes_ = 0;
  std::uint64_t entry_offset_ = 0;
  std::uint64_t current_offset_ = 0;
  std::uint64_t exit_offset_ = 0;
  std::uint64_t dirty_offset_ = 0;
  std::uint64_t state_offset_ = 0;
  std::uint64_t locations_offset_ = 0;
  std::uint64_t descriptors_offset_ = 0;
  std::uint64_t copy_blocks_offset_ = 0;
  bool exit_captured_ = false;
};

}  // namespace rangereplay
