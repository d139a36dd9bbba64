// The digest kernel and its launch (see digest_kernel.h for the design and
// core/snapshot/digest/chunk_digest.h for the hash).
#include "cuda/kernels/digest_kernel.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <string>

#include "core/snapshot/digest/chunk_digest.h"
#include "core/snapshot/work_stream.h"
#include "cuda/kernels/launch_count.h"
#include "cuda/kernels/runtime_status.h"
#include "cuda/kernels/warp_copy.cuh"

namespace rangereplay::kernels {
namespace {

namespace cg = cooperative_groups;

constexpr std::uint32_t kThreads = kDigestBlockThreads;
constexpr std::uint32_t kWarps = kThreads / 32;
// 16-byte words in flight per thread while digesting (96 bytes per thread,
// 24 KiB per block, 96 KiB per SM at 4 blocks; 8 spills at 64 registers).
constexpr std::uint32_t kDigestUnroll = 6;
// Vectors in flight per thread while copying a changed chunk back.
constexpr std::uint32_t kCopyUnroll = 4;

static_assert(kThreads % 32 == 0 && kThreads >= 32, "head and tail bytes need lanes 0..31");

struct Partial {
  unsigned long long a;
  unsigned long long b;
};

__device__ __forceinline__ std::uint64_t low_half(const uint4& v) {
  return v.x | (static_cast<std::uint64_t>(v.y) << 32);
}
__device__ __forceinline__ std::uint64_t high_half(const uint4& v) {
  return v.z | (static_cast<std::uint64_t>(v.w) << 32);
}

// Elements [first, end) of src, thread t taking first + t, first + t +
// kThreads, ...: each round issues its kUnroll loads before passing them, in
// order, to use(value, index), so kUnroll loads per thread are in flight.
// Full rounds are straight-line code; the last partial round is predicated.
// Loads are evict-first (ld.global.cs): every element is read once.
template <std::uint32_t kUnroll, typename T, typename Use>
__device__ __forceinline__ void for_each_loaded(const T* src, std::uint32_t first, std::uint32_t end, std::uint32_t tid,
                                                Use use) {
  std::uint32_t i = first + tid;
#pragma unroll 1
  for (; i + (kUnroll - 1) * kThreads < end; i += kUnroll * kThreads) {
    T v[kUnroll];
#pragma unroll
    for (std::uint32_t k = 0; k < kUnroll; ++k) v[k] = __ldcs(src + i + k * kThreads);
#pragma unroll
    for (std::uint32_t k = 0; k < kUnroll; ++k) use(v[k], i + k * kThreads);
  }
  if (i < end) {
    T v[kUnroll];
#pragma unroll
    for (std::uint32_t k = 0; k < kUnroll; ++k) {
      if (i + k * kThreads < end) v[k] = __ldcs(src + i + k * kThreads);
    }
#pragma unroll
    for (std::uint32_t k = 0; k < kUnroll; ++k) {
      if (i + k * kThreads < end) use(v[k], i + k * kThreads);
    }
  }
}

// Words [first, end) of a 16-byte aligned chunk, kDigestUnroll 16-byte loads
// per thread in flight (for_each_loaded).
__device__ __forceinline__ void digest_words_16(DigestAccumulator& acc, const uint4* words, std::uint32_t first,
                                                std::uint32_t end, std::uint32_t tid) {
  for_each_loaded<kDigestUnroll>(
      words, first, end, tid, [&acc](const uint4& v, std::uint32_t w) { acc.add_word(low_half(v), high_half(v), w); });
}

// The same for a chunk aligned only to sizeof(T) (8, 4, 2 or 1 bytes): each
// word is assembled from 16 / sizeof(T) little-endian loads.
template <typename T>
__device__ __forceinline__ void digest_words_narrow(DigestAccumulator& acc, const unsigned char* chunk,
                                                    std::uint32_t first, std::uint32_t end, std::uint32_t tid) {
  constexpr std::uint32_t kHalf = 8 / sizeof(T);
  constexpr std::uint32_t kBits = 8 * sizeof(T);
#pragma unroll 1
  for (std::uint32_t w = first + tid; w < end; w += kThreads) {
    const T* p = reinterpret_cast<const T*>(chunk + static_cast<std::uint64_t>(w) * 16);
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
#pragma unroll
    for (std::uint32_t k = 0; k < kHalf; ++k) {
      lo |= static_cast<std::uint64_t>(p[k]) << (kBits * k);
      hi |= static_cast<std::uint64_t>(p[kHalf + k]) << (kBits * k);
    }
    acc.add_word(lo, hi, w);
  }
}

// This block's words [w0, w1) of a chunk of `bytes` bytes at `chunk`: full
// words with the widest loads the chunk's alignment allows, then the chunk's
// last partial word (if this block owns it) byte by byte, zero-padded.
__device__ __forceinline__ void digest_slice(DigestAccumulator& acc, const unsigned char* chunk, std::uint32_t bytes,
                                             std::uint32_t w0, std::uint32_t w1, std::uint32_t tid) {
  const std::uint32_t full = bytes / 16;
  const std::uint32_t full_end = w1 < full ? w1 : full;
  if (w0 < full_end) {
    const auto misalignment = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(chunk)) & 15u;
    if (misalignment == 0) {
      digest_words_16(acc, reinterpret_cast<const uint4*>(chunk), w0, full_end, tid);
    } else if ((misalignment & 7u) == 0) {
      digest_words_narrow<unsigned long long>(acc, chunk, w0, full_end, tid);
    } else if ((misalignment & 3u) == 0) {
      digest_words_narrow<unsigned int>(acc, chunk, w0, full_end, tid);
    } else if ((misalignment & 1u) == 0) {
      digest_words_narrow<unsigned short>(acc, chunk, w0, full_end, tid);
    } else {
      digest_words_narrow<unsigned char>(acc, chunk, w0, full_end, tid);
    }
  }
  const std::uint32_t tail = bytes % 16;
  if (tail != 0 && tid == 0 && full >= w0 && full < w1) {
    const unsigned char* p = chunk + static_cast<std::uint64_t>(full) * 16;
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    for (std::uint32_t i = 0; i < tail; ++i) {
      const std::uint64_t b = p[i];
      if (i < 8) {
        lo |= b << (8 * i);
      } else {
        hi |= b << (8 * (i - 8));
      }
    }
    acc.add_word(lo, hi, full);
  }
}

// Sum of every thread's accumulator, valid in thread 0.
__device__ __forceinline__ Partial block_sum(const DigestAccumulator& acc, Partial* s_warp, std::uint32_t tid) {
  auto a = static_cast<unsigned long long>(acc.a);
  auto b = static_cast<unsigned long long>(acc.b);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    a += __shfl_down_sync(0xFFFFFFFFu, a, offset);
    b += __shfl_down_sync(0xFFFFFFFFu, b, offset);
  }
  if ((tid & 31u) == 0) s_warp[tid / 32] = Partial{a, b};
  __syncthreads();
  Partial total{0, 0};
  if (tid == 0) {
#pragma unroll
    for (std::uint32_t w = 0; w < kWarps; ++w) {
      total.a += s_warp[w].a;
      total.b += s_warp[w].b;
    }
  }
  return total;
}

// n elements of T from src to dst (both aligned to sizeof(T)), kUnroll per
// thread in flight, loads before stores (for_each_loaded).
template <typename T, std::uint32_t kUnroll>
__device__ __forceinline__ void copy_vectors(unsigned char* dst, const unsigned char* src, std::uint32_t n,
                                             std::uint32_t tid) {
  T* d = reinterpret_cast<T*>(dst);
  for_each_loaded<kUnroll>(reinterpret_cast<const T*>(src), 0, n, tid, [d](const T& v, std::uint32_t i) { d[i] = v; });
}

// The block copies `len` bytes, split as split_piece() says
// (core/snapshot/work_stream.h): head bytes on threads 0..15, tail bytes on threads
// 16..31, the body as the widest vectors src and dst both allow.
__device__ __forceinline__ void block_copy(unsigned char* dst, const unsigned char* src, std::uint32_t len,
                                           std::uint32_t tid) {
  const PieceSplit split = split_piece(reinterpret_cast<std::uint64_t>(src), reinterpret_cast<std::uint64_t>(dst), len);
  if (tid < split.head) dst[tid] = src[tid];
  if (tid >= 16 && tid - 16 < split.tail) {
    const std::uint32_t at = split.head + split.body + (tid - 16);
    dst[at] = src[at];
  }
  unsigned char* d = dst + split.head;
  const unsigned char* s = src + split.head;
  switch (split.width) {
    case 16: copy_vectors<uint4, kCopyUnroll>(d, s, split.body / 16, tid); break;
    case 8: copy_vectors<unsigned long long, 1>(d, s, split.body / 8, tid); break;
    case 4: copy_vectors<unsigned int, 1>(d, s, split.body / 4, tid); break;
    case 2: copy_vectors<unsigned short, 1>(d, s, split.body / 2, tid); break;
    default: copy_vectors<unsigned char, 1>(d, s, split.body, tid); break;
  }
}

// Counts one chunk of `bytes` bytes of a kRestore or kCaptureChanged launch
// (one thread per chunk): whether it was moved (copied, or is to be), read to
// digest, or (kCaptureChanged) changed without an exit slot. The thread that
// counts the launch's last chunk publishes the totals and zeroes the
// accumulators for the next launch (CUDA's threadFenceReduction pattern).
template <DigestKernelMode kMode>
__device__ __forceinline__ void count_chunk(DigestCounterState* state, DigestCounters* out, std::uint32_t chunk_count,
                                            std::uint32_t bytes, bool moved, bool digested, bool overflow) {
  if constexpr (kMode == DigestKernelMode::kCaptureChanged) {
    if (overflow) atomicAdd(&state->overflow, 1ull);
  }
  if (moved) {
    atomicAdd(&state->bytes, static_cast<unsigned long long>(bytes));
    atomicAdd(&state->chunks, 1ull);
  }
  if (digested) atomicAdd(&state->digested, static_cast<unsigned long long>(bytes));
  __threadfence();
  const unsigned int ticket = atomicAdd(&state->done_clusters, 1u);
  if (ticket == chunk_count - 1) {
    __threadfence();
    const unsigned long long total_bytes = atomicExch(&state->bytes, 0ull);
    const unsigned long long total_chunks = atomicExch(&state->chunks, 0ull);
    out->digested_bytes = atomicExch(&state->digested, 0ull);
    if constexpr (kMode == DigestKernelMode::kRestore) {
      out->restored_bytes = total_bytes;
      out->restored_chunks = total_chunks;
    } else {
      out->captured_bytes = total_bytes;
      out->captured_chunks = total_chunks;
      out->capture_overflow_chunks = atomicExch(&state->overflow, 0ull);
      atomicExch(&state->cursor, 0ull);
    }
    atomicExch(&state->done_clusters, 0u);
  }
}

// The blocks of one chunk. From sm_90 on: the thread-block cluster the kernel
// was launched with, whose blocks read each other's shared memory. Before
// sm_90 there are no clusters: the host launches one block per chunk without
// the cluster attribute (digest_uses_clusters, core/snapshot/digest/cluster_blocks.h),
// and this stand-in gives that block the cluster's calls (its own shared
// memory is rank 0's; a cluster barrier is a block barrier).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ __forceinline__ cg::cluster_group chunk_blocks() { return cg::this_cluster(); }
#else
struct SingleBlockCluster {
  __device__ __forceinline__ unsigned int num_blocks() const { return 1; }
  __device__ __forceinline__ unsigned int block_rank() const { return 0; }
  __device__ __forceinline__ void sync() const { __syncthreads(); }
  template <typename T>
  __device__ __forceinline__ T* map_shared_rank(T* address, int /*rank*/) const {
    return address;
  }
  __device__ __forceinline__ void barrier_arrive() const {}
  __device__ __forceinline__ void barrier_wait() const {}
};
__device__ __forceinline__ SingleBlockCluster chunk_blocks() { return {}; }
#endif

// One cluster per chunk. Every thread of every block passes the same cluster
// barriers: (1) after the partial sums, (2) kCaptureChanged only, after rank
// 0 published the exit slot, (3) arrive once a block reads no more
// distributed shared memory, wait just before exiting (so no block's shared
// memory disappears while another reads it). kDeferCopy (kRestore only):
// the same decisions, flags and counts, no copy; the clusters of predicted
// chunks only flag and count, and pass no barrier (they touch no shared memory).
template <DigestKernelMode kMode, bool kDeferCopy>
__global__ void __launch_bounds__(kThreads, 4) digest_kernel(const DigestKernelArgs args) {
  static_assert(!kDeferCopy || kMode == DigestKernelMode::kRestore, "only a restore defers its copy");
  const auto cluster = chunk_blocks();
  const std::uint32_t cluster_blocks = cluster.num_blocks();
  const std::uint32_t rank = cluster.block_rank();
  const std::uint32_t c = blockIdx.x / cluster_blocks;
  const std::uint32_t tid = threadIdx.x;

  __shared__ Partial s_warp[kWarps];
  __shared__ Partial s_partial;  // this block's sums, read by the whole cluster
  __shared__ unsigned long long s_digest;
  __shared__ unsigned long long s_slot;  // rank 0's exit-arena slot, read by the whole cluster

  const DigestChunkDescriptor chunk = reinterpret_cast<const DigestChunkDescriptor*>(args.chunks)[c];
  auto* app = reinterpret_cast<unsigned char*>(chunk.app_address);
  const std::uint32_t bytes = chunk.bytes;
  const std::uint32_t words = (bytes + 15) / 16;
  const std::uint32_t per_block = (words + cluster_blocks - 1) / cluster_blocks;
  const std::uint32_t w0 = rank * per_block < words ? rank * per_block : words;
  const std::uint32_t w1 = words - w0 < per_block ? words : w0 + per_block;
  auto* dirty = reinterpret_cast<unsigned char*>(args.dirty);

  // Cluster-uniform: every block of the cluster reads the same flag, before
  // barrier (1); rank 0 rewrites it only after (1).
  bool trusted = false;
  bool predicted = false;
  if constexpr (kMode == DigestKernelMode::kRestore) {
    trusted = args.digests_in != 0;
    predicted = !trusted && args.copy_predicted && dirty[c] != 0;
  }
  const bool digesting = !trusted && !predicted;
  if constexpr (kDeferCopy) {
    if (predicted) {  // cluster-uniform; the flag stays 1 for the copy launch
      if (rank == 0 && tid == 0) {
        count_chunk<kMode>(reinterpret_cast<DigestCounterState*>(args.state),
                           reinterpret_cast<DigestCounters*>(args.counters), args.chunk_count, bytes, true, false,
                           false);
      }
      return;
    }
  }

  if (digesting) {
    DigestAccumulator acc;
    digest_slice(acc, app, bytes, w0, w1, tid);
    const Partial sum = block_sum(acc, s_warp, tid);
    if (tid == 0) s_partial = sum;
  }
  cluster.sync();  // (1)

  unsigned long long digest = 0;
  if (digesting) {
    if (tid == 0) {
      DigestAccumulator total;
      for (std::uint32_t r = 0; r < cluster_blocks; ++r) {
        const Partial* remote = cluster.map_shared_rank(&s_partial, static_cast<int>(r));
        total.a += remote->a;
        total.b += remote->b;
      }
      s_digest = total.finish(bytes);
    }
    __syncthreads();
    digest = s_digest;
  } else if (trusted) {
    digest = reinterpret_cast<const unsigned long long*>(args.digests_in)[c];
  }

  bool copy = false;
  if constexpr (kMode != DigestKernelMode::kDigest) {
    copy = predicted || digest != reinterpret_cast<const unsigned long long*>(args.reference)[c];
  }

  unsigned long long slot = 0;
  if constexpr (kMode == DigestKernelMode::kCaptureChanged) {
    if (rank == 0 && tid == 0) {
      unsigned long long at_address = 0;
      if (copy) {
        auto* state = reinterpret_cast<DigestCounterState*>(args.state);
        const unsigned long long need = (bytes + kExitSlotAlignment - 1) / kExitSlotAlignment * kExitSlotAlignment;
        const unsigned long long at = atomicAdd(&state->cursor, need);
        if (at <= args.exit_arena_bytes && need <= args.exit_arena_bytes - at) at_address = args.exit_arena + at;
      }
      s_slot = at_address;
    }
    cluster.sync();  // (2)
    slot = *cluster.map_shared_rank(&s_slot, 0);
  }

  cluster.barrier_arrive();  // (3)

  if (copy && !kDeferCopy) {
    const std::uint64_t begin = static_cast<std::uint64_t>(w0) * 16;
    const std::uint64_t end = static_cast<std::uint64_t>(w1) * 16 < bytes ? static_cast<std::uint64_t>(w1) * 16 : bytes;
    const unsigned char* src = nullptr;
    unsigned char* dst = nullptr;
    if constexpr (kMode == DigestKernelMode::kRestore) {
      std::uint64_t from = chunk.snapshot_address;
      if (args.source_override != 0) {
        const unsigned long long other = reinterpret_cast<const unsigned long long*>(args.source_override)[c];
        if (other != 0) from = other;
      }
      src = reinterpret_cast<const unsigned char*>(from);
      dst = app;
    } else {
      src = app;
      dst = reinterpret_cast<unsigned char*>(slot);
    }
    if (begin < end && src != nullptr && dst != nullptr) {
      block_copy(dst + begin, src + begin, static_cast<std::uint32_t>(end - begin), tid);
    }
  }

  if (rank == 0 && tid == 0) {
    if (digesting && args.digests_out != 0) reinterpret_cast<unsigned long long*>(args.digests_out)[c] = digest;
    if constexpr (kMode != DigestKernelMode::kDigest) {
      dirty[c] = copy ? 1 : 0;
      bool moved = copy;
      if constexpr (kMode == DigestKernelMode::kCaptureChanged) {
        reinterpret_cast<unsigned long long*>(args.exit_locations)[c] = slot;
        moved = copy && slot != 0;
      }
      count_chunk<kMode>(reinterpret_cast<DigestCounterState*>(args.state),
                         reinterpret_cast<DigestCounters*>(args.counters), args.chunk_count, bytes, moved, digesting,
                         kMode == DigestKernelMode::kCaptureChanged && copy && slot == 0);
    }
  }

  cluster.barrier_wait();  // (3)
}

// ---- The in-order chunk copy (DigestCopyVariant::kWarpPerPieceInOrder) ----

// How chunk_copy_kernel decides whether chunk c is copied.
enum class ChunkCopyDecision : std::uint8_t {
  kDirtyFlag,      // dirty[c] != 0; writes nothing but the application's memory
  kDigestsDiffer,  // digests_in[c] != reference[c]; flags and counts as a kRestore launch
};

// Block b copies pieces [0, kChunkCopyBlockPieces) of ChunkCopyBlock b, warp
// k piece k, when the chunk is to be copied, then exits: the grid covers
// every chunk's bytes, so blocks (and with them pieces) start in stream order
// as earlier ones retire. Every early return is warp-uniform (the decision is
// per chunk, the piece per warp). The descriptors are plain loads: read
// through the read-only path (__ldg), they cost the copy loop 60 bytes of
// spills at 64 registers (ptxas, CUDA 13.0).
template <ChunkCopyDecision kDecision>
__global__ void __launch_bounds__(kThreads, 4) chunk_copy_kernel(const DigestKernelArgs args, CUdeviceptr blocks) {
  const std::uint32_t lane = threadIdx.x % warp_copy::kWarpLanes;
  const std::uint32_t warp = threadIdx.x / warp_copy::kWarpLanes;
  const uint2 block = __ldg(reinterpret_cast<const uint2*>(blocks) + blockIdx.x);  // a ChunkCopyBlock
  const std::uint32_t c = block.x;
  const DigestChunkDescriptor chunk = reinterpret_cast<const DigestChunkDescriptor*>(args.chunks)[c];
  std::uint64_t from = 0;
  if (args.source_override != 0) from = reinterpret_cast<const unsigned long long*>(args.source_override)[c];

  bool copy = false;
  if constexpr (kDecision == ChunkCopyDecision::kDirtyFlag) {
    copy = reinterpret_cast<const unsigned char*>(args.dirty)[c] != 0;
  } else {
    copy = reinterpret_cast<const unsigned long long*>(args.digests_in)[c] !=
           reinterpret_cast<const unsigned long long*>(args.reference)[c];
    if (block.y == 0 && threadIdx.x == 0) {  // the chunk's first block counts it
      reinterpret_cast<unsigned char*>(args.dirty)[c] = copy ? 1 : 0;
      count_chunk<DigestKernelMode::kRestore>(reinterpret_cast<DigestCounterState*>(args.state),
                                              reinterpret_cast<DigestCounters*>(args.counters), args.chunk_count,
                                              chunk.bytes, copy, false, false);
    }
  }

  const std::uint32_t offset = block.y + warp * kChunkCopyPieceBytes;
  if (!copy || offset >= chunk.bytes) return;
  if (from == 0) from = chunk.snapshot_address;
  if (from == 0) return;  // no source (a digest-only plan never restores)
  const std::uint32_t left = chunk.bytes - offset;
  warp_copy::copy_piece<false>(reinterpret_cast<unsigned char*>(chunk.app_address) + offset,
                               reinterpret_cast<const unsigned char*>(from) + offset,
                               left < kChunkCopyPieceBytes ? left : kChunkCopyPieceBytes, lane);
}

static_assert(kChunkCopyBlockPieces * 32 == kThreads, "chunk_copy_kernel gives each warp one piece");
static_assert(sizeof(ChunkCopyBlock) == sizeof(uint2) && offsetof(ChunkCopyBlock, offset) == 4,
              "chunk_copy_kernel reads a ChunkCopyBlock as a uint2 (chunk, offset)");

// Without clusters (`attribute` null): one block per chunk, no attribute.
cudaLaunchConfig_t cluster_config(std::uint32_t grid_blocks, std::uint32_t cluster_blocks, cudaStream_t stream,
                                  cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid_blocks, 1, 1);
  config.blockDim = dim3(kThreads, 1, 1);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  if (attribute == nullptr) return config;
  attribute->id = cudaLaunchAttributeClusterDimension;
  attribute->val.clusterDim.x = cluster_blocks;
  attribute->val.clusterDim.y = 1;
  attribute->val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

template <DigestKernelMode kMode, bool kDeferCopy = false>
cudaError_t launch_mode(const DigestKernelArgs& args, std::uint32_t cluster_blocks, bool clusters,
                        cudaStream_t stream) {
  cudaLaunchAttribute attribute[1] = {};
  const cudaLaunchConfig_t config =
      cluster_config(args.chunk_count * cluster_blocks, cluster_blocks, stream, clusters ? attribute : nullptr);
  return cudaLaunchKernelEx(&config, digest_kernel<kMode, kDeferCopy>, args);
}

bool valid_cluster(std::uint32_t cluster_blocks) {
  return cluster_blocks == 1 || cluster_blocks == 2 || cluster_blocks == 4 || cluster_blocks == 8;
}

}  // namespace

Status launch_digest_kernel(const DigestKernelArgs& args, std::uint32_t cluster_blocks, bool clusters,
                            CUstream stream) {
  if (args.chunk_count == 0) return ok_status();
  if (!valid_cluster(cluster_blocks) || (!clusters && cluster_blocks != 1)) {
    return invalid_argument("digest_kernel cluster of " + std::to_string(cluster_blocks) + " blocks" +
                            (clusters ? "" : " without thread-block clusters"));
  }
  if (static_cast<std::uint64_t>(args.chunk_count) * cluster_blocks > static_cast<std::uint64_t>(INT_MAX)) {
    return invalid_argument("digest_kernel grid of " + std::to_string(args.chunk_count) + " x " +
                            std::to_string(cluster_blocks) + " blocks exceeds 2^31 - 1");
  }
  if (args.chunks == 0) return invalid_argument("digest_kernel without a chunk table");
  const bool compares = args.mode != DigestKernelMode::kDigest;
  if (args.mode == DigestKernelMode::kDigest && args.digests_out == 0) {
    return invalid_argument("digest_kernel kDigest without an output buffer");
  }
  if (compares && (args.reference == 0 || args.dirty == 0 || args.counters == 0 || args.state == 0)) {
    return invalid_argument("digest_kernel restore/capture without reference digests, flags or counters");
  }
  if (args.mode == DigestKernelMode::kCaptureChanged && args.exit_locations == 0) {
    return invalid_argument("digest_kernel kCaptureChanged without exit locations");
  }
  if (args.defer_copy && args.mode != DigestKernelMode::kRestore) {
    return invalid_argument("digest_kernel defers the copy of a restore only");
  }
  cudaStream_t cuda_stream = stream;  // the same type as CUstream
  cudaError_t error = cudaSuccess;
  switch (args.mode) {
    case DigestKernelMode::kDigest:
      error = launch_mode<DigestKernelMode::kDigest>(args, cluster_blocks, clusters, cuda_stream);
      break;
    case DigestKernelMode::kRestore:
      error = args.defer_copy
                  ? launch_mode<DigestKernelMode::kRestore, true>(args, cluster_blocks, clusters, cuda_stream)
                  : launch_mode<DigestKernelMode::kRestore>(args, cluster_blocks, clusters, cuda_stream);
      break;
    case DigestKernelMode::kCaptureChanged:
      error = launch_mode<DigestKernelMode::kCaptureChanged>(args, cluster_blocks, clusters, cuda_stream);
      break;
  }
  if (error != cudaSuccess) {
    (void)cudaGetLastError();  // do not leave the error sticky for others
  } else {
    count_tool_kernel_launch();
  }
  return runtime_status(error, "cudaLaunchKernelEx(digest_kernel)");
}

Status launch_chunk_copy_kernel(const DigestKernelArgs& args, CUdeviceptr blocks, std::uint32_t block_count,
                                CUstream stream) {
  if (block_count == 0) return ok_status();
  if (block_count > static_cast<std::uint32_t>(INT_MAX)) {
    return invalid_argument("chunk_copy_kernel grid of " + std::to_string(block_count) + " blocks exceeds 2^31 - 1");
  }
  if (args.mode != DigestKernelMode::kRestore) return invalid_argument("chunk_copy_kernel copies for a restore only");
  if (blocks == 0 || args.chunks == 0 || args.dirty == 0) {
    return invalid_argument("chunk_copy_kernel without its blocks, chunk table or flags");
  }
  const bool by_digests = args.digests_in != 0;
  if (by_digests && (args.reference == 0 || args.counters == 0 || args.state == 0)) {
    return invalid_argument("chunk_copy_kernel with trusted digests but no reference digests or counters");
  }
  cudaStream_t cuda_stream = stream;  // the same type as CUstream
  if (by_digests) {
    chunk_copy_kernel<ChunkCopyDecision::kDigestsDiffer><<<block_count, kThreads, 0, cuda_stream>>>(args, blocks);
  } else {
    chunk_copy_kernel<ChunkCopyDecision::kDirtyFlag><<<block_count, kThreads, 0, cuda_stream>>>(args, blocks);
  }
  const cudaError_t error = cudaGetLastError();
  if (error == cudaSuccess) count_tool_kernel_launch();
  return runtime_status(error, "chunk_copy_kernel launch");
}

StatusOr<int> digest_kernel_max_active_clusters(std::uint32_t cluster_blocks) {
  if (!valid_cluster(cluster_blocks)) {
    return invalid_argument("digest_kernel cluster of " + std::to_string(cluster_blocks) + " blocks");
  }
  cudaLaunchAttribute attribute[1] = {};
  const cudaLaunchConfig_t config = cluster_config(cluster_blocks, cluster_blocks, nullptr, attribute);
  int clusters = 0;
  RR_RETURN_IF_ERROR(runtime_status(
      cudaOccupancyMaxActiveClusters(&clusters, digest_kernel<DigestKernelMode::kRestore, false>, &config),
      "cudaOccupancyMaxActiveClusters(digest_kernel)"));
  return clusters;
}

}  // namespace rangereplay::kernels
