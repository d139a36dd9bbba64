// ProfilerTool: the profiler inside the application's process. It receives
// CUPTI callbacks (driver API, NVTX, resource), keeps the allocation
// inventory, decides where ranges begin and end, records pass 0, runs the
// replay window at range end and fills the report, written as JSON when the
// process exits (MISSION.md points 1-10; docs/architecture.md).
//
// One instance per process (instance()). Callbacks may come from any
// application thread: `mutex_` guards range state and recording; the
// inventory has its own lock, held for a whole replay window. Nothing here
// throws: failures become a declined range or a line in report.errors.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/allocation_inventory.h"
#include "core/profile_config.h"
#include "core/recorded_program.h"
#include "core/status.h"
#include "cuda/snapshot.h"
#include "cupti/range_profiler_session.h"
#include "report/report_model.h"
#include "tool/metric_evaluator.h"
#include "tool/range_trigger.h"

namespace rangereplay::tool {

class ProfilerTool {
 public:
  static ProfilerTool& instance();

  /// Reads the configuration ($RANGEREPLAY_CONFIG) and subscribes to CUPTI.
  Status initialize();
  /// Writes the report (at process exit).
  void finish();

  void on_driver_api(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data);
  void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData* data);

 private:
  struct ActiveRange {
    std::uint32_t index = 0;     // matched-range number
    std::string name;
    CUcontext ctx = nullptr;
    bool profiled = false;       // counters started for pass 0
    std::optional<std::string> decline_reason;
    std::string decline_detail;
    RecordedProgram program;
    std::optional<Snapshot> snapshot;  // entry and exit states (multi-pass ranges)
    report::RangeRecord record;
    std::chrono::steady_clock::time_point window_start;
  };

  // Range lifecycle (range_controller.cpp).
  void begin_range(const std::string& name, CUcontext ctx);
  void end_range();
  void decline(ActiveRange& range, const char* reason, std::string detail);
  Status ensure_counters(CUcontext ctx);
  Status replay_window(ActiveRange& range);
  Status evaluate(ActiveRange& range);
  void progress(const ActiveRange& range, std::size_t pass);

  // Recording (recording.cpp).
  void record_launch(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void record_memory_op(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void observe_in_range(CUpti_CallbackId cbid, const CUpti_CallbackData* data);
  void track_allocation(CUpti_CallbackId cbid, const CUpti_CallbackData* data);

  ProfileConfig config_;
  bool enabled_ = false;
  AllocationInventory inventory_;
  std::mutex mutex_;
  RangeTrigger trigger_;
  std::unique_ptr<ActiveRange> active_;
  std::uint32_t matched_ranges_ = 0;
  std::uint32_t profiled_ranges_ = 0;
  bool counters_failed_ = false;
  std::string counters_error_;
  std::string counters_reason_;

  // Counter configuration, once per process (ensure_counters).
  std::unique_ptr<cupti::RangeProfilerSession> session_;
  std::unique_ptr<MetricEvaluator> evaluator_;
  std::uint32_t pass_count_ = 0;
  CUstream tool_stream_ = nullptr;
  // Snapshot tiers for the process: retained arenas are reused across ranges.
  std::unique_ptr<SnapshotStorage> snapshot_storage_;

  report::Report report_;
  std::atomic<bool> finished_{false};
};

/// True while the current thread runs the tool's own CUDA work; callbacks
/// return at once then, so replays are never recorded again.
bool in_tool();
class InToolScope {
 public:
  InToolScope();
  ~InToolScope();
  InToolScope(const InToolScope&) = delete;
  InToolScope& operator=(const InToolScope&) = delete;
 private:
  bool previous_;
};

}  // namespace rangereplay::tool
