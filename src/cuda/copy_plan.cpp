// CopyPlan: builds, uploads and runs one snapshot's copy work (see copy_plan.h).
#include "cuda/copy_plan.h"

#include <algorithm>
#include <string>
#include <utility>

#include "cuda/cu_status.h"

namespace rangereplay {

static_assert(!pinned_arena_by_kernel(PinnedCopyMethod::kCopyEngine, 1 << 20));
static_assert(pinned_arena_by_kernel(PinnedCopyMethod::kMappedKernel, 1));
static_assert(!pinned_arena_by_kernel(PinnedCopyMethod::kAuto, kAutoKernelAboveSpans));
static_assert(pinned_arena_by_kernel(PinnedCopyMethod::kAuto, kAutoKernelAboveSpans + 1));

using kernels::CopyDirection;

StatusOr<CopyPlan> CopyPlan::create(std::span<const ArenaCopyList> arenas, const CopyPlanOptions& options,
                                    CUstream stream) {
  CopyPlan plan;
  plan.options_ = options;
  RR_ASSIGN_OR_RETURN(plan.driver_, cu::ContextObjects<DriverObjects>::in_current_context("CopyPlan::create"));
  DriverObjects& driver = *plan.driver_;

  std::vector<ArenaSpans> every_arena;
  std::vector<ArenaSpans> kernel_arenas;
  every_arena.reserve(arenas.size());
  std::uint32_t slots = 0;
  for (std::size_t a = 0; a < arenas.size(); ++a) {
    const ArenaCopyList& arena = arenas[a];
    std::size_t spans = 0;  // non-empty ones
    for (std::size_t i = 0; i < arena.spans.size(); ++i) {
      const CopySpan& span = arena.spans[i];
      if (span.bytes == 0) continue;
      ++spans;
      if (span.arena_offset > arena.bytes || span.bytes > arena.bytes - span.arena_offset) {
        return out_of_range("arena " + std::to_string(a) + " span " + std::to_string(i) + " [" +
                            std::to_string(span.arena_offset) + ", +" + std::to_string(span.bytes) +
                            ") ends past the arena's " + std::to_string(arena.bytes) + " bytes");
      }
    }
    every_arena.push_back({static_cast<std::uint32_t>(a), arena.spans});
    if (spans == 0) continue;
    if (arena.base == 0) return invalid_argument("arena " + std::to_string(a) + " has spans but no base address");

    const bool on_host = arena.kind == ArenaKind::kPinnedHost;
    const bool by_kernel =
        on_host ? pinned_arena_by_kernel(options.pinned_method, spans) : !options.device_by_copy_engines;
    if (by_kernel) {
      if (slots == kMaxArenaSlots) {
        return invalid_argument("more than " + std::to_string(kMaxArenaSlots) + " kernel-copied arenas in one plan");
      }
      plan.slot_base_[slots] = arena.base;
      kernel_arenas.push_back({slots, arena.spans});
      ++slots;
      continue;
    }
    for (const CopySpan& span : arena.spans) {
      if (span.bytes == 0) continue;
      plan.ce_app_.push_back(span.app_address.address());
      plan.ce_arena_.push_back(arena.base + span.arena_offset);
      plan.ce_bytes_.push_back(span.bytes);
      plan.ce_on_host_.push_back(on_host);
      plan.stats_.copy_engine_bytes += span.bytes;
    }
  }
  RR_RETURN_IF_ERROR(check_disjoint(every_arena));
  RR_ASSIGN_OR_RETURN(WorkStream stream_items, build_work_stream(kernel_arenas, options.piece_bytes));

  driver.items = std::move(stream_items.items);
  plan.stats_.kernel_bytes = stream_items.total_bytes;
  plan.stats_.kernel_items = driver.items.size();
  plan.stats_.narrow_items = stream_items.narrow_items;
  plan.stats_.copy_engine_spans = plan.ce_bytes_.size();
  plan.stats_.total_bytes = plan.stats_.kernel_bytes + plan.stats_.copy_engine_bytes;

  RR_RETURN_IF_ERROR(plan.driver_.create_done());
  if (!driver.items.empty()) {
    const std::size_t bytes = driver.items.size() * sizeof(WorkItem);
    RR_ASSIGN_OR_RETURN(driver.device_items, cu::allocate_device(bytes));
    // items stays alive (and unmoved on the heap) for the plan's lifetime, so
    // the asynchronous upload may read it at any time.
    RR_CU(cuMemcpyHtoDAsync(driver.device_items.get(), driver.items.data(), bytes, stream));
    RR_RETURN_IF_ERROR(plan.driver_.record_done(stream));

    RR_ASSIGN_OR_RETURN(plan.stats_.grid_blocks, kernels::in_order_grid(driver.items.size()));
  }
  if (options.device_by_copy_engines) {
    // One cuMemcpyAsync per span: CUPTI's automatic ranges count a batch call
    // as a counter range of its own (CopyPlanOptions says more).
    plan.batch_supported_ = false;
    plan.stats_.copy_engine_batched = false;
  }
  if (!plan.ce_bytes_.empty()) {
    CUdevice device = 0;
    RR_CU(cuCtxGetDevice(&device));
    plan.device_ordinal_ = static_cast<int>(device);
    RR_ASSIGN_OR_RETURN(driver.side_stream, cu::create_stream(CU_STREAM_NON_BLOCKING));
    RR_ASSIGN_OR_RETURN(driver.fork, cu::create_event(CU_EVENT_DISABLE_TIMING));
    RR_ASSIGN_OR_RETURN(driver.join, cu::create_event(CU_EVENT_DISABLE_TIMING));
  }
  return StatusOr<CopyPlan>(std::move(plan));
}

const std::vector<WorkItem>& CopyPlan::items() const {
  static const std::vector<WorkItem>& none = *new const std::vector<WorkItem>();  // never destroyed: read at exit
  return driver_ ? driver_->items : none;
}

kernels::CopyKernelArgs CopyPlan::kernel_args(CopyDirection direction) const {
  kernels::CopyKernelArgs args;
  args.direction = direction;
  if (!driver_) return args;
  args.items = driver_->device_items.get();
  args.item_count = driver_->items.size();
  for (std::uint32_t s = 0; s < kMaxArenaSlots; ++s) args.arena_base[s] = slot_base_[s];
  return args;
}

Status CopyPlan::capture(CUstream stream) { return run(CopyDirection::kCapture, stream); }

Status CopyPlan::restore(CUstream stream) { return run(CopyDirection::kRestore, stream); }

Status CopyPlan::run(CopyDirection direction, CUstream stream) {
  if (!driver_) return failed_precondition("CopyPlan used after it was moved from");
  const DriverObjects& driver = *driver_;
  const bool engines = !ce_bytes_.empty();
  if (engines) {
    // Fork: the side stream starts after everything already on `stream`.
    RR_CU(cuEventRecord(driver.fork.get(), stream));
    RR_CU(cuStreamWaitEvent(driver.side_stream.get(), driver.fork.get(), 0));
    RR_RETURN_IF_ERROR(run_copy_engines(direction));
    RR_CU(cuEventRecord(driver.join.get(), driver.side_stream.get()));
  }
  if (!driver.items.empty()) {
    RR_RETURN_IF_ERROR(kernels::launch_copy_kernel_in_order(kernel_args(direction), options_.streaming_cache_hints,
                                                            stats_.grid_blocks, stream));
  }
  // Join: later work on `stream` waits for the copy engines too.
  if (engines) RR_CU(cuStreamWaitEvent(stream, driver.join.get(), 0));
  return driver_.record_done(stream);
}

Status CopyPlan::run_copy_engines(CopyDirection direction) {
  const bool capture = direction == CopyDirection::kCapture;
  std::vector<CUdeviceptr>& dsts = capture ? ce_arena_ : ce_app_;
  std::vector<CUdeviceptr>& srcs = capture ? ce_app_ : ce_arena_;
  const CUstream side_stream = driver_->side_stream.get();
  std::size_t queued = 0;  // copies already queued by batch calls
  if (batch_supported_) {
    // Location hints only matter for managed memory; they are set to where
    // the bytes really are all the same: the application's side on the
    // device, the arena's on the host or the device by its kind.
    CUmemLocation device{};
    device.type = CU_MEM_LOCATION_TYPE_DEVICE;
    device.id = device_ordinal_;
    CUmemLocation host{};
    host.type = CU_MEM_LOCATION_TYPE_HOST;
    CUmemcpyAttributes by_location[2]{};  // [0]: a device arena, [1]: a pinned host arena
    for (int on_host = 0; on_host < 2; ++on_host) {
      CUmemcpyAttributes& attributes = by_location[on_host];
      const CUmemLocation& arena = on_host != 0 ? host : device;
      attributes.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
      attributes.srcLocHint = capture ? device : arena;
      attributes.dstLocHint = capture ? arena : device;
      attributes.flags = CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE;
    }
    std::vector<CUmemcpyAttributes> attributes;
    std::vector<std::size_t> first_copies;  // attributes[j] applies from the call's copy first_copies[j] on
    // At most kMaxCopyEngineBatch copies per call (copy_plan.h says why).
    while (queued < ce_bytes_.size()) {
      const std::size_t count = std::min(kMaxCopyEngineBatch, ce_bytes_.size() - queued);
      attributes.clear();
      first_copies.clear();
      for (std::size_t i = 0; i < count; ++i) {
        if (i > 0 && ce_on_host_[queued + i] == ce_on_host_[queued + i - 1]) continue;
        attributes.push_back(by_location[ce_on_host_[queued + i] ? 1 : 0]);
        first_copies.push_back(i);
      }
      const CUresult result =
          cuMemcpyBatchAsync(dsts.data() + queued, srcs.data() + queued, ce_bytes_.data() + queued, count,
                             attributes.data(), first_copies.data(), attributes.size(), side_stream);
      if (result != CUDA_SUCCESS) {
        // A driver without the batch API (or rejecting its attributes) gets
        // one cuMemcpyAsync per span from here on; any real error resurfaces
        // from those.
        if (result != CUDA_ERROR_NOT_SUPPORTED && result != CUDA_ERROR_INVALID_VALUE) {
          return cu_status(result, "cuMemcpyBatchAsync", __FILE__, __LINE__);
        }
        batch_supported_ = false;
        stats_.copy_engine_batched = false;
        break;
      }
      queued += count;
    }
  }
  for (std::size_t i = queued; i < ce_bytes_.size(); ++i) {
    RR_CU(cuMemcpyAsync(dsts[i], srcs[i], ce_bytes_[i], side_stream));
  }
  return ok_status();
}

}  // namespace rangereplay
