// Blocks per chunk of the digest kernel (see cluster_blocks.h).
#include "core/snapshot/digest/cluster_blocks.h"

#include <string>

namespace rangereplay {

StatusOr<std::uint32_t> digest_cluster_blocks(std::uint32_t requested, std::uint64_t total_bytes,
                                              std::uint64_t chunk_count, bool clusters) {
  if (requested != 0 && requested != 1 && requested != 2 && requested != 4 && requested != 8) {
    return invalid_argument("digest cluster of " + std::to_string(requested) + " blocks (1, 2, 4 or 8)");
  }
  if (!clusters) {
    if (requested > 1) {
      return invalid_argument("digest cluster of " + std::to_string(requested) +
                              " blocks on a GPU without thread-block clusters (compute capability below 9.0); "
                              "use 1, or 0 to pick");
    }
    return std::uint32_t{1};
  }
  if (requested != 0) return requested;
  if (chunk_count == 0) return std::uint32_t{1};
  const std::uint64_t mean = total_bytes / chunk_count;
  std::uint32_t blocks = 1;
  while (blocks < kMaxDigestClusterBlocks && mean / kDigestClusterSliceBytes >= std::uint64_t{blocks} * 2) blocks *= 2;
  return blocks;
}

}  // namespace rangereplay
