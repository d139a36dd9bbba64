// The digest kernel's launch shape per device: clusters from compute
// capability 9.0 on, one block per chunk before, and the picked cluster size.
#include "core/snapshot/digest/cluster_blocks.h"

#include <gtest/gtest.h>

#include <string>

namespace rangereplay {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = kKiB * 1024;

std::uint32_t blocks_or_die(std::uint32_t requested, std::uint64_t total, std::uint64_t chunks, bool clusters) {
  const StatusOr<std::uint32_t> blocks = digest_cluster_blocks(requested, total, chunks, clusters);
  EXPECT_TRUE(blocks.ok()) << blocks.status().to_string();
  return blocks.ok() ? *blocks : 0;
}

TEST(DigestClusterBlocks, clusters_from_hopper_on) {
  EXPECT_FALSE(digest_uses_clusters(8));  // Ampere sm_80/86/87, Ada sm_89
  EXPECT_FALSE(digest_uses_clusters(7));
  EXPECT_TRUE(digest_uses_clusters(9));   // Hopper
  EXPECT_TRUE(digest_uses_clusters(10));  // Blackwell data center
  EXPECT_TRUE(digest_uses_clusters(11));  // Thor
  EXPECT_TRUE(digest_uses_clusters(12));  // Blackwell RTX, GB10
}

TEST(DigestClusterBlocks, picks_by_mean_chunk_size_with_clusters) {
  EXPECT_EQ(blocks_or_die(0, 64 * kMiB, 64, true), 8u);        // 1 MiB chunks
  EXPECT_EQ(blocks_or_die(0, 512 * kKiB * 64, 64, true), 8u);  // 512 KiB: 8 slices
  EXPECT_EQ(blocks_or_die(0, 256 * kKiB * 64, 64, true), 4u);  // 256 KiB: 4 slices
  EXPECT_EQ(blocks_or_die(0, 255 * kKiB * 64, 64, true), 2u);  // under 4 slices
  EXPECT_EQ(blocks_or_die(0, 128 * kKiB * 64, 64, true), 2u);
  EXPECT_EQ(blocks_or_die(0, 64 * kKiB * 64, 64, true), 1u);
  EXPECT_EQ(blocks_or_die(0, 16, 1, true), 1u);
  EXPECT_EQ(blocks_or_die(0, 0, 0, true), 1u);                       // no chunks
  EXPECT_EQ(blocks_or_die(0, std::uint64_t{1} << 40, 1, true), 8u);  // never above 8
}

TEST(DigestClusterBlocks, one_block_per_chunk_without_clusters) {
  EXPECT_EQ(blocks_or_die(0, 64 * kMiB, 64, false), 1u);
  EXPECT_EQ(blocks_or_die(1, 64 * kMiB, 64, false), 1u);
  EXPECT_EQ(blocks_or_die(0, 0, 0, false), 1u);
}

TEST(DigestClusterBlocks, requested_size_is_kept_with_clusters) {
  for (const std::uint32_t n : {1u, 2u, 4u, 8u}) EXPECT_EQ(blocks_or_die(n, 64 * kKiB * 64, 64, true), n);
}

TEST(DigestClusterBlocks, rejects_clusters_the_device_cannot_run) {
  for (const std::uint32_t n : {2u, 4u, 8u}) {
    const StatusOr<std::uint32_t> blocks = digest_cluster_blocks(n, 64 * kMiB, 64, false);
    ASSERT_FALSE(blocks.ok());
    EXPECT_EQ(blocks.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(blocks.status().message().find("compute capability below 9.0"), std::string::npos)
        << blocks.status().message();
  }
}

TEST(DigestClusterBlocks, rejects_sizes_other_than_powers_of_two_up_to_8) {
  for (const bool clusters : {true, false}) {
    for (const std::uint32_t n : {3u, 5u, 16u}) {
      const StatusOr<std::uint32_t> blocks = digest_cluster_blocks(n, 64 * kMiB, 64, clusters);
      ASSERT_FALSE(blocks.ok());
      EXPECT_EQ(blocks.status().message(), "digest cluster of " + std::to_string(n) + " blocks (1, 2, 4 or 8)");
    }
  }
}

}  // namespace
}  // namespace rangereplay
