// The replay window's GPU parts (see restore_strategy.h).
#include "tool/restore_strategy.h"

#include "core/base/environment.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "cuda/cu_status.h"
#include "cuda/kernels/digest_kernel.h"

namespace rangereplay::tool {

Status FullRestore::capture_exit() {
  RR_RETURN_IF_ERROR(snapshot_.capture(SnapshotState::kExit, stream_));
  RR_CU(cuStreamSynchronize(stream_));
  return globals_.capture_exit();
}

Status FullRestore::restore_entry() {
  RR_RETURN_IF_ERROR(entry_copy_ == EntryCopy::kCopyEngines
                         ? snapshot_.restore_by_copy_engines(SnapshotState::kEntry, stream_)
                         : snapshot_.restore(SnapshotState::kEntry, stream_));
  return globals_.restore(/*exit_state=*/false);
}

Status FullRestore::restore_exit() {
  RR_RETURN_IF_ERROR(snapshot_.restore(SnapshotState::kExit, stream_));
  RR_RETURN_IF_ERROR(globals_.restore(/*exit_state=*/true));
  RR_CU(cuStreamSynchronize(stream_));
  return ok_status();
}

void FullRestore::restore_exit_after_failure() {
  snapshot_.restore(SnapshotState::kExit, stream_).ignore();
  globals_.restore(/*exit_state=*/true).ignore();
  cuStreamSynchronize(stream_);
}

Status DifferentialRestore::capture_exit() {
  // capture_changed digests every chunk (the exit digests) and copies only
  // the chunks that differ from the entry digests into one span of the exit
  // state's storage; restore_exit later takes a changed chunk from there and
  // an unchanged one from the entry snapshot (same bytes). That is sound only
  // when every changed chunk got a slot: the Snapshot plans the exit state at
  // full size, but capture_changed needs one contiguous arena, and the exit
  // state may be split over two tiers or its slots (256-byte multiples) may
  // not fit. On any overflow the full exit capture overwrites that storage
  // and the exit is restored in full.
  const std::optional<storage::ArenaSpan> exit_arena =
      snapshot_.exclusive_span(SnapshotState::kExit, kernels::kExitSlotAlignment);
  RR_RETURN_IF_ERROR(
      plan_.capture_changed(stream_, exit_arena ? exit_arena->address : 0, exit_arena ? exit_arena->bytes : 0));
  RR_RETURN_IF_ERROR(plan_.read_back(stream_));
  RR_CU(cuStreamSynchronize(stream_));
  const auto& captured = plan_.host_counters();
  exit_differential_ = captured.capture_overflow_chunks == 0;
  if (!exit_differential_) {
    record_.notes.push_back(std::to_string(captured.capture_overflow_chunks) +
                            " changed chunks did not fit the exit state's arena span; the exit state was "
                            "captured and restored in full");
    RR_RETURN_IF_ERROR(snapshot_.capture(SnapshotState::kExit, stream_));
  }
  RR_CU(cuStreamSynchronize(stream_));
  return globals_.capture_exit();
}

Status DifferentialRestore::restore_entry() {
  // Copies back only the chunks whose digest differs from the entry's,
  // recording the digests of the memory it found (the previous pass's
  // result) and the restored bytes. Without --verify the chunks the previous
  // pass changed (capture_changed's or the last restore's dirty flags) are
  // copied without being digested first (a replay writes the chunks the
  // application wrote): a range that rewrites its whole footprint then costs
  // one copy, not a digest and a copy. Every other chunk is still digested,
  // so a chunk changed only by this replay is found. --verify needs the
  // digest of every chunk: kDigestAll.
  RR_RETURN_IF_ERROR(plan_.restore(
      stream_, digest_all_ ? ChunkRestoreMode::kDigestAll : ChunkRestoreMode::kCopyPredicted, entry_launches_));
  return globals_.restore(/*exit_state=*/false);
}

Status DifferentialRestore::restore_exit() {
  if (exit_differential_) {
    // Digests every chunk against the exit digests and copies back only the
    // ones that differ: the application's memory ends byte-identical to its
    // own range exit.
    RR_RETURN_IF_ERROR(plan_.restore_exit(stream_));
    if (digest_all_) RR_RETURN_IF_ERROR(plan_.read_back(stream_));
  } else {
    RR_RETURN_IF_ERROR(snapshot_.restore(SnapshotState::kExit, stream_));
  }
  RR_RETURN_IF_ERROR(globals_.restore(/*exit_state=*/true));
  RR_CU(cuStreamSynchronize(stream_));
  return ok_status();
}

void DifferentialRestore::restore_exit_after_failure() {
  if (exit_differential_) {
    plan_.restore_exit(stream_).ignore();
  } else {
    snapshot_.restore(SnapshotState::kExit, stream_).ignore();
  }
  globals_.restore(/*exit_state=*/true).ignore();
  cuStreamSynchronize(stream_);
}

namespace {

class CorruptingRestore final : public RestoreStrategy {
 public:
  CorruptingRestore(std::unique_ptr<RestoreStrategy> inner, std::span<const Allocation> allocations, CUstream stream)
      : inner_(std::move(inner)), allocations_(allocations), stream_(stream) {}
  Status capture_exit() override { return inner_->capture_exit(); }
  Status restore_entry() override {
    RR_RETURN_IF_ERROR(inner_->restore_entry());
    for (const auto& a : allocations_)
      RR_CU(cuMemsetD8Async(a.range.start().address(), 0xA5, std::min<std::uint64_t>(a.range.size(), 16), stream_));
    return ok_status();
  }
  Status read_back() override { return inner_->read_back(); }
  std::uint64_t restored_bytes() const override { return inner_->restored_bytes(); }
  Status restore_exit() override { return inner_->restore_exit(); }
  void restore_exit_after_failure() override { inner_->restore_exit_after_failure(); }

 private:
  std::unique_ptr<RestoreStrategy> inner_;
  std::span<const Allocation> allocations_;
  CUstream stream_;
};

}  // namespace

std::unique_ptr<RestoreStrategy> corrupt_restores_for_tests(std::unique_ptr<RestoreStrategy> inner,
                                                            std::span<const Allocation> allocations, CUstream stream) {
  if (!environment::test_corrupt_restores()) return inner;
  return std::make_unique<CorruptingRestore>(std::move(inner), allocations, stream);
}

Status EventReplayStream::create_events() {
  // Each event is owned as soon as it exists: a failed creation leaks none
  // of the earlier ones.
  for (cu::Event& owned : events_) {
    RR_ASSIGN_OR_RETURN(owned, cu::create_event(CU_EVENT_DEFAULT));
  }
  return ok_status();
}

void EventReplayStream::release_events() {
  for (cu::Event& owned : events_) owned.reset();
}

Status EventReplayStream::record(Event e) {
  RR_CU(cuEventRecord(event(e), stream_));
  return ok_status();
}

Status EventReplayStream::wait(Event e) {
  RR_CU(cuEventSynchronize(event(e)));
  return ok_status();
}

Status EventReplayStream::synchronize() {
  RR_CU(cuStreamSynchronize(stream_));
  return ok_status();
}

StatusOr<float> EventReplayStream::elapsed_ms(Event from, Event to) {
  float ms = 0;
  RR_CU(cuEventElapsedTime(&ms, event(from), event(to)));
  return ms;
}

}  // namespace rangereplay::tool
