// Host path: the three CRC-32C engines agree with each other and with the
// published check values, and the lane digest is the same whichever engine
// computes the lanes, for random inputs of every length 0..4097 at every
// alignment. "Consistent" means exactly: for each input, the SSE4.2 lanes, the
// table lanes and the bitwise lanes give the same four lane CRCs, each equal
// to crc32c_bitwise() of that lane's bytes as host_digest_lane() lays them out
// (recomputed here from the documented formula), so all three give the same
// digest, combine_lane_crcs(those CRCs, n). Also: chunk digests on the host and
// the grow-only thread-local scratch.
#include "core/snapshot/digest/host_digest.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "core/snapshot/digest/crc32c.h"

namespace rangereplay {
namespace {

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> out(n);
  for (unsigned char& b : out) b = static_cast<unsigned char>(rng());
  return out;
}

TEST(Crc32c, every_engine_gives_the_published_check_values) {
  // RFC 3720 B.4 and the CRC catalogue's check value.
  const unsigned char digits[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  unsigned char zeros[32] = {};
  unsigned char ones[32];
  unsigned char up[32];
  unsigned char down[32];
  for (int i = 0; i < 32; ++i) {
    ones[i] = 0xFF;
    up[i] = static_cast<unsigned char>(i);
    down[i] = static_cast<unsigned char>(31 - i);
  }
  using Fn = std::uint32_t (*)(const void*, std::size_t, std::uint32_t);
  for (Fn f : {Fn{crc32c_bitwise}, Fn{crc32c_table}, Fn{crc32c_hardware}, Fn{crc32c}}) {
    EXPECT_EQ(f(digits, 9, 0), 0xE3069283u);
    EXPECT_EQ(f(zeros, 32, 0), 0x8A9136AAu);
    EXPECT_EQ(f(ones, 32, 0), 0x62A8AB43u);
    EXPECT_EQ(f(up, 32, 0), 0x46DD794Eu);
    EXPECT_EQ(f(down, 32, 0), 0x113FDB5Cu);
    EXPECT_EQ(f(nullptr, 0, 0), 0u);
  }
}

TEST(Crc32c, engines_agree_on_random_inputs_of_every_length_and_alignment) {
  const std::vector<unsigned char> data = random_bytes(4097 + 8, 1);
  for (std::size_t n = 0; n <= 4097; ++n) {
    const unsigned char* p = data.data() + n % 8;
    const std::uint32_t reference = crc32c_bitwise(p, n);
    ASSERT_EQ(crc32c_table(p, n), reference) << "n=" << n;
    ASSERT_EQ(crc32c_hardware(p, n), reference) << "n=" << n;
  }
}

TEST(Crc32c, extending_a_crc_equals_the_crc_of_the_concatenation) {
  const std::vector<unsigned char> data = random_bytes(1000, 2);
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{500}, std::size_t{1000}}) {
    const std::uint32_t whole = crc32c_bitwise(data.data(), data.size());
    EXPECT_EQ(crc32c_table(data.data() + cut, data.size() - cut, crc32c_table(data.data(), cut)), whole);
    EXPECT_EQ(crc32c_hardware(data.data() + cut, data.size() - cut, crc32c_hardware(data.data(), cut)), whole);
  }
}

TEST(Crc32c, hardware_probe_matches_the_cpu) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  EXPECT_EQ(crc32c_hardware_available(), __builtin_cpu_supports("sse4.2") != 0);
#else
  EXPECT_FALSE(crc32c_hardware_available());
#endif
}

TEST(HostDigest, lanes_tile_the_input_in_order) {
  for (std::size_t n = 0; n <= 300; ++n) {
    std::size_t at = 0;
    for (int lane = 0; lane < kHostDigestLanes; ++lane) {
      const LaneSpan s = host_digest_lane(n, lane);
      EXPECT_EQ(s.offset, at) << "n=" << n << " lane " << lane;
      at += s.bytes;
    }
    EXPECT_EQ(at, n);
  }
  EXPECT_EQ(host_digest_lane(31, 3).offset, 0u);
  EXPECT_EQ(host_digest_lane(31, 3).bytes, 31u);
  EXPECT_EQ(host_digest_lane(32, 0).bytes, 8u);
  EXPECT_EQ(host_digest_lane(100, 2).offset, 48u);
  EXPECT_EQ(host_digest_lane(100, 3).offset, 72u);
  EXPECT_EQ(host_digest_lane(100, 3).bytes, 28u);
}

TEST(HostDigest, lanes_fallback_and_reference_are_consistent_for_lengths_0_to_4097) {
  std::mt19937_64 rng(3);
  const std::vector<unsigned char> data = random_bytes(4097 + 16, 4);
  for (std::size_t n = 0; n <= 4097; ++n) {
    const unsigned char* p = data.data() + rng() % 16;
    // Lane CRCs from the documented layout, by the bitwise reference.
    std::array<std::uint32_t, kHostDigestLanes> expected{};
    const std::size_t lane_bytes = n / (std::size_t{8} * kHostDigestLanes) * 8;
    for (int lane = 0; lane < kHostDigestLanes; ++lane) {
      const std::size_t offset = static_cast<std::size_t>(lane) * lane_bytes;
      const std::size_t bytes = lane == kHostDigestLanes - 1 ? n - offset : lane_bytes;
      expected[static_cast<std::size_t>(lane)] = crc32c_bitwise(p + offset, bytes);
    }
    ASSERT_EQ(host_lane_crcs(p, n, Crc32cEngine::kBitwise), expected) << "n=" << n;
    ASSERT_EQ(host_lane_crcs(p, n, Crc32cEngine::kTable), expected) << "n=" << n;
    ASSERT_EQ(host_lane_crcs(p, n, Crc32cEngine::kHardware), expected) << "n=" << n;
    const std::uint64_t digest = combine_lane_crcs(expected, n);
    ASSERT_EQ(host_digest(p, n, Crc32cEngine::kBitwise), digest) << "n=" << n;
    ASSERT_EQ(host_digest(p, n, Crc32cEngine::kTable), digest) << "n=" << n;
    ASSERT_EQ(host_digest(p, n, Crc32cEngine::kHardware), digest) << "n=" << n;
    ASSERT_EQ(host_digest(p, n), digest) << "n=" << n;
  }
}

TEST(HostDigest, one_lane_input_is_the_plain_crc_in_the_last_lane) {
  const std::vector<unsigned char> data = random_bytes(20, 5);
  const std::array<std::uint32_t, kHostDigestLanes> expected = {0, 0, 0, crc32c_bitwise(data.data(), 20)};
  EXPECT_EQ(host_lane_crcs(data.data(), 20, Crc32cEngine::kHardware), expected);
}

TEST(HostDigest, the_length_and_every_byte_count) {
  std::vector<unsigned char> data(100, 0);
  EXPECT_NE(host_digest(data.data(), 99), host_digest(data.data(), 100));
  EXPECT_NE(host_digest(nullptr, 0), host_digest(data.data(), 1));
  const std::uint64_t base = host_digest(data.data(), data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    data[i] = 1;
    EXPECT_NE(host_digest(data.data(), data.size()), base) << i;
    data[i] = 0;
  }
}

TEST(HostDigest, chunk_digests_are_the_digests_of_each_chunks_bytes) {
  const std::vector<unsigned char> a = random_bytes(100, 6);
  const std::vector<unsigned char> b = random_bytes(1, 7);
  const std::vector<MemoryRange> regions = {MemoryRange(DevicePtr(0x10000), 100), MemoryRange(DevicePtr(0x20000), 0),
                                            MemoryRange(DevicePtr(0x30000), 1)};
  StatusOr<ChunkTable> table = ChunkTable::build(regions, 32);
  ASSERT_TRUE(table.ok());
  const unsigned char* data[] = {a.data(), nullptr, b.data()};
  std::vector<std::uint64_t> out(table->chunk_count());
  host_chunk_digests(*table, data, out);
  const std::vector<std::uint64_t> expected = {host_digest(a.data(), 32), host_digest(a.data() + 32, 32),
                                               host_digest(a.data() + 64, 32), host_digest(a.data() + 96, 4),
                                               host_digest(b.data(), 1)};
  EXPECT_EQ(out, expected);
}

TEST(HostDigestScratch, grows_only_and_keeps_its_buffer_for_smaller_requests) {
  std::thread([] {
    EXPECT_EQ(host_digest_scratch_capacity(), 0u);
    std::span<unsigned char> first = host_digest_scratch(1000);
    ASSERT_EQ(first.size(), 1000u);
    EXPECT_EQ(host_digest_scratch_capacity(), 1000u);
    first[999] = 42;
    std::span<unsigned char> smaller = host_digest_scratch(10);
    EXPECT_EQ(smaller.data(), first.data());
    EXPECT_EQ(smaller.size(), 10u);
    EXPECT_EQ(first[999], 42);  // contents survive
    EXPECT_EQ(host_digest_scratch_capacity(), 1000u);
    std::span<unsigned char> bigger = host_digest_scratch(1001);
    EXPECT_EQ(bigger.size(), 1001u);
    EXPECT_EQ(host_digest_scratch_capacity(), 1500u);  // grows by half at least
    std::span<unsigned char> huge = host_digest_scratch(10000);
    EXPECT_EQ(host_digest_scratch_capacity(), 10000u);
    EXPECT_EQ(huge.size(), 10000u);
  }).join();
}

TEST(HostDigestScratch, each_thread_has_its_own) {
  unsigned char* main_buffer = host_digest_scratch(64).data();
  unsigned char* other_buffer = nullptr;
  std::thread([&] { other_buffer = host_digest_scratch(64).data(); }).join();
  EXPECT_NE(main_buffer, nullptr);
  EXPECT_NE(other_buffer, nullptr);
  EXPECT_NE(main_buffer, other_buffer);
}

}  // namespace
}  // namespace rangereplay
