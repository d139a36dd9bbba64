// RangeEnd: the GPU side of a recorded range's end, for the range controller
// (range_controller.h), at the range's end or at the entry of a free inside
// it. close_pass0 closes pass 0 (the range's module window and its events,
// its name no longer a capturing one when no capture began in it, pass 0's
// time); drain_and_replay drains the range's context and then, unless the
// range waits for a batch of deferred ranges, stops pass 0, proves its write
// set, meets the job's other ranks (--collectives replay), runs the replay
// window over the range's restore strategy and evaluates its values (once
// more with a user range pushed around each kernel when CUPTI's automatic
// per-kernel ranges did not add up). The controller decides which end a
// range takes (logic/range_state.h: range_end_path) and writes its record.
//
// Thread-safety: called by the controller with the tool's lock held, inside
// an InToolScope, with the range's context current; it waits for the GPU,
// CUPTI, the rendezvous and the inventory's lock (held for a whole replay
// window), never for the tool's lock of another thread. Nothing here
// throws: failures become the range's decline.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "core/base/decline.h"
#include "core/config/profile_config.h"
#include "core/record/allocation_inventory.h"
#include "core/record/module_registry.h"
#include "tool/active_range.h"
#include "tool/deferred_ranges.h"
#include "tool/entry_snapshots.h"
#include "tool/logic/tool_mutex.h"
#include "tool/range_counters.h"
#include "tool/rank_rendezvous.h"

namespace rangereplay::tool {

/// What a range's end uses of the controller's parts; every reference
/// outlives the RangeEnd.
struct RangeEndParts {
  const ProfileConfig& config;
  /// Locked for a whole replay window: other threads' frees and allocations
  /// wait until it ends.
  AllocationInventory& inventory;
  /// The range's module window, closed at the end of pass 0.
  ModuleRegistry& modules;
  /// The tool's lock, held by every caller; the end names its stage.
  ToolMutex& mutex;
  RangeCounters& counting;
  EntrySnapshots& snapshots;
  /// Whether a range may wait for a batch.
  DeferredRanges& deferred;
  RankRendezvous& peers;
  /// Names of ranges in which a stream capture began (the controller's):
  /// a range of the name that ends without one takes it out.
  std::set<std::string>& capturing_range_names;
};

class RangeEnd {
 public:
  explicit RangeEnd(RangeEndParts parts) : parts_(parts) {}
  RangeEnd(const RangeEnd&) = delete;
  RangeEnd& operator=(const RangeEnd&) = delete;

  /// The first steps of `range`'s end, before any GPU call: its name no
  /// longer a capturing one when no capture began in it, its module window
  /// closed and its events applied (declines, the modules_loaded count),
  /// pass 0's time taken and the window's start stamped.
  void close_pass0(ActiveRange& range);
  /// After close_pass0, in the range's context (`at_free`: at a free inside
  /// the range, as the watchdog's stages say): the drain, then (unless the
  /// range waits for a batch, which is possible only when `may_wait`: true
  /// is returned and nothing else done) pass 0 stopped, the write set
  /// proven, the rendezvous, the replay window and the values, the counters
  /// back in their configured mode. False when the range's end is done
  /// (declined or not); its record is the caller's to report.
  bool drain_and_replay(ActiveRange& range, bool may_wait, bool at_free);
  /// The replayed passes (tool/logic/replay_window.h) of `range` alone, over
  /// its restore strategy, with --verify as its observer, for a caller that
  /// holds the inventory's lock; nullopt when every pass ran, or the range's
  /// decline. The exit state is restored either way.
  std::optional<Decline> replay_window_locked(ActiveRange& range);
  /// Whether a module has been unloaded since `range` ended (its kernels
  /// cannot be launched again).
  bool unloaded_since_end(const ActiveRange& range) const { return parts_.modules.unloads() != range.unloads_at_end; }

 private:
  // After pass 0 stopped and its write set and the rendezvous had their
  // say: the replay window unless declined or every pass was submitted in
  // pass 0 (`all_submitted`), then the values (evaluated, or left to the
  // standing pass's flush), the counter ranges' name and the notes of its
  // rendezvous barriers, captures and host functions.
  void replay_and_evaluate(ActiveRange& range, bool all_submitted);
  // replay_window_locked with the inventory's lock taken.
  std::optional<Decline> replay_window(ActiveRange& range);
  // The notes replay_and_evaluate adds to a range that was not declined.
  void add_replay_notes(ActiveRange& range);

  RangeEndParts parts_;
};

}  // namespace rangereplay::tool
