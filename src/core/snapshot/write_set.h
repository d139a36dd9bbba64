// Write-set snapshots: the logic that lets a range over a region too large to
// capture whole (an allocator's pool, XLA's preallocation) be replayed from a
// snapshot of only the chunks it is predicted to write.
//
// The entry snapshot holds the predicted chunks of such a region; every chunk
// of the region is digested at range entry and again at the end of pass 0.
// When every chunk that changed was predicted, or held only zeros at entry,
// the digests prove the rest of the region untouched, so restoring the
// predicted chunks (and zeroing the others that changed) restores the entry
// state exactly and the range replays. The first instance of a range, with
// nothing predicted, snapshots the chunks that are not zero at entry when
// they fit (a pool is mostly untouched memory), so it can replay too. Otherwise it declines
// (write_set_learned for an instance without a prediction, write_set_exceeded
// for one whose prediction missed chunks) and the prediction grows by the
// chunks that changed, for the next instance of the range.
//
//   WriteSetPredictor predictor;                              // process-long, per range name
//   const WriteSetPrediction* p = predictor.find("step/");    // nullptr: first instance
//   ByteSpans predicted = p ? chunks_touching(region, p->chunks, kWriteSetChunkBytes) : ByteSpans{};
//   ... snapshot `predicted`, digest the region at entry, pass 0, digest again ...
//   ByteSpans changed = changed_chunks(table, entry_digests, exit_digests);
//   WriteSetProof proof = prove_write_set(changed, predicted, zero_chunks(table, entry_digests));
//   predictor.learn("step/", changed, instance);              // grows, never shrinks
//   if (!proof.proven()) decline(...);
//
// No CUDA here: tested without a GPU. Thread-safety: values; a
// WriteSetPredictor is not safe for concurrent calls (the tool's lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/memory_range.h"
#include "core/snapshot/digest/chunk_table.h"

namespace rangereplay {

/// Chunk size of write-set predictions and proofs: the digest chunk, 1 MiB.
inline constexpr std::uint64_t kWriteSetChunkBytes = kDefaultDigestChunkBytes;

/// A set of device bytes: sorted, pairwise disjoint and non-adjacent spans
/// (adding touching or overlapping spans merges them). A plain value.
class ByteSpans {
 public:
  ByteSpans() = default;
  /// The union of `spans` (any order, overlaps allowed; empty ones ignored).
  static ByteSpans of(std::span<const MemoryRange> spans);

  /// Adds `span` (nothing for an empty one), merging what it touches.
  void add(const MemoryRange& span);
  /// Adds every span of `other`.
  void add(const ByteSpans& other);

  std::span<const MemoryRange> spans() const { return spans_; }
  bool empty() const { return spans_.empty(); }
  /// Sum of the spans' sizes, in bytes.
  std::uint64_t bytes() const;
  /// The bytes of this set that lie inside `region`.
  ByteSpans within(const MemoryRange& region) const;
  /// The bytes of this set that `other` does not hold, as a set.
  ByteSpans minus(const ByteSpans& other) const;
  /// Bytes of this set that `other` does not hold (linear in both sets' spans).
  std::uint64_t bytes_outside(const ByteSpans& other) const;
  friend bool operator==(const ByteSpans&, const ByteSpans&) = default;

 private:
  std::vector<MemoryRange> spans_;
};

/// The chunks of `region` that hold at least one byte of `spans`, merged:
/// chunks are cut from the region's first byte in `chunk_bytes` steps (the
/// last one short), as ChunkTable cuts them. chunk_bytes > 0 (asserted).
ByteSpans chunks_touching(const MemoryRange& region, const ByteSpans& spans,
                          std::uint64_t chunk_bytes = kWriteSetChunkBytes);

/// The chunks of `table` whose digests differ between `entry` and `exit`
/// (one digest per chunk each; sizes asserted equal to the chunk count),
/// as application bytes, merged.
ByteSpans changed_chunks(const ChunkTable& table, std::span<const std::uint64_t> entry,
                         std::span<const std::uint64_t> exit);

/// The chunks of `table` whose digest in `digests` (one per chunk; size
/// asserted) is the digest of as many zero bytes (zero_chunk_digest): the
/// chunks that held only zeros when digested, as application bytes, merged.
/// A chunk is taken as zeros on its digest alone, the same trust the proof
/// by digests puts in them (a 64-bit digest: core/snapshot/digest/chunk_digest.h).
ByteSpans zero_chunks(const ChunkTable& table, std::span<const std::uint64_t> digests);

/// The outcome of one range's proof at the end of pass 0.
struct WriteSetProof {
  std::uint64_t changed_bytes = 0;      // bytes of the chunks that changed in pass 0
  std::uint64_t unpredicted_bytes = 0;  // of them, bytes outside the prediction and not zero at entry
  /// The changed chunks outside the prediction that held only zeros at
  /// entry: their entry state is known without a copy, so they are restored
  /// by zeroing them (and their exit bytes kept apart).
  ByteSpans zeroed;
  /// Every changed chunk was predicted or zero at entry: the range may be replayed.
  bool proven() const { return unpredicted_bytes == 0; }
  friend bool operator==(const WriteSetProof&, const WriteSetProof&) = default;
};

/// Compares the chunks pass 0 changed with the chunks the snapshot holds
/// and the chunks that were zero at entry (zero_chunks of the entry digests).
WriteSetProof prove_write_set(const ByteSpans& changed, const ByteSpans& predicted,
                              const ByteSpans& zero_at_entry = {});

/// Smallest region that may become a write set: 64 MiB (64 chunks). A
/// smaller region gains little from a chunk-wise snapshot, and keeping it out
/// keeps small footprints above the tier caps declining snapshot_does_not_fit.
inline constexpr std::uint64_t kMinWriteSetRegionBytes = std::uint64_t{64} << 20;

/// The regions that switch to write-set snapshots, in the order they switch
/// when the whole snapshot does not fit: indices into `regions` of the ones
/// of at least `min_bytes` bytes, largest first (ties: the earlier region).
std::vector<std::uint32_t> write_set_order(std::span<const MemoryRange> regions,
                                           std::uint64_t min_bytes = kMinWriteSetRegionBytes);

/// An entry snapshot with write-set regions: what is copied and what is
/// digested.
struct WriteSetLayout {
  /// The snapshot's regions, in region order: a whole region as itself, a
  /// write-set region as its predicted chunks (merged, ascending).
  std::vector<MemoryRange> snapshot;
  /// Per snapshot region, the index of the region it belongs to.
  std::vector<std::uint32_t> source;
  /// The write-set regions, whole (digested at entry and after pass 0).
  std::vector<MemoryRange> digested;
  /// Per write-set region, its index in the regions laid out.
  std::vector<std::uint32_t> digested_source;
  /// The predicted chunks of all write-set regions (what the snapshot holds of them).
  ByteSpans predicted;
  /// Sum of the write-set regions' sizes, in bytes.
  std::uint64_t digested_bytes = 0;
};

/// Lays out a snapshot of `regions` in which the regions flagged in
/// `write_set` (one flag per region) hold only the chunks of `prediction`
/// that fall in them (chunks_touching, `chunk_bytes`); the others are whole.
WriteSetLayout plan_write_set_snapshot(std::span<const MemoryRange> regions, std::span<const bool> write_set,
                                       const ByteSpans& prediction, std::uint64_t chunk_bytes = kWriteSetChunkBytes);

/// Most regions one snapshot switches to write sets (its largest ones):
/// pools are few and large.
inline constexpr std::size_t kMaxWriteSetRegions = 8;

/// Write-set layouts of `regions` in the order they are tried when the whole
/// snapshot does not fit: the regions of write_set_order(regions) switch one
/// at a time, largest first, at most `max_regions`, each time laid out by
/// plan_write_set_snapshot (with `prediction`) and offered to `attempt`. The
/// first layout `attempt` accepts (returns true: it fits, or trying further
/// is pointless) is returned; nullopt when it accepts none or no region
/// qualifies.
std::optional<WriteSetLayout> try_write_set_layouts(std::span<const MemoryRange> regions, const ByteSpans& prediction,
                                                    const std::function<bool(const WriteSetLayout&)>& attempt,
                                                    std::size_t max_regions = kMaxWriteSetRegions,
                                                    std::uint64_t chunk_bytes = kWriteSetChunkBytes);

/// What one range name's earlier instances wrote.
struct WriteSetPrediction {
  ByteSpans chunks;                 // every chunk any measured instance changed (grows only)
  std::uint32_t from_instance = 0;  // the instance (its range index) whose measurement last grew `chunks`
  std::uint32_t measured = 0;       // instances measured so far
};

/// Predictions per range name. A prediction is keyed by the range's name
/// alone (its kernels are not known before it runs); a wrong prediction costs
/// a decline, never soundness, because every instance is proven by digests.
/// The name a range's write-set prediction is kept under: its own name,
/// except for a kernel window (`kernel_window`), whose name holds its launch
/// numbers ("kernels 100:164", range::KernelWindows::window_name): windows of
/// the same number of launches share one prediction ("kernel windows of 64
/// launches"), as the steps of a training loop do, so a window after the
/// first can replay. Sound either way: the digests prove or refute every
/// prediction. A name that is not a window's is returned as it is.
/// Thread-safe (pure).
std::string write_set_prediction_key(bool kernel_window, std::string_view name);

class WriteSetPredictor {
 public:
  /// The prediction for ranges named `name`, or nullptr before any instance
  /// was measured. Valid until the next learn().
  const WriteSetPrediction* find(std::string_view name) const;
  /// Records the chunks instance `instance` (the range's index in the report)
  /// of `name` changed in pass 0: the
  /// prediction becomes the union of all measured instances' chunks;
  /// from_instance becomes `instance` when the union grew (or at the first).
  void learn(std::string_view name, const ByteSpans& changed, std::uint32_t instance);

 private:
  std::map<std::string, WriteSetPrediction, std::less<>> predictions_;
};

}  // namespace rangereplay
