// CopyPlan: capture and restore of a snapshot's regions at the GPU's copy
// floor, built once per snapshot plan and reused by every pass.
//
// A plan takes, per arena (one tier's backing allocation), the list of copy
// spans {application address, arena offset, bytes} the storage planner chose.
// At creation it flattens the spans of every kernel-copied arena into one work
// stream (core/snapshot/work_stream.h), uploads it to device memory once, and sizes the
// copy kernel's grid to it (one block per 8 items). Each capture or
// restore is then one kernel launch (cuda/kernels/copy_kernel.h), plus, for a
// pinned host arena copied by the copy engines, cuMemcpyBatchAsync calls of at
// most kMaxCopyEngineBatch copies each on a side stream forked from and joined
// back into the caller's stream by events, so they overlap the kernel. A plan
// built with CopyPlanOptions::device_by_copy_engines copies its device arenas
// by the copy engines as well, one cuMemcpyAsync per span, and launches no
// kernel. Nothing inside waits on the host.
//
//   std::vector<ArenaCopyList> arenas = {{ArenaKind::kDevice, arena_ptr, arena_bytes, spans}};
//   RR_ASSIGN_OR_RETURN(CopyPlan plan, CopyPlan::create(arenas, {}, stream));
//   RR_RETURN_IF_ERROR(plan.capture(stream));   // at range entry
//   RR_RETURN_IF_ERROR(plan.restore(stream));   // before each replayed pass
//
// Source followed: CUB's DeviceMemcpy::Batched (many buffers copied by one
// kernel launch); here the copy descriptors are a device-resident work stream
// uploaded once per plan, so no launch reads them from host memory.
// Thread-safety: a plan is not safe for concurrent capture/restore calls; the
// caller serializes its passes (as the replay window does).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/base/status.h"
#include "core/snapshot/work_stream.h"
#include "cuda/kernels/copy_kernel.h"
#include "cuda/owned.h"

namespace rangereplay {

/// Where an arena's bytes live.
enum class ArenaKind : std::uint8_t {
  kDevice,      // device memory: copied by the kernel (by the copy engines with device_by_copy_engines)
  kPinnedHost,  // pinned, device-mapped host memory: see PinnedCopyMethod
};

/// Most copies one cuMemcpyBatchAsync call is given; a longer span list takes
/// several calls on the same stream (the same copies, and the same guarantee:
/// none on the order within a batch). Why a bound: copy_bench died of SIGSEGV
/// on the host in its first row whose batch held 4096 copies (pinned tier,
/// 64 MB in 4096 regions), after rows of 1 and 64 copies had passed; the
/// row's other host calls had all run before, with 4096 regions in the device
/// tier or on the same pinned arena in the rows before. Batches of about 1000
/// copies have run (the GPU test's split layout), so calls stay within that.
/// Not proven to be the cause: copy_bench now names the stage of a crash.
inline constexpr std::size_t kMaxCopyEngineBatch = 1024;

/// How a pinned host arena is copied.
enum class PinnedCopyMethod : std::uint8_t {
  kCopyEngine,    // cuMemcpyBatchAsync, one copy per span (the DMA engines)
  kMappedKernel,  // the copy kernel through the mapped pointer (the SMs, over PCIe)
  kAuto,          // per arena: the faster of the two for its span count (pinned_arena_by_kernel)
};

/// Spans of one pinned arena above which kAuto copies it with the mapped
/// kernel. In copy_bench (64 MB) the copy engines restore faster with few
/// spans (1 and 64), and the mapped kernel both captures and restores faster
/// with many (4096; figures in docs/performance.md). The threshold is the
/// batch size (kMaxCopyEngineBatch): past it the engines need several batch
/// calls.
inline constexpr std::size_t kAutoKernelAboveSpans = 1024;

/// Whether a pinned arena with `spans` non-empty spans is copied by the
/// mapped kernel (else by the copy engines) under `method`.
constexpr bool pinned_arena_by_kernel(PinnedCopyMethod method, std::size_t spans) {
  return method == PinnedCopyMethod::kMappedKernel ||
         (method == PinnedCopyMethod::kAuto && spans > kAutoKernelAboveSpans);
}

/// One arena of the plan and the spans placed in it.
struct ArenaCopyList {
  ArenaKind kind = ArenaKind::kDevice;
  /// Device-visible address of the arena's byte 0: a device allocation, or
  /// cuMemHostGetDevicePointer of memory from cuMemHostAlloc(DEVICEMAP).
  CUdeviceptr base = 0;
  std::uint64_t bytes = 0;  // arena size; every span must end within it
  std::vector<CopySpan> spans;
};

struct CopyPlanOptions {
  PinnedCopyMethod pinned_method = PinnedCopyMethod::kCopyEngine;
  /// Bytes per work item: a multiple of 16 in [16, 65536].
  std::uint32_t piece_bytes = kDefaultPieceBytes;
  /// Mark the kernel's loads and stores evict-first (ld/st.global.cs).
  bool streaming_cache_hints = false;
  /// Copy device arenas by the copy engines too, so the plan launches no
  /// kernel, and every span, pinned ones included, by its own cuMemcpyAsync
  /// (no cuMemcpyBatchAsync). For a restore inside a pass of CUPTI's
  /// automatic per-kernel ranges, where every kernel launch is a counter
  /// range of its own, and so is a cuMemcpyBatchAsync call (measured on an
  /// H100: one more counter range per call), while a device-to-device
  /// cuMemcpyAsync is none (bench/cupti_pass_cost, part k; a copy from
  /// pinned host memory was not measured there). Elsewhere the
  /// kernel serves: one launch for any number of spans, where the copy
  /// engines take one copy per span.
  bool device_by_copy_engines = false;
};

/// What a plan moves per pass.
struct CopyPlanStats {
  std::uint64_t total_bytes = 0;        // all spans
  std::uint64_t kernel_bytes = 0;       // spans copied by the kernel
  std::uint64_t copy_engine_bytes = 0;  // spans copied by the copy engines
  std::uint64_t kernel_items = 0;       // work items in the device stream
  std::uint64_t narrow_items = 0;       // items copied with vectors under 16 bytes
  /// Copies per pass on the copy engines: one cuMemcpyAsync each with
  /// device_by_copy_engines, else in batches of <= kMaxCopyEngineBatch.
  std::uint64_t copy_engine_spans = 0;
  /// False when the plan copies one cuMemcpyAsync per span: built with
  /// device_by_copy_engines, or once the driver refused cuMemcpyBatchAsync.
  bool copy_engine_batched = true;
  int grid_blocks = 0;  // the kernel's grid (0: no kernel; else ceil(items / 8), at least 1)
};

class CopyPlan {
 public:
  /// Builds the plan in the current context and uploads its work stream on
  /// `stream` (asynchronously: the first pass must be ordered after it, which
  /// it is when it runs on the same stream).
  ///
  /// At most kMaxArenaSlots (4) arenas may be kernel-copied. Errors:
  /// kInvalidArgument for overlapping spans (check_disjoint), a null arena base
  /// with spans, a bad piece size or more than 4 kernel-copied arenas;
  /// kOutOfRange for a span past its arena's end; kResourceExhausted when the
  /// work stream's device buffer cannot be allocated (16 bytes per piece);
  /// kInternal for other driver errors.
  static StatusOr<CopyPlan> create(std::span<const ArenaCopyList> arenas, const CopyPlanOptions& options,
                                   CUstream stream);

  /// Moving a plan moves its buffers; the moved-from plan fails every call.
  CopyPlan(CopyPlan&&) noexcept = default;
  CopyPlan& operator=(CopyPlan&&) noexcept = default;
  /// Waits for the plan's last pass (an event, not a device sync), then frees
  /// its device buffer, side stream and events. Errors are ignored.
  ~CopyPlan() = default;

  /// Copies every span's application bytes into its arena (range entry).
  /// Asynchronous on `stream`, which must belong to the plan's context (and be
  /// current in it). Errors: kInternal when a launch or copy is rejected.
  Status capture(CUstream stream);
  /// Copies every span's arena bytes back into the application's memory.
  /// Same contract as capture().
  Status restore(CUstream stream);

  const CopyPlanStats& stats() const { return stats_; }
  /// The uploaded work stream (host copy), for tests and reports.
  /// Empty for a moved-from plan.
  const std::vector<WorkItem>& items() const;
  /// The copy kernel's arguments for a pass in `direction`: the uploaded work
  /// stream and the kernel-copied arenas' bases (item_count 0 for a plan
  /// without kernel work or moved from). For benchmarks that time other copy
  /// kernels on the plan's work stream (bench/copy_kernel_variants.cuh);
  /// valid while the plan lives.
  kernels::CopyKernelArgs kernel_args(kernels::CopyDirection direction) const;

 private:
  CopyPlan() = default;
  Status run(kernels::CopyDirection direction, CUstream stream);
  Status run_copy_engines(kernels::CopyDirection direction);

  // What the plan created in its context, freed there after its last pass
  // (cu::ContextObjects, whose `done` event is recorded at the end of every
  // pass and destroyed last), in reverse declaration order: the work
  // stream's device buffer, the side stream, the fork and join events.
  struct DriverObjects {
    // The work stream (host copy): the upload in create() reads it
    // asynchronously, so it lives as long as the device buffer.
    std::vector<WorkItem> items;
    cu::Event join;
    cu::Event fork;
    cu::Stream side_stream;
    cu::DeviceBuffer device_items;
    void abandon() noexcept {
      (void)join.release();
      (void)fork.release();
      (void)side_stream.release();
      (void)device_items.release();
    }
  };
  cu::ContextObjects<DriverObjects> driver_;  // empty once moved from

  CopyPlanOptions options_;
  CopyPlanStats stats_;

  // Kernel path.
  CUdeviceptr slot_base_[kMaxArenaSlots] = {};

  // Copy-engine path: capture copies app_ -> arena_, restore arena_ -> app_;
  // ce_on_host_[i]: span i's arena is pinned host memory (else device
  // memory), the location hint of its arena side. Spans of one arena are
  // consecutive.
  std::vector<CUdeviceptr> ce_app_;
  std::vector<CUdeviceptr> ce_arena_;
  std::vector<std::size_t> ce_bytes_;
  std::vector<bool> ce_on_host_;
  bool batch_supported_ = true;
  int device_ordinal_ = 0;
};

}  // namespace rangereplay
