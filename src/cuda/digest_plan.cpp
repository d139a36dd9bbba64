// DigestPlan: builds, uploads and runs one snapshot's digest work (see digest_plan.h).
#include "cuda/digest_plan.h"

#include <cstring>
#include <string>
#include <utility>

#include "core/snapshot/digest/cluster_blocks.h"
#include "cuda/cu_status.h"

namespace rangereplay {

using kernels::DigestCopyVariant;
using kernels::DigestCounters;
using kernels::DigestCounterState;
using kernels::DigestKernelArgs;
using kernels::DigestKernelMode;

namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }

// Whether the current context's device runs the digest kernel as clusters.
StatusOr<bool> current_device_has_clusters() {
  CUdevice device = 0;
  RR_CU(cuCtxGetDevice(&device));
  int major = 0;
  RR_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  return digest_uses_clusters(major);
}

}  // namespace

StatusOr<DigestPlan> DigestPlan::create(std::span<const DigestRegion> regions, const DigestPlanOptions& options,
                                        CUstream stream) {
  DigestPlan plan;
  RR_ASSIGN_OR_RETURN(plan.driver_, cu::ContextObjects<DriverObjects>::in_current_context("DigestPlan::create"));
  DriverObjects& driver = *plan.driver_;

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
  RR_ASSIGN_OR_RETURN(driver.descriptors, plan.table_.descriptors(snapshots));

  RR_ASSIGN_OR_RETURN(const bool clusters, current_device_has_clusters());
  RR_ASSIGN_OR_RETURN(
      const std::uint32_t cluster_blocks,
      digest_cluster_blocks(options.cluster_blocks, plan.table_.total_bytes(), plan.table_.chunk_count(), clusters));
  const std::uint64_t chunks = plan.table_.chunk_count();
  if (chunks * cluster_blocks > 0x7FFFFFFFull) {
    return out_of_range(std::to_string(chunks) + " digest chunks x " + std::to_string(cluster_blocks) +
                        " blocks exceed one grid (use larger chunks)");
  }
  plan.stats_.total_bytes = plan.table_.total_bytes();
  plan.stats_.chunk_count = chunks;
  plan.stats_.cluster_blocks = cluster_blocks;
  plan.stats_.clusters = clusters;
  plan.stats_.grid_blocks = chunks * cluster_blocks;
  plan.stats_.has_snapshot = has_snapshot;
  plan.stats_.copy_variant = options.copy_variant;
  if (options.copy_variant == DigestCopyVariant::kWarpPerPieceInOrder) {
    RR_ASSIGN_OR_RETURN(driver.copy_blocks, plan.table_.copy_blocks(kernels::kChunkCopyBlockBytes));
    plan.stats_.copy_blocks = driver.copy_blocks.size();
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
  at += driver.copy_blocks.size() * sizeof(ChunkCopyBlock);
  static_assert(sizeof(DigestCounters) % 8 == 0 && sizeof(DigestCounterState) % 8 == 0);

  RR_RETURN_IF_ERROR(plan.driver_.create_done());
  RR_ASSIGN_OR_RETURN(driver.device, cu::allocate_device(at));
  RR_ASSIGN_OR_RETURN(driver.host, cu::allocate_pinned(plan.mirror_bytes_, 0));
  std::memset(driver.host.get(), 0, plan.mirror_bytes_);
  // Zero everything up to the descriptors (counters, digests, flags, state,
  // locations), then upload the descriptors and copy blocks. descriptors and
  // copy_blocks stay alive and unmoved on the heap for the plan's lifetime,
  // so the copies may read them later.
  const CUdeviceptr device = driver.device.get();
  RR_CU(cuMemsetD8Async(device, 0, plan.descriptors_offset_, stream));
  if (chunks > 0) {
    RR_CU(cuMemcpyHtoDAsync(device + plan.descriptors_offset_, driver.descriptors.data(),
                            chunks * sizeof(DigestChunkDescriptor), stream));
  }
  if (!driver.copy_blocks.empty()) {
    RR_CU(cuMemcpyHtoDAsync(device + plan.copy_blocks_offset_, driver.copy_blocks.data(),
                            driver.copy_blocks.size() * sizeof(ChunkCopyBlock), stream));
  }
  RR_RETURN_IF_ERROR(plan.driver_.record_done(stream));
  return StatusOr<DigestPlan>(std::move(plan));
}

DigestKernelArgs DigestPlan::base_args(DigestKernelMode mode) const {
  DigestKernelArgs args;
  args.mode = mode;
  args.chunks = device() + descriptors_offset_;
  args.chunk_count = static_cast<std::uint32_t>(stats_.chunk_count);
  args.counters = device();
  args.state = device() + state_offset_;
  args.dirty = device() + dirty_offset_;
  return args;
}

Status DigestPlan::launch(const DigestKernelArgs& args, CUstream stream) {
  if (!driver_) return failed_precondition("DigestPlan used after it was moved from");
  RR_RETURN_IF_ERROR(kernels::launch_digest_kernel(args, stats_.cluster_blocks, stats_.clusters, stream));
  return driver_.record_done(stream);
}

Status DigestPlan::launch_copy(const DigestKernelArgs& args, CUstream stream) {
  if (!driver_) return failed_precondition("DigestPlan used after it was moved from");
  RR_RETURN_IF_ERROR(kernels::launch_chunk_copy_kernel(args, device() + copy_blocks_offset_,
                                                       static_cast<std::uint32_t>(stats_.copy_blocks), stream));
  return driver_.record_done(stream);
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
    RR_CU(cuMemcpyDtoHAsync(static_cast<unsigned char*>(driver_->host.get()) + current_offset_, device_digests(),
                            stats_.chunk_count * 8, stream));
    RR_RETURN_IF_ERROR(driver_.record_done(stream));
  }
  return ok_status();
}

Status DigestPlan::restore_to(CUstream stream, ChunkRestoreMode mode, RestoreLaunches launches, CUdeviceptr reference,
                              CUdeviceptr source_override) {
  const bool in_order =
      stats_.copy_variant == DigestCopyVariant::kWarpPerPieceInOrder && launches == RestoreLaunches::kPlanVariant;
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

Status DigestPlan::restore(CUstream stream, ChunkRestoreMode mode, RestoreLaunches launches) {
  if (!stats_.has_snapshot) return failed_precondition("DigestPlan::restore: a region has no snapshot address");
  return restore_to(stream, mode, launches, device_entry_digests(), 0);
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
  return restore_to(stream, mode, RestoreLaunches::kPlanVariant, device_exit_digests(), device_exit_locations());
}

Status DigestPlan::read_back(CUstream stream) {
  if (!driver_) return failed_precondition("DigestPlan used after it was moved from");
  RR_CU(cuMemcpyDtoHAsync(driver_->host.get(), device(), mirror_bytes_, stream));
  return driver_.record_done(stream);
}

std::span<const std::uint64_t> DigestPlan::host_entry_digests() const { return host_digests_at(entry_offset_); }
std::span<const std::uint64_t> DigestPlan::host_digests() const { return host_digests_at(current_offset_); }
std::span<const std::uint64_t> DigestPlan::host_exit_digests() const { return host_digests_at(exit_offset_); }
std::span<const std::uint8_t> DigestPlan::host_dirty() const {
  if (!driver_) return {};
  return {host() + dirty_offset_, static_cast<std::size_t>(stats_.chunk_count)};
}
const DigestCounters& DigestPlan::host_counters() const { return *reinterpret_cast<const DigestCounters*>(host()); }

std::span<const std::uint64_t> DigestPlan::host_digests_at(std::uint64_t offset) const {
  if (!driver_) return {};
  return {reinterpret_cast<const std::uint64_t*>(host() + offset), static_cast<std::size_t>(stats_.chunk_count)};
}

CUdeviceptr DigestPlan::device_entry_digests() const { return device() + entry_offset_; }
CUdeviceptr DigestPlan::device_digests() const { return device() + current_offset_; }
CUdeviceptr DigestPlan::device_exit_digests() const { return device() + exit_offset_; }
CUdeviceptr DigestPlan::device_dirty() const { return device() + dirty_offset_; }
CUdeviceptr DigestPlan::device_counters() const { return device(); }
CUdeviceptr DigestPlan::device_exit_locations() const { return device() + locations_offset_; }

}  // namespace rangereplay
