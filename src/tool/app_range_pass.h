// AppRangePass: the range controller's side of application range replay's
// runs (--replay-mode app-range, --fallback app-range: a run with
// ProfileConfig::app_range). A range the run collects has one counter pass
// counted in the application's own execution (drained first, the caches
// flushed under --cache-control all; the pass is tool/logic/app_range_collector.h's);
// nothing is recorded, snapshotted or replayed, so any API may run inside
// it. A range the run does not collect (another run does, or the first run
// replayed it) is left alone. At a collected range's end the pass stops,
// the counter data is carried to the next run and, after the last pass, the
// values are written into the range's record.
//
// The range controller (range_controller.h) owns it, hands it every range of
// such a run at its begin and end, and lends it the counters
// (range_counters.h: the session, the L2 flush, the pass count) and the
// services of AppRangeServices, which it implements.
//
// Thread-safety: every member is called with the tool's lock held and inside
// an InToolScope. It waits for the GPU (drains) and CUPTI, never for the
// tool's lock of another application thread.
#pragma once

#include <cuda.h>

#include <memory>
#include <optional>

#include "core/base/decline.h"
#include "core/config/profile_config.h"
#include "core/record/capture_state.h"
#include "core/record/module_registry.h"
#include "tool/active_range.h"
#include "tool/logic/app_range_collector.h"
#include "tool/logic/counter_session.h"
#include "tool/logic/tool_mutex.h"
#include "tool/range_counters.h"

namespace rangereplay::tool {

/// What application range replay's runs use of the range controller, which
/// implements it: the admission and the end steps a range shares with the
/// controller's other ranges. Called with the tool's lock held.
class AppRangeServices {
 public:
  /// Why a range in `ctx` cannot begin now (sets up the counters at the
  /// first range); nullopt when it can.
  virtual std::optional<Decline> admit_range(CUcontext ctx) = 0;
  /// At a range's begin with no capture open: stops counters and frees GPU
  /// buffers that ranges ending during a capture left.
  virtual void release_left_over_state() = 0;
  /// The end of a range declined at its begin, or with a capture that began
  /// inside it or is open now: no CUDA or CUPTI call.
  virtual void end_range_without_gpu(std::unique_ptr<ActiveRange> range) = 0;
  /// At a range's end: its decline, notes and times; moves its record into
  /// the report.
  virtual void report_range(ActiveRange& range) = 0;

 protected:
  ~AppRangeServices() = default;
};

/// What application range replay's runs use of the tool around them; every
/// reference outlives them.
struct AppRangePassParts {
  /// The configuration (app_range, --cache-control, --quiet; read when a
  /// range begins: it is loaded after the controller is built).
  const ProfileConfig& config;
  /// Stream captures: a range with one open at its end makes no GPU call.
  const CaptureState& captures;
  /// Module loads and unloads: the range's window is closed at its end.
  ModuleRegistry& modules;
  /// The tool's lock, held by every caller; the pass names its stage.
  ToolMutex& mutex;
  /// The controller's counters: their session (null before its set-up),
  /// the L2 flush and the pass count.
  RangeCounters& counting;
  /// The controller's services.
  AppRangeServices& controller;
};

class AppRangePass {
 public:
  explicit AppRangePass(AppRangePassParts parts)
      : parts_{parts.config, parts.captures, parts.modules, parts.mutex},
        counting_(parts.counting),
        counters_(parts.counting.session()),
        controller_(parts.controller) {}
  AppRangePass(const AppRangePass&) = delete;
  AppRangePass& operator=(const AppRangePass&) = delete;

  /// `range` (built, its layout configured) begins in context `ctx` (null:
  /// none current): left alone when this run does not collect it, else
  /// admitted, drained, flushed under --cache-control all and its pass
  /// begun; the first failure declines it (the range then runs as the
  /// application's own). Returns the range, the controller's open range.
  std::unique_ptr<ActiveRange> begin(std::unique_ptr<ActiveRange> range, CUcontext ctx);
  /// `range` (this run's, begun by begin()) ends: nothing for one left
  /// alone; one declined, closed or with a capture open ends without a GPU
  /// call; otherwise drained, its pass stopped and carried to the next run
  /// (its values after the last pass), and its record reported.
  void end(std::unique_ptr<ActiveRange> range);
  /// The open pass was ended elsewhere (a stream capture began inside the
  /// range): nothing is carried from this run. Nothing without a pass.
  void abandon() {
    if (app_range_) app_range_->abandon();
  }

 private:
  // The parts that are not the controller's, under the names the members
  // read them by.
  struct Parts {
    const ProfileConfig& config;
    const CaptureState& captures;
    ModuleRegistry& modules;
    ToolMutex& mutex;
  };

  Parts parts_;
  RangeCounters& counting_;
  const std::unique_ptr<CounterSession>& counters_;
  AppRangeServices& controller_;
  // This run's pass of its ranges, made with the counters at the first
  // range it collects.
  std::optional<AppRangeCollector> app_range_;
};

}  // namespace rangereplay::tool
