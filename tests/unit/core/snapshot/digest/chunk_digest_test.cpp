// The 64-bit chunk digest's host reference: any partition of the words merges
// to the same digest (what lets the GPU split a chunk over threads and
// blocks), every single-byte change and the length change it, and the words'
// order matters.
#include "core/snapshot/digest/chunk_digest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <vector>

namespace rangereplay {
namespace {

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> out(n);
  for (unsigned char& b : out) b = static_cast<unsigned char>(rng());
  return out;
}

TEST(ChunkDigest, empty_chunk_is_the_finish_of_empty_sums) {
  EXPECT_EQ(chunk_digest_reference(nullptr, 0), DigestAccumulator{}.finish(0));
}

TEST(ChunkDigest, follows_the_documented_word_formula) {
  // 20 bytes: word 0 is bytes 0..15, word 1 is bytes 16..19 zero-padded.
  std::vector<unsigned char> bytes(20);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i + 1);
  const std::uint64_t lo0 = 0x0807060504030201ull;
  const std::uint64_t hi0 = 0x100F0E0D0C0B0A09ull;
  const std::uint64_t lo1 = 0x0000000014131211ull;
  auto product = [](std::uint64_t d) { return (d & 0xFFFFFFFFull) * (d >> 32); };
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  a += hi0 + product(lo0 ^ (1 * kDigestKey0));
  b += lo0 + product(hi0 ^ (1 * kDigestKey1));
  a += 0 + product(lo1 ^ (2 * kDigestKey0));
  b += lo1 + product(0 ^ (2 * kDigestKey1));
  const std::uint64_t expected = digest_fmix64(a + digest_fmix64(b ^ (20 * kDigestKey2 + kDigestKey3)));
  EXPECT_EQ(chunk_digest_reference(bytes.data(), bytes.size()), expected);
}

TEST(ChunkDigest, any_partition_of_the_words_merges_to_the_same_digest) {
  std::mt19937_64 rng(7);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17},
                        std::size_t{4095}, std::size_t{4096}, std::size_t{4097}, std::size_t{100003}}) {
    const std::vector<unsigned char> data = random_bytes(n, n);
    const std::uint64_t words = (n + 15) / 16;
    const std::uint64_t whole = chunk_digest_reference(data.data(), n);
    for (int trial = 0; trial < 20; ++trial) {
      // Random cut points, merged in a random order.
      std::set<std::uint64_t> cuts = {0, words};
      for (int k = 0; k < 5 && words > 0; ++k) cuts.insert(rng() % (words + 1));
      std::vector<DigestAccumulator> parts;
      for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
        parts.push_back(chunk_digest_words(data.data(), n, *it, *std::next(it)));
      }
      std::shuffle(parts.begin(), parts.end(), rng);
      DigestAccumulator merged;
      for (const DigestAccumulator& p : parts) merged.merge(p);
      EXPECT_EQ(merged.finish(n), whole) << "n=" << n;
    }
  }
}

TEST(ChunkDigest, does_not_depend_on_the_alignment_of_the_bytes) {
  const std::vector<unsigned char> data = random_bytes(5000, 3);
  std::vector<unsigned char> shifted(5000 + 16);
  for (std::size_t shift = 0; shift < 16; ++shift) {
    std::memcpy(shifted.data() + shift, data.data(), data.size());
    EXPECT_EQ(chunk_digest_reference(shifted.data() + shift, data.size()),
              chunk_digest_reference(data.data(), data.size()));
  }
}

TEST(ChunkDigest, every_single_byte_change_changes_the_digest) {
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{4097}}) {
    std::vector<unsigned char> data = random_bytes(n, 11 + n);
    const std::uint64_t base = chunk_digest_reference(data.data(), n);
    const unsigned char flips[] = {0x01, 0x80, 0xFF};
    for (std::size_t i = 0; i < n; ++i) {
      for (unsigned char flip : flips) {
        data[i] ^= flip;
        EXPECT_NE(chunk_digest_reference(data.data(), n), base) << "n=" << n << " byte " << i;
        data[i] ^= flip;
      }
    }
  }
}

TEST(ChunkDigest, single_byte_changes_in_zero_memory_are_all_distinct) {
  // Zeros are the commonest contents: every (position, value) gives its own digest.
  std::vector<unsigned char> data(1024, 0);
  std::set<std::uint64_t> seen = {chunk_digest_reference(data.data(), data.size())};
  for (std::size_t i = 0; i < data.size(); ++i) {
    for (int v : {1, 2, 0x80, 0xFF}) {
      data[i] = static_cast<unsigned char>(v);
      seen.insert(chunk_digest_reference(data.data(), data.size()));
      data[i] = 0;
    }
  }
  EXPECT_EQ(seen.size(), 1 + 4 * data.size());
}

TEST(ChunkDigest, trailing_zero_bytes_and_the_length_count) {
  const unsigned char abc[] = {'a', 'b', 'c', 0, 0};
  EXPECT_NE(chunk_digest_reference(abc, 3), chunk_digest_reference(abc, 4));
  EXPECT_NE(chunk_digest_reference(abc, 4), chunk_digest_reference(abc, 5));
  const std::vector<unsigned char> zeros(64, 0);
  EXPECT_NE(chunk_digest_reference(zeros.data(), 16), chunk_digest_reference(zeros.data(), 32));
}

TEST(ChunkDigest, the_zero_chunk_digest_is_the_digest_of_a_zero_buffer_of_that_length) {
  const std::vector<unsigned char> zeros(std::size_t{1} << 20, 0);
  for (std::size_t bytes : {std::size_t{0}, std::size_t{5}, std::size_t{16}, std::size_t{4096 + 3}, zeros.size()})
    EXPECT_EQ(zero_chunk_digest(bytes), chunk_digest_reference(zeros.data(), bytes)) << bytes;
  EXPECT_NE(zero_chunk_digest(16), zero_chunk_digest(32));
  std::vector<unsigned char> one_byte(4096, 0);
  one_byte[4095] = 1;
  EXPECT_NE(chunk_digest_reference(one_byte.data(), one_byte.size()), zero_chunk_digest(one_byte.size()));
}

TEST(ChunkDigest, swapping_two_words_or_halves_changes_the_digest) {
  std::vector<unsigned char> data = random_bytes(256, 5);
  const std::uint64_t base = chunk_digest_reference(data.data(), data.size());
  std::vector<unsigned char> words = data;
  std::swap_ranges(words.begin(), words.begin() + 16, words.begin() + 48);
  EXPECT_NE(chunk_digest_reference(words.data(), words.size()), base);
  std::vector<unsigned char> halves = data;
  std::swap_ranges(halves.begin(), halves.begin() + 8, halves.begin() + 8);
  std::swap_ranges(halves.begin() + 64, halves.begin() + 72, halves.begin() + 72);
  EXPECT_NE(chunk_digest_reference(halves.data(), halves.size()), base);
}

TEST(ChunkDigest, equal_contents_give_equal_digests) {
  const std::vector<unsigned char> a = random_bytes(3000, 9);
  std::vector<unsigned char> b(a.size());
  std::copy(a.begin(), a.end(), b.begin());  // another buffer, same bytes
  EXPECT_EQ(chunk_digest_reference(a.data(), a.size()), chunk_digest_reference(b.data(), b.size()));
}

}  // namespace
}  // namespace rangereplay
