// DigestPlan: builds, uploads and runs one snapshot's digest work (see digest_plan.h).
#include "cuda/digest_plan.h"

#include <cstring>
#include <string>
#include <utility>

#include "cuda/cu_status.h"

namespace rangereplay {

using kernels::DigestCopyVariant;
using kernels::DigestCounters;
using kernels::DigestCounterState;
using kernels::DigestKernelArgs;
using kernels::DigestKernelMode;

namespace {

constexpr std::uint64_t kClusterSliceBytes = std::uint64_t{64} * 1024;  // the least a block should digest

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }

std::uint32_t pick_cluster_blocks(const ChunkTable& table) {
  if (table.chunk_count() == 0) return 1;
  const std::uint64_t mean = table.total_bytes() / table.chunk_count();
  std::uint32_t blocks = 1;
  while (blocks < kernels::kMaxDigestClusterBlocks && mean / kClusterSliceBytes >= std::uint64_t{blocks} * 2) blocks *= 2;
  return blocks;
}

}  // namespace

StatusOr<DigestPlan> DigestPlan::create(std::span<const DigestRegion> regions, const DigestPlanOptions& options,
                                        CUstream stream) {
  DigestPlan plan;
  RR_CU(cuCtxGetCurrent(&plan.context_));
  if (plan.context_ == nullptr) return failed_precondition("DigestPlan::create needs a current CUDA context");

  std::vector<MemoryRange> ranges;
  std::vector<DevicePtr> snapshots;
  ranges.reserve(regions.size());
  snapshots.reserve(regions.size());
  bool has_snapshot = true;
  for (const DigestRegion& r : regions) {
    ranges.push_back(r.app);
    snapshots.push_back(r.snapshot);
    if (!r.app.empty() && r.snapshot.is_null()) has_snapshot = false;
  }
  RR_ASSIGN_OR_RETURN(plan.table_, ChunkTable::build(ranges, options.chunk_bytes));
  RR_ASSIGN_OR_RETURN(plan.descriptors_, plan.table_.descriptors(snapshots));

  const std::uint32_t cluster_blocks =
      options.cluster_blocks == 0 ? pick_cluster_blocks(plan.table_) : options.cluster_blocks;
  if (cluster_blocks != 1 && cluster_blocks != 2 && cluster_blocks != 4 && cluster_blocks != 8) {
    return invalid_argument("digest cluster of " + std::to_string(cluster_blocks) + " blocks (1, 2, 4 or 8)");
  }
  const std::uint64_t chunks = plan.table_.chunk_count();
  if (chunks * cluster_blocks > 0x7FFFFFFFull) {
    return out_of_range(std::to_string(chunks) + " digest chunks x " + std::to_string(cluster_blocks) +
                        " blocks exceed one grid (use larger chunks)");
  }
  plan.stats_.total_bytes = plan.table_.total_bytes();
  plan.stats_.chunk_count = chunks;
  plan.stats_.cluster_blocks = cluster_blocks;
  plan.stats_.grid_blocks = chunks * cluster_blocks;
  plan.stats_.has_snapshot = has_snapshot;
  plan.stats_.copy_variant = options.copy_variant;
  if (options.copy_variant == DigestCopyVariant::kWarpPerPieceInOrder) {
    RR_ASSIGN_OR_RETURN(plan.copy_blocks_, plan.table_.copy_blocks(kernels::kChunkCopyBlockBytes));
    plan.stats_.copy_blocks = plan.copy_blocks_.size();
  } else if (options.copy_variant != DigestCopyVariant::kClusterSlice) {
    return invalid_argument("digest copy variant " + std::to_string(static_cast<int>(options.copy_variant)));
  }

  // Layout of the one device allocation (every part 8-byte aligned).
  std::uint64_t at = sizeof(DigestCounters);
  plan.entry_offset_ = at;
  at += chunks * 8;
  plan.current_offset_ = at;
  at += chunks * 8;
  plan.exit_offset_ = at;
  at += chunks * 8;
  plan.dirty_offset_ = at;
  at += round_up(chunks, 8);
  plan.mirror_bytes_ = at;
  plan.state_offset_ = at;
  at += sizeof(DigestCounterState);
  plan.locations_offset_ = at;
  at += chunks * 8;
  plan.descriptors_offset_ = at;
  at += chunks * sizeof(DigestChunkDescriptor);
  plan.copy_blocks_offset_ = at;
  at += plan.copy_blocks_.size() * sizeof(ChunkCopyBlock);
  static_assert(sizeof(DigestCounters) % 8 == 0 && sizeof(DigestCounterState) % 8 == 0);

  RR_CU(cuEventCreate(&plan.done_, CU_EVENT_DISABLE_TIMING));
  RR_CU(cuMemAlloc(&plan.device_, at));
  RR_CU(cuMemHostAlloc(&plan.host_, plan.mirror_bytes_, 0));
  std::memset(plan.host_, 0, plan.mirror_bytes_);
  // Zero everything up to the descriptors (counters, digests, flags, state,
  // locations), then upload the descriptors and copy blocks. descriptors_ and
  // copy_blocks_ stay alive and unmoved on the heap for the plan's lifetime,
  // so the copies may read them later.
  RR_CU(cuMemsetD8Async(plan.device_, 0, plan.descriptors_offset_, stream));
  if (chunks > 0) {
    RR_CU(cuMemcpyHtoDAsync(plan.device_ + plan.descriptors_offset_, plan.descriptors_.data(),
                            chunks * sizeof(DigestChunkDescriptor), stream));
  }
  if (!plan.copy_blocks_.empty()) {
    RR_CU(cuMemcpyHtoDAsync(plan.device_ + plan.copy_blocks_offset_, plan.copy_blocks_.data(),
                            plan.copy_blocks_.size() * sizeof(ChunkCopyBlock), stream));
  }
  RR_CU(cuEventRecord(plan.done_, stream));
  plan.done_recorded_ = true;
  return StatusOr<DigestPlan>(std::move(plan));
}

DigestPlan::DigestPlan(DigestPlan&& other) noexcept { *this = std::move(other); }

DigestPlan& DigestPlan::operator=(DigestPlan&& other) noexcept {
  if (this == &other) return *this;
  release();
  context_ = std::exchange(other.context_, nullptr);
  table_ = std::move(other.table_);
  stats_ = std::exchange(other.stats_, DigestPlanStats{});
  descriptors_ = std::move(other.descriptors_);
  other.descriptors_.clear();
  copy_blocks_ = std::move(other.copy_blocks_);
  other.copy_blocks_.clear();
  device_ = std::exchange(other.device_, 0);
  host_ = std::exchange(other.host_, nullptr);
  mirror_bytes_ = std::exchange(other.mirror_bytes_, 0);
  entry_offset_ = other.entry_offset_;
  current_offset_ = other.current_offset_;
  exit_offset_ = other.exit_offset_;
  dirty_offset_ = other.dirty_offset_;
  state_offset_ = other.state_offset_;
  locations_offset_ = other.locations_offset_;
  descriptors_offset_ = other.descriptors_offset_;
  copy_blocks_offset_ = other.copy_blocks_offset_;
  exit_captured_ = std::exchange(other.exit_captured_, false);
  done_ = std::exchange(other.done_, nullptr);
  done_recorded_ = std::exchange(other.done_recorded_, false);
  return *this;
}

DigestPlan::~DigestPlan() { release(); }

void DigestPlan::release() noexcept {
  if (context_ == nullptr) return;
  // If the context is already gone, so is everything the plan created in it.
  if (cuCtxPushCurrent(context_) == CUDA_SUCCESS) {
    if (done_recorded_) (void)cuEventSynchronize(done_);
    if (device_ != 0) (void)cuMemFree(device_);
    if (host_ != nullptr) (void)cuMemFreeHost(host_);
    if (done_ != nullptr) (void)cuEventDestroy(done_);
    CUcontext popped = nullptr;
    (void)cuCtxPopCurrent(&popped);
  }
  context_ = nullptr;
  device_ = 0;
  host_ = nullptr;
  done_ = nullptr;
  done_recorded_ = false;
}

DigestKernelArgs DigestPlan::base_args(DigestKernelMode mode) const {
  DigestKernelArgs args;
  args.mode = mode;
  args.chunks = device_ + descriptors_offset_;
  args.chunk_count = static_cast<std::uint32_t>(stats_.chunk_count);
  args.counters = device_;
  args.state = device_ + state_offset_;
  args.dirty = device_ + dirty_offset_;
  return args;
}

Status DigestPlan::launch(const DigestKernelArgs& args, CUstream stream) {
  if (context_ == nullptr) return failed_precondition("DigestPlan used after it was moved from");
  RR_RETURN_IF_ERROR(kernels::launch_digest_kernel(args, stats_.cluster_blocks, stream));
  RR_CU(cuEventRecord(done_, stream));
  done_recorded_ = true;
  return ok_status();
}

Status DigestPlan::launch_copy(const DigestKernelArgs& args, CUstream stream) {
  if (context_ == nullptr) return failed_precondition("DigestPlan used after it was moved from");
  RR_RETURN_IF_ERROR(kernels::launch_chunk_copy_kernel(args, device_ + copy_blocks_offset_,
                                                       static_cast<std::uint32_t>(stats_.copy_blocks), stream));
  RR_CU(cuEventRecord(done_, stream));
  done_recorded_ = true;
  return ok_status();
}

Status DigestPlan::digest_entry(CUstream stream) {
  DigestKernelArgs args = base_args(DigestKernelMode::kDigest);
  args.digests_out = device_entry_digests();
  return launch(args, stream);
}

Status DigestPlan::digest(CUstream stream) {
  DigestKernelArgs args = base_args(DigestKernelMode::kDigest);
  args.digests_out = device_digests();
  RR_RETURN_IF_ERROR(launch(args, stream));
  if (stats_.chunk_count > 0) {
    RR_CU(cuMemcpyDtoHAsync(static_cast<unsigned char*>(host_) + current_offset_, device_digests(),
                            stats_.chunk_count * 8, stream));
    RR_CU(cuEventRecord(done_, stream));
  }
  return ok_status();
}

Status DigestPlan::restore_to(CUstream stream, ChunkRestoreMode mode, CUdeviceptr reference,
                              CUdeviceptr source_override) {
  const bool in_order = stats_.copy_variant == DigestCopyVariant::kWarpPerPieceInOrder;
  DigestKernelArgs args = base_args(DigestKernelMode::kRestore);
  args.reference = reference;
  args.source_override = source_override;
  args.copy_predicted = mode == ChunkRestoreMode::kCopyPredicted;
  if (mode == ChunkRestoreMode::kUseDigests) {
    args.digests_in = device_digests();
  } else {
    args.digests_out = device_digests();
  }
  // In order, trusted digests need no read of the application's memory to
  // decide: the copy launch decides alone.
  if (in_order && mode == ChunkRestoreMode::kUseDigests) return launch_copy(args, stream);
  args.defer_copy = in_order;
  RR_RETURN_IF_ERROR(launch(args, stream));
  if (!in_order) return ok_status();
  return launch_copy(args, stream);  // without digests_in: copies the chunks the launch above flagged
}

Status DigestPlan::restore(CUstream stream, ChunkRestoreMode mode) {
  if (!stats_.has_snapshot) return failed_precondition("DigestPlan::restore: a region has no snapshot address");
  return restore_to(stream, mode, device_entry_digests(), 0);
}

Status DigestPlan::capture_changed(CUstream stream, CUdeviceptr exit_arena, std::uint64_t exit_arena_bytes) {
  if (!stats_.has_snapshot) {
    return failed_precondition("DigestPlan::capture_changed: a region has no snapshot address");
  }
  DigestKernelArgs args = base_args(DigestKernelMode::kCaptureChanged);
  args.reference = device_entry_digests();
  args.digests_out = device_exit_digests();
  args.exit_locations = device_exit_locations();
  args.exit_arena = exit_arena;
  args.exit_arena_bytes = exit_arena == 0 ? 0 : exit_arena_bytes;
  RR_RETURN_IF_ERROR(launch(args, stream));
  exit_captured_ = true;
  return ok_status();
}

Status DigestPlan::restore_exit(CUstream stream, ChunkRestoreMode mode) {
  if (!stats_.has_snapshot) return failed_precondition("DigestPlan::restore_exit: a region has no snapshot address");
  if (!exit_captured_) return failed_precondition("DigestPlan::restore_exit before capture_changed");
  return restore_to(stream, mode, device_exit_digests(), device_exit_locations());
}

Status DigestPlan::read_back(CUstream stream) {
  if (context_ == nullptr) return failed_precondition("DigestPlan used after it was moved from");
  RR_CU(cuMemcpyDtoHAsync(host_, device_, mirror_bytes_, stream));
  RR_CU(cuEventRecord(done_, stream));
  done_recorded_ = true;
  return ok_status();
}

std::span<const std::uint64_t> DigestPlan::host_entry_digests() const {
  return {reinterpret_cast<const std::uint64_t*>(static_cast<const unsigned char*>(host_) + entry_offset_),
          static_cast<std::size_t>(stats_.chunk_count)};
}
std::span<const std::uint64_t> DigestPlan::host_digests() const {
  return {reinterpret_cast<const std::uint64_t*>(static_cast<const unsigned char*>(host_) + current_offset_),
          static_cast<std::size_t>(stats_.chunk_count)};
}
std::span<const std::uint64_t> DigestPlan::host_exit_digests() const {
  return {reinterpret_cast<const std::uint64_t*>(static_cast<const unsigned char*>(host_) + exit_offset_),
          static_cast<std::size_t>(stats_.chunk_count)};
}
std::span<const std::uint8_t> DigestPlan::host_dirty() const {
  return {static_cast<const std::uint8_t*>(host_) + dirty_offset_, static_cast<std::size_t>(stats_.chunk_count)};
}
const DigestCounters& DigestPlan::host_counters() const { return *static_cast<const DigestCounters*>(host_); }

CUdeviceptr DigestPlan::device_entry_digests() const { return device_ + entry_offset_; }
CUdeviceptr DigestPlan::device_digests() const { return device_ + current_offset_; }
CUdeviceptr DigestPlan::device_exit_digests() const { return device_ + exit_offset_; }
CUdeviceptr DigestPlan::device_dirty() const { return device_ + dirty_offset_; }
CUdeviceptr DigestPlan::device_counters() const { return device_; }
CUdeviceptr DigestPlan::device_exit_locations() const { return device_ + locations_offset_; }

}  // namespace rangereplay
