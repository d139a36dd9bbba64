// Write-set snapshots of the entry snapshots (entry_snapshots.h,
// core/snapshot/write_set.h): a region too large to capture whole is snapshotted as
// the chunks the range is predicted to write (at a range name's first
// instance, the chunks not zero at entry), digested whole at entry and after
// pass 0, and the range replays only when the digests prove that it changed
// no other chunk but ones that held only zeros at entry, which each entry
// restore zeroes.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>

#include "core/base/elapsed.h"
#include "cuda/cu_status.h"
#include "cuda/digest_plan.h"
#include "report/format_helpers.h"
#include "tool/entry_snapshots.h"

namespace rangereplay::tool {
namespace {

// "a 104.9 GiB region" or "2 regions (104.9 GiB)".
std::string regions_text(const WriteSetLayout& layout) {
  if (layout.digested.size() == 1) return "a " + report::format_bytes(layout.digested_bytes) + " region";
  return std::to_string(layout.digested.size()) + " regions (" + report::format_bytes(layout.digested_bytes) + ")";
}

std::string bytes_text(std::uint64_t bytes) {
  return report::format_bytes(bytes) + " (" + std::to_string(bytes) + " bytes)";
}

// Most bytes of chunks zero at entry a range may change outside its
// snapshot and still replay: their exit bytes are kept in host memory.
constexpr std::uint64_t kMaxZeroedBytes = std::uint64_t{1} << 30;

// The name `range`'s write-set prediction is kept under.
std::string prediction_key(const ActiveRange& range) {
  return write_set_prediction_key(range.source == range::RangeSource::kKernelWindow, range.name);
}

}  // namespace

StatusOr<Snapshot> EntrySnapshots::create_write_set_snapshot(ActiveRange& range,
                                                             const std::vector<MemoryRange>& regions) {
  // A write-set range keeps its snapshot through its own window: it is never deferred.
  if (auto* recording = std::get_if<Recording>(&range.state)) recording->deferrable = false;
  const WriteSetPrediction* prediction = write_sets_.find(prediction_key(range));
  const ByteSpans predicted = prediction ? prediction->chunks : ByteSpans{};
  const std::vector<Allocation> whole = std::move(range.allocations);  // one per region, in region order
  StatusOr<Snapshot> snap = resource_exhausted("no region of 64 MiB or more to snapshot as a write set")
                                .with_decline_reason(DeclineReason::kSnapshotDoesNotFit);
  std::optional<WriteSetLayout> fitting = try_write_set_layouts(regions, predicted, [&](const WriteSetLayout& layout) {
    snap = Snapshot::create(storage_for(range), layout.snapshot, kSnapshotStates, tool_stream_);
    return snap.ok() || snap.status().decline_reason() != DeclineReason::kSnapshotDoesNotFit;
  });
  if (!fitting || !snap.ok()) {
    range.allocations = whole;
    return snap;
  }
  ActiveRange::WriteSetState& state = range.write_set.emplace();
  state.layout = std::move(*fitting);
  if (prediction) {
    state.from_instance = prediction->from_instance;
  } else if (Status s = snapshot_non_zero_chunks(range, regions, snap); !s.ok()) {
    range.write_set.reset();
    range.allocations = whole;
    return s;
  }
  const WriteSetLayout& layout = state.layout;
  // The snapshot's regions, each with the inventory facts of its allocation.
  range.allocations.clear();
  for (std::size_t i = 0; i < layout.snapshot.size(); ++i) {
    Allocation piece = whole[layout.source[i]];
    piece.range = layout.snapshot[i];
    range.allocations.push_back(std::move(piece));
  }
  for (std::uint32_t r : layout.digested_source) state.digested_origins.push_back(whole[r].origin);
  return snap;
}

Status EntrySnapshots::snapshot_non_zero_chunks(ActiveRange& range, std::span<const MemoryRange> regions,
                                                StatusOr<Snapshot>& snap) {
  ActiveRange::WriteSetState& state = *range.write_set;
  RR_RETURN_IF_ERROR(digest_write_set_entry(range));
  RR_RETURN_IF_ERROR(state.digests->read_back(tool_stream_));
  RR_CU(cuStreamSynchronize(tool_stream_));
  const ByteSpans zero = zero_chunks(state.digests->table(), state.digests->host_entry_digests());
  const ByteSpans non_zero = ByteSpans::of(state.layout.digested).minus(zero);
  if (!non_zero.empty()) {
    const std::unique_ptr<bool[]> write_set = std::make_unique<bool[]>(regions.size());  // all false
    for (std::uint32_t r : state.layout.digested_source) write_set[r] = true;
    WriteSetLayout layout =
        plan_write_set_snapshot(regions, std::span<const bool>(write_set.get(), regions.size()), non_zero);
    snap = internal_error("the write-set snapshot is planned again");  // ends the storage's range first
    StatusOr<Snapshot> chunks = Snapshot::create(storage_for(range), layout.snapshot, kSnapshotStates, tool_stream_);
    if (!chunks.ok()) {
      if (chunks.status().decline_reason() != DeclineReason::kSnapshotDoesNotFit) return chunks.status();
      state.non_zero_unfit = "the " + report::format_bytes(non_zero.bytes()) +
                             " not zero at entry did not fit the snapshot (" + chunks.status().message() + ")";
      snap = Snapshot::create(storage_for(range), state.layout.snapshot, kSnapshotStates, tool_stream_);
      return snap.ok() ? ok_status() : snap.status();
    }
    snap = std::move(chunks);
    state.layout = std::move(layout);
  }
  state.non_zero_snapshot = true;
  return ok_status();
}

Status EntrySnapshots::digest_write_set_entry(ActiveRange& range) {
  ActiveRange::WriteSetState& state = *range.write_set;
  if (state.digests) return ok_status();
  const auto start = std::chrono::steady_clock::now();
  std::vector<DigestRegion> regions;
  for (const MemoryRange& region : state.layout.digested) regions.push_back({region, DevicePtr()});
  DigestPlanOptions options;
  options.chunk_bytes = kWriteSetChunkBytes;
  // Digest-only: nothing is copied, so no in-order copy table (8 bytes per 32 KiB of the regions).
  options.copy_variant = kernels::DigestCopyVariant::kClusterSlice;
  auto plan = DigestPlan::create(regions, options, tool_stream_);
  if (!plan.ok()) {
    // Out of device memory for the chunk table: the range cannot be proven.
    if (plan.status().code() == StatusCode::kResourceExhausted)
      return Status(plan.status()).with_decline_reason(DeclineReason::kSnapshotDoesNotFit);
    return plan.status();
  }
  state.digests.emplace(std::move(plan).value());
  RR_RETURN_IF_ERROR(state.digests->digest_entry(tool_stream_));
  RR_RETURN_IF_ERROR(cu_status(cuStreamSynchronize(tool_stream_), "cuStreamSynchronize", __FILE__, __LINE__));
  state.entry_digest_ms = ms_since(start);
  return ok_status();
}

std::optional<Decline> EntrySnapshots::prove_write_set(ActiveRange& range) {
  ActiveRange::WriteSetState& state = *range.write_set;
  const auto start = std::chrono::steady_clock::now();
  // digest() fills the current digests; read_back() brings the entry digests too.
  Status s = state.digests->digest(tool_stream_);
  if (s.ok()) s = state.digests->read_back(tool_stream_);
  if (s.ok()) s = cu_status(cuStreamSynchronize(tool_stream_), "cuStreamSynchronize", __FILE__, __LINE__);
  if (!s.ok()) return Decline{DeclineReason::kReplayFailed, "write-set digests after pass 0: " + s.message()};
  const double digest_ms = ms_since(start);
  const std::span<const std::uint64_t> entry = state.digests->host_entry_digests();
  const std::span<const std::uint64_t> exit = state.digests->host_digests();
  state.pass0_digests.assign(exit.begin(), exit.end());
  const ByteSpans changed = changed_chunks(state.digests->table(), entry, exit);
  WriteSetProof proof =
      rangereplay::prove_write_set(changed, state.layout.predicted, zero_chunks(state.digests->table(), entry));
  write_sets_.learn(prediction_key(range), changed, range.record.index);
  const WriteSetPrediction& grown = *write_sets_.find(prediction_key(range));

  const std::string of = report::format_bytes(state.layout.predicted.bytes()) + " of " + regions_text(state.layout);
  std::string from = state.from_instance       ? "write set from range " + std::to_string(*state.from_instance)
                     : state.non_zero_snapshot ? "the chunks not zero at entry"
                                               : "no write set yet";
  const std::string digests = "digests " + report::format_ms(state.entry_digest_ms) + " at entry, " +
                              report::format_ms(digest_ms) + " after pass 0";
  // The zeroed chunks' exit bytes are kept in host memory, within the cap
  // and --snapshot-host-limit; past them (or when the allocation fails) the
  // chunks count as unpredicted.
  const std::uint64_t host_limit = parts_.config.snapshot_host_limit;
  const std::uint64_t cap = host_limit > 0 ? std::min(kMaxZeroedBytes, host_limit) : kMaxZeroedBytes;
  std::string zeroed;
  bool over_cap = false;
  if (!proof.zeroed.empty()) {
    const std::uint64_t bytes = proof.zeroed.bytes();
    if (bytes <= cap) state.zeroed_exit.reset(new (std::nothrow) std::byte[bytes]);  // not filled: no page touched
    if (state.zeroed_exit) {
      zeroed = "; " + report::format_bytes(bytes) + " of chunks zero at entry, restored by zeroing";
    } else {
      over_cap = true;
      proof.unpredicted_bytes += bytes;
      zeroed = "; " + bytes_text(bytes) + " of them held only zeros at entry, " +
               (bytes > cap ? "more than the " + report::format_bytes(cap) + " restored by zeroing"
                            : std::string("but no host memory could be allocated for their exit bytes"));
      proof.zeroed = ByteSpans{};
    }
  }
  if (proof.proven()) {
    for (const MemoryRange& region : state.layout.digested) {
      const ByteSpans inside = proof.zeroed.within(region);
      state.zeroed.insert(state.zeroed.end(), inside.spans().begin(), inside.spans().end());
    }
    range.record.notes.push_back("snapshot: " + of + ", " + from + ", proven by digests (" +
                                 report::format_bytes(proof.changed_bytes) + " changed in pass 0" + zeroed + "; " +
                                 digests + ")");
    return std::nullopt;
  }
  const std::string next = zeroed + "; the next instance snapshots the grown write set of " +
                           report::format_bytes(grown.chunks.bytes()) + " (" + digests + ")";
  if (!state.from_instance) {
    const std::string unfit = state.non_zero_unfit.empty() ? "" : " (" + state.non_zero_unfit + ")";
    return Decline{DeclineReason::kWriteSetLearned,
                   "pass 0 changed " + bytes_text(proof.unpredicted_bytes) + " of " + regions_text(state.layout) +
                       (over_cap ? " outside its snapshot" : " that were not zero at entry") +
                       ", which no earlier instance predicted" + unfit + next};
  }
  return Decline{DeclineReason::kWriteSetExceeded,
                 "pass 0 changed " + bytes_text(proof.unpredicted_bytes) + " of " + regions_text(state.layout) +
                     " outside the " + of + " its snapshot held" + (over_cap ? "" : " and not zero at entry") + " (" +
                     from + ")" + next};
}

Status EntrySnapshots::capture_zeroed_exit(ActiveRange& range) {
  if (!range.write_set || range.write_set->zeroed.empty()) return ok_status();
  ActiveRange::WriteSetState& state = *range.write_set;
  if (!state.zeroed_exit) return failed_precondition("no host buffer for the zeroed chunks' exit bytes");
  std::byte* at = state.zeroed_exit.get();
  for (const MemoryRange& span : state.zeroed) {
    RR_CU(cuMemcpyDtoHAsync(at, span.start().address(), span.size(), tool_stream_));
    at += span.size();
  }
  RR_CU(cuStreamSynchronize(tool_stream_));
  return ok_status();
}

Status EntrySnapshots::restore_zeroed(ActiveRange& range, bool exit_state) {
  if (!range.write_set || range.write_set->zeroed.empty()) return ok_status();
  ActiveRange::WriteSetState& state = *range.write_set;
  if (exit_state && !state.zeroed_exit) return failed_precondition("no host buffer for the zeroed chunks' exit bytes");
  const std::byte* at = state.zeroed_exit.get();
  for (const MemoryRange& span : state.zeroed) {
    if (exit_state) {
      RR_CU(cuMemcpyHtoDAsync(span.start().address(), at, span.size(), tool_stream_));
      at += span.size();
    } else {
      RR_CU(cuMemsetD8Async(span.start().address(), 0, span.size(), tool_stream_));
    }
  }
  return ok_status();
}

void EntrySnapshots::check_write_set_after_window(ActiveRange& range) {
  ActiveRange::WriteSetState& state = *range.write_set;
  if (!state.digests || state.pass0_digests.size() != state.digests->table().chunk_count()) return;
  Status s = state.digests->digest(tool_stream_);
  if (s.ok()) s = cu_status(cuStreamSynchronize(tool_stream_), "cuStreamSynchronize", __FILE__, __LINE__);
  std::string problem;
  if (!s.ok()) {
    problem = "the write-set digests after the replay window failed: " + s.message();
  } else {
    const ByteSpans changed =
        changed_chunks(state.digests->table(), state.pass0_digests, state.digests->host_digests());
    const std::uint64_t outside = changed.bytes_outside(state.layout.predicted);
    if (outside > 0) {
      problem = "the replays changed " + bytes_text(outside) + " of " + regions_text(state.layout) +
                " outside the snapshot's write set, which the exit restore cannot put back: the application's "
                "memory there differs from its own run";
    }
  }
  if (problem.empty()) return;
  range.record.notes.push_back(problem);
  parts_.report.errors.push_back("range " + std::to_string(range.record.index) + " '" + range.name + "': " + problem);
  if (!parts_.config.quiet) std::fprintf(stderr, "rangereplay: %s\n", problem.c_str());
}

}  // namespace rangereplay::tool
