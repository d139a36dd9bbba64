// How many blocks the digest kernel gives each chunk, and whether they form a
// thread-block cluster, on a device of a given compute capability.
//
// The injection library carries machine code for several architectures
// (docs/architecture.md, "Build"); the CUDA runtime loads the image built for
// the device. Images for compute capability 9.0 and newer digest a chunk with
// a cluster of 1, 2, 4 or 8 blocks that meet in distributed shared memory;
// Ampere and Ada (8.x) have no clusters, so their image digests each chunk
// with one block, launched without the cluster attribute. The host picks the
// launch with the same rule the device code was compiled with
// (__CUDA_ARCH__ >= 900): a 9.x-or-newer device never loads an 8.x image,
// and an 8.x device never loads a 9.0-or-newer one.
// No CUDA here: tested without a GPU.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "core/base/status.h"

namespace rangereplay {

/// Largest cluster of the digest kernel (the portable cluster size of sm_90).
inline constexpr std::uint32_t kMaxDigestClusterBlocks = 8;
/// The least a block of a cluster should digest when the size is picked (64 KiB).
inline constexpr std::uint64_t kDigestClusterSliceBytes = std::uint64_t{64} * 1024;

/// Whether the digest kernel runs as thread-block clusters on a device of
/// compute capability `cc_major`.x: true from 9 on (Hopper, Blackwell and
/// newer), false before (Ampere, Ada).
constexpr bool digest_uses_clusters(int cc_major) { return cc_major >= 9; }

/// Blocks per chunk of the digest kernel for `chunk_count` chunks of
/// `total_bytes` bytes in all, on a device with (`clusters`) or without
/// thread-block clusters. `requested` 1, 2, 4 or 8 is taken as is; 0 picks
/// min(8, mean chunk bytes / 64 KiB) rounded down to a power of two, at
/// least 1, with clusters, and 1 without.
/// Errors: kInvalidArgument for `requested` other than 0, 1, 2, 4 or 8, or
/// above 1 without clusters (the message names the device's limit).
StatusOr<std::uint32_t> digest_cluster_blocks(std::uint32_t requested, std::uint64_t total_bytes,
                                              std::uint64_t chunk_count, bool clusters);

}  // namespace rangereplay
