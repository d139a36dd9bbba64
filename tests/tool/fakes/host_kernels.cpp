// Host implementations of the tool's own kernels' launch functions
// (src/cuda/kernels/*.h) for the CPU tests of src/tool: linked into the test
// executable in place of the CUDA objects of rangereplay_cuda_kernels, over
// the fake driver's memory (fake_cuda.h: device addresses are host
// addresses). Each launch runs to completion before it returns.
//   - the copy kernel copies its work items between the regions and the
//     arenas;
//   - the digest kernel computes the same chunk digests as the GPU's
//     (chunk_digest_reference, core/snapshot/digest/chunk_digest.h, the
//     kernel's host reference) and makes the same decisions: digests out,
//     dirty flags, differential copies, exit-arena slots and the counters;
//   - the L2 flush does nothing (there is no cache to flush).
// Each launch that would enqueue a kernel on the GPU counts as one of the
// tool's kernels (launch_count.h, and the fake driver's tool_kernels, which
// the fake counters count in CUPTI's automatic ranges, as CUPTI counts them).
#include <cstring>

#include "core/snapshot/digest/chunk_digest.h"
#include "cuda/kernels/cache_flush_kernel.h"
#include "cuda/kernels/copy_kernel.h"
#include "cuda/kernels/digest_kernel.h"
#include "cuda/kernels/launch_count.h"
#include "tool/fakes/fake_cuda.h"

namespace rangereplay::kernels {
namespace {

template <class T>
T* at(CUdeviceptr address) {
  return reinterpret_cast<T*>(address);
}

// Adds one chunk's outcome to `counters` as the kernel's count_chunk does.
void count(DigestKernelMode mode, DigestCounters& totals, std::uint64_t bytes, bool moved, bool digested,
           bool overflowed) {
  if (digested) totals.digested_bytes += bytes;
  if (mode == DigestKernelMode::kRestore && moved) {
    totals.restored_bytes += bytes;
    ++totals.restored_chunks;
  }
  if (mode == DigestKernelMode::kCaptureChanged) {
    if (moved) {
      totals.captured_bytes += bytes;
      ++totals.captured_chunks;
    }
    if (overflowed) ++totals.capture_overflow_chunks;
  }
}

// Writes a launch's totals where the kernel's last cluster does.
void publish(DigestKernelMode mode, const DigestKernelArgs& args, const DigestCounters& totals) {
  if (args.counters == 0) return;
  auto* out = at<DigestCounters>(args.counters);
  out->digested_bytes = totals.digested_bytes;
  if (mode == DigestKernelMode::kRestore) {
    out->restored_bytes = totals.restored_bytes;
    out->restored_chunks = totals.restored_chunks;
  } else {
    out->captured_bytes = totals.captured_bytes;
    out->captured_chunks = totals.captured_chunks;
    out->capture_overflow_chunks = totals.capture_overflow_chunks;
  }
  if (args.state != 0) *at<DigestCounterState>(args.state) = DigestCounterState{};
}

std::uint64_t restore_source(const DigestKernelArgs& args, const DigestChunkDescriptor& chunk, std::uint32_t c) {
  if (args.source_override != 0 && at<std::uint64_t>(args.source_override)[c] != 0)
    return at<std::uint64_t>(args.source_override)[c];
  return chunk.snapshot_address;
}

}  // namespace

std::uint64_t tool_kernel_launches() { return fake::counts().tool_kernels; }

void count_tool_kernel_launch() { fake::note_tool_kernel(); }

Status launch_l2_flush(CUdeviceptr, std::size_t, CUdeviceptr, CUstream) {
  count_tool_kernel_launch();
  return ok_status();
}

Status launch_copy_kernel_in_order(const CopyKernelArgs& args, bool, int grid_blocks, CUstream) {
  if (args.item_count == 0) return ok_status();
  RR_ASSIGN_OR_RETURN(const int needed, in_order_grid(args.item_count));
  if (grid_blocks != needed) return invalid_argument("copy_in_order_kernel grid does not match its items");
  count_tool_kernel_launch();
  const auto* items = at<const WorkItem>(args.items);
  for (std::uint64_t i = 0; i < args.item_count; ++i) {
    const WorkItem& item = items[i];
    auto* app = reinterpret_cast<unsigned char*>(item.app_address());
    auto* arena = reinterpret_cast<unsigned char*>(args.arena_base[item.arena_slot()] + item.arena_offset());
    if (args.direction == CopyDirection::kCapture)
      std::memcpy(arena, app, item.bytes());
    else
      std::memcpy(app, arena, item.bytes());
  }
  return ok_status();
}

Status launch_digest_kernel(const DigestKernelArgs& args, std::uint32_t cluster_blocks, bool clusters, CUstream) {
  if (cluster_blocks != 1 && cluster_blocks != 2 && cluster_blocks != 4 && cluster_blocks != 8)
    return invalid_argument("digest kernel cluster of " + std::to_string(cluster_blocks) + " blocks");
  if (!clusters && cluster_blocks != 1) return invalid_argument("digest kernel clusters on a device without them");
  if (args.chunk_count == 0) return ok_status();
  const DigestKernelMode mode = args.mode;
  if (args.chunks == 0 || (mode == DigestKernelMode::kDigest && args.digests_out == 0) ||
      (mode != DigestKernelMode::kDigest && (args.reference == 0 || args.dirty == 0)))
    return invalid_argument("digest kernel launch without a required buffer");
  count_tool_kernel_launch();
  const auto* chunks = at<const DigestChunkDescriptor>(args.chunks);
  auto* dirty = at<unsigned char>(args.dirty);
  DigestCounters totals;
  std::uint64_t cursor = 0;
  for (std::uint32_t c = 0; c < args.chunk_count; ++c) {
    const DigestChunkDescriptor& chunk = chunks[c];
    auto* app = reinterpret_cast<unsigned char*>(chunk.app_address);
    const bool trusted = mode == DigestKernelMode::kRestore && args.digests_in != 0;
    const bool predicted = mode == DigestKernelMode::kRestore && !trusted && args.copy_predicted && dirty[c] != 0;
    const bool digesting = !trusted && !predicted;
    std::uint64_t digest = 0;
    if (digesting)
      digest = chunk_digest_reference(app, chunk.bytes);
    else if (trusted)
      digest = at<std::uint64_t>(args.digests_in)[c];
    if (digesting && args.digests_out != 0) at<std::uint64_t>(args.digests_out)[c] = digest;
    if (mode == DigestKernelMode::kDigest) continue;
    const bool copy = predicted || digest != at<std::uint64_t>(args.reference)[c];
    dirty[c] = copy ? 1 : 0;
    bool moved = copy;
    bool overflowed = false;
    if (mode == DigestKernelMode::kRestore) {
      if (copy && !args.defer_copy)
        std::memcpy(app, reinterpret_cast<const void*>(restore_source(args, chunk, c)), chunk.bytes);
    } else {
      std::uint64_t slot = 0;
      if (copy) {
        const std::uint64_t need = (chunk.bytes + kExitSlotAlignment - 1) / kExitSlotAlignment * kExitSlotAlignment;
        if (cursor <= args.exit_arena_bytes && need <= args.exit_arena_bytes - cursor) {
          slot = args.exit_arena + cursor;
          std::memcpy(reinterpret_cast<void*>(slot), app, chunk.bytes);
        }
        cursor += need;
      }
      at<std::uint64_t>(args.exit_locations)[c] = slot;
      moved = copy && slot != 0;
      overflowed = copy && slot == 0;
    }
    count(mode, totals, chunk.bytes, moved, digesting, overflowed);
  }
  publish(mode, args, totals);
  return ok_status();
}

Status launch_chunk_copy_kernel(const DigestKernelArgs& args, CUdeviceptr blocks, std::uint32_t block_count, CUstream) {
  if (block_count == 0) return ok_status();
  if (args.mode != DigestKernelMode::kRestore)
    return invalid_argument("chunk copy launch in a mode other than restore");
  if (args.chunks == 0 || args.dirty == 0 || blocks == 0)
    return invalid_argument("chunk copy launch without a required buffer");
  count_tool_kernel_launch();
  const auto* chunks = at<const DigestChunkDescriptor>(args.chunks);
  auto* dirty = at<unsigned char>(args.dirty);
  const bool trusted = args.digests_in != 0;
  DigestCounters totals;
  std::uint32_t last_chunk = ~0u;
  for (std::uint32_t b = 0; b < block_count; ++b) {
    const ChunkCopyBlock& block = at<const ChunkCopyBlock>(blocks)[b];
    const std::uint32_t c = block.chunk;
    const DigestChunkDescriptor& chunk = chunks[c];
    const bool copy =
        trusted ? at<std::uint64_t>(args.digests_in)[c] != at<std::uint64_t>(args.reference)[c] : dirty[c] != 0;
    if (trusted && c != last_chunk) {  // a chunk's first block flags and counts it
      dirty[c] = copy ? 1 : 0;
      count(DigestKernelMode::kRestore, totals, chunk.bytes, copy, false, false);
    }
    last_chunk = c;
    if (!copy) continue;
    const std::uint32_t bytes = std::min(kChunkCopyBlockBytes, chunk.bytes - block.offset);
    std::memcpy(reinterpret_cast<unsigned char*>(chunk.app_address) + block.offset,
                reinterpret_cast<const unsigned char*>(restore_source(args, chunk, c)) + block.offset, bytes);
  }
  if (trusted) publish(DigestKernelMode::kRestore, args, totals);
  return ok_status();
}

StatusOr<int> digest_kernel_max_active_clusters(std::uint32_t) { return 16; }

}  // namespace rangereplay::kernels
