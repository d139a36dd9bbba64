// The replay window's GPU parts (tool/logic/replay_window.h): the two restore
// strategies, the tool's stream with its pass timing events, and the
// re-submission of the recorded program.
//
// FullRestore copies every snapshot byte back before each replay and the
// whole exit state at the end; its entry restores may go by the copy engines
// alone (EntryCopy::kCopyEngines), launching no kernel. DifferentialRestore goes through the range's
// DigestPlan (cuda/digest_plan.h): the exit capture copies only the chunks the
// range changed (the whole exit state when they do not all fit its arena
// span), each restore copies back only the chunks whose digest differs from
// the entry's, and the exit hand-back only the chunks differing from the exit
// digests. Both restore the range's module variables, captured pinned
// host buffers and zeroed write-set chunks (RangeGlobals) with every state.
//
// Every call is asynchronous on the tool's stream unless it says it
// synchronizes. Thread-safety: the range's thread only (the tool's lock).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "core/record/allocation_inventory.h"
#include "cuda/digest_plan.h"
#include "cuda/owned.h"
#include "cuda/replayer.h"
#include "cuda/snapshot.h"
#include "report/report_model.h"
#include "tool/logic/counter_session.h"
#include "tool/logic/replay_window.h"

namespace rangereplay::tool {

/// The range's module variables and captured pinned host buffers, kept
/// beside the snapshot (module_globals.cpp), and a write-set range's chunks
/// restored by zeroing (write_set_snapshot.cpp).
struct RangeGlobals {
  std::function<Status()> capture_exit;            // their bytes at range exit (synchronous)
  std::function<Status(bool exit_state)> restore;  // queues the entry (false) or exit (true) bytes
};

/// How FullRestore copies the entry state back before each replay.
enum class EntryCopy : std::uint8_t {
  kPlan,         // the snapshot's copy plan: the copy kernel (the copy engines for pinned arenas)
  kCopyEngines,  // its copy-engine plan (Snapshot::plan_copy_engine_restore, built by the caller): no kernel
};

class FullRestore final : public RestoreStrategy {
 public:
  FullRestore(Snapshot& snapshot, RangeGlobals globals, CUstream stream, EntryCopy entry_copy = EntryCopy::kPlan)
      : snapshot_(snapshot), globals_(std::move(globals)), stream_(stream), entry_copy_(entry_copy) {}
  Status capture_exit() override;
  Status restore_entry() override;
  Status read_back() override { return ok_status(); }
  std::uint64_t restored_bytes() const override { return snapshot_.bytes(); }
  Status restore_exit() override;
  void restore_exit_after_failure() override;

 private:
  Snapshot& snapshot_;
  RangeGlobals globals_;
  CUstream stream_;
  EntryCopy entry_copy_;
};

class DifferentialRestore final : public RestoreStrategy {
 public:
  /// `digest_all` (--verify): every restore digests every chunk, so the
  /// digests it found describe the whole state the previous replay left, and
  /// the exit hand-back's digests are read back. `entry_launches`: how many
  /// launches each entry restore takes (RestoreLaunches::kOne inside a pass
  /// of CUPTI's automatic per-kernel ranges, where each is a counter range).
  DifferentialRestore(Snapshot& snapshot, DigestPlan& plan, RangeGlobals globals, CUstream stream, bool digest_all,
                      RestoreLaunches entry_launches, report::RangeRecord& record)
      : snapshot_(snapshot),
        plan_(plan),
        globals_(std::move(globals)),
        stream_(stream),
        digest_all_(digest_all),
        entry_launches_(entry_launches),
        record_(record) {}
  Status capture_exit() override;
  Status restore_entry() override;
  Status read_back() override { return plan_.read_back(stream_); }
  std::uint64_t restored_bytes() const override { return plan_.host_counters().restored_bytes; }
  Status restore_exit() override;
  void restore_exit_after_failure() override;

  /// Whether the exit state is in the plan (every changed chunk fit the exit
  /// arena span); false: it was captured, and is restored, in full.
  bool exit_differential() const { return exit_differential_; }
  DigestPlan& plan() { return plan_; }

 private:
  Snapshot& snapshot_;
  DigestPlan& plan_;
  RangeGlobals globals_;
  CUstream stream_;
  bool digest_all_;
  RestoreLaunches entry_launches_;
  report::RangeRecord& record_;  // the overflow note
  bool exit_differential_ = false;
};

/// RANGEREPLAY_TEST_CORRUPT_RESTORES=1 (tests only, tests/e2e/verify.py): a
/// restore that leaves bytes wrong, so --verify must report divergence and
/// the exit hand-back must still give the application its own bytes. Wraps
/// `inner`: after each entry restore, the first 16 bytes of every allocation
/// of `allocations` are overwritten (0xA5). Returns `inner` itself when the
/// variable is not set.
std::unique_ptr<RestoreStrategy> corrupt_restores_for_tests(std::unique_ptr<RestoreStrategy> inner,
                                                            std::span<const Allocation> allocations, CUstream stream);

/// The tool's stream and the window's four pass timing events, which it owns.
class EventReplayStream final : public ReplayStream {
 public:
  explicit EventReplayStream(CUstream stream) : stream_(stream) {}
  Status create_events() override;
  void release_events() override;
  Status record(Event event) override;
  Status wait(Event event) override;
  Status synchronize() override;
  StatusOr<float> elapsed_ms(Event from, Event to) override;

 private:
  CUstream stream_;
  cu::Event events_[4];
  CUevent event(Event e) const { return events_[static_cast<int>(e)].get(); }
};

/// A user counter range around each replayed kernel, named
/// "<prefix>#<kernel>" (unique in the pass, so CUPTI keeps one row per
/// kernel, in launch order), with cuptiRangeProfilerPushRange / PopRange. The alternative to
/// CUPTI's auto ranges, which make every launch synchronous; on the H200 a
/// user range per kernel cost as much per kernel and pass.
class KernelCounterRanges final : public KernelBrackets {
 public:
  explicit KernelCounterRanges(CounterBackend& counters, std::string prefix = "k")
      : counters_(counters), prefix_(std::move(prefix)) {}
  Status open(std::size_t kernel) override { return counters_.push_range(prefix_ + "#" + std::to_string(kernel)); }
  Status close() override { return counters_.pop_range(); }

 private:
  CounterBackend& counters_;
  std::string prefix_;
};

/// One replay: the recorded program re-submitted on the tool's stream, each
/// kernel inside `brackets` when given.
class ReplayerResubmission final : public Resubmission {
 public:
  ReplayerResubmission(const Replayer& replayer, CUstream stream, KernelBrackets* brackets = nullptr)
      : replayer_(replayer), stream_(stream), brackets_(brackets) {}
  Status submit() override { return replayer_.submit(stream_, brackets_); }

 private:
  const Replayer& replayer_;
  CUstream stream_;
  KernelBrackets* brackets_;
};

}  // namespace rangereplay::tool
