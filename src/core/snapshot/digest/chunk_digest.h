// The 64-bit chunk digest: the non-cryptographic hash the GPU digest kernel
// computes for every chunk of every region (cuda/kernels/digest_kernel.h), its
// host reference, and the combination of chunk digests into a region digest.
//
// Digests are compared only inside one process and never persisted or sent
// anywhere: the function below may change at any time without a migration.
// The host lane digest (core/snapshot/digest/host_digest.h) is a different function;
// a GPU digest is never compared with a host digest.
//
// Definition. A chunk of n bytes is read as W = ceil(n / 16) words; word j is
// bytes [16j, 16j + 16) as two little-endian 64-bit halves (lo_j, hi_j), the
// last word zero-padded. Each word adds to two 64-bit sums (mod 2^64):
//
//   d0 = lo_j ^ (j + 1) * kDigestKey0        d1 = hi_j ^ (j + 1) * kDigestKey1
//   A += hi_j + lo32(d0) * hi32(d0)          B += lo_j + lo32(d1) * hi32(d1)
//
// and the digest is fmix64(A + fmix64(B ^ (n * kDigestKey2 + kDigestKey3))).
// Because each word's contribution depends only on the word and its index and
// the sums commute, any split of the words over threads, warps, blocks and a
// cluster gives the same value: the kernel sums per thread, then per block,
// then per cluster (merge()). The per-word step is XXH3's accumulate step
// (a 32x32->64 product of the keyed halves plus the other raw half): one wide
// multiply-add per 8 bytes, far below what HBM delivers per instruction.
// A change confined to one 8-byte half always changes the sum holding that raw
// half; the final mix is a bijection of either sum with the other fixed; the
// length is mixed in, so trailing zero bytes are not lost.
//
// Region digest: h = fmix64(region_bytes * kDigestKey1 + kDigestKey3), then
// h = fmix64(h * kDigestKey0 + d_i) for each chunk digest d_i in order: each
// step is a bijection of d_i, so a region digest changes when exactly one of
// its chunk digests does.
//
// The functions are host and device code (RR_DIGEST_HD) so the kernel and the
// host reference share one definition.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#if defined(__CUDACC__)
#define RR_DIGEST_HD __host__ __device__
#else
#define RR_DIGEST_HD
#endif

namespace rangereplay {

inline constexpr std::uint64_t kDigestKey0 = 0x9E3779B97F4A7C15ull;  // odd
inline constexpr std::uint64_t kDigestKey1 = 0xC2B2AE3D27D4EB4Full;  // odd
inline constexpr std::uint64_t kDigestKey2 = 0x165667B19E3779F9ull;
inline constexpr std::uint64_t kDigestKey3 = 0x27D4EB2F165667C5ull;

/// MurmurHash3's 64-bit finalizer: a bijection of 64-bit values.
RR_DIGEST_HD constexpr std::uint64_t digest_fmix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ull;
  k ^= k >> 33;
  return k;
}

/// The two running sums of one chunk (or of any subset of its words).
struct DigestAccumulator {
  std::uint64_t a = 0;
  std::uint64_t b = 0;

  /// lo32(d) * hi32(d) as a 64-bit product (one mul.wide.u32 on the GPU).
  RR_DIGEST_HD static constexpr std::uint64_t wide_product(std::uint64_t d) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(d)) *
           static_cast<std::uint64_t>(static_cast<std::uint32_t>(d >> 32));
  }
  /// Adds word `index` of the chunk, given as its little-endian halves.
  RR_DIGEST_HD constexpr void add_word(std::uint64_t lo, std::uint64_t hi, std::uint64_t index) {
    const std::uint64_t d0 = lo ^ ((index + 1) * kDigestKey0);
    const std::uint64_t d1 = hi ^ ((index + 1) * kDigestKey1);
    a += hi + wide_product(d0);
    b += lo + wide_product(d1);
  }
  /// Adds the words another accumulator has seen (disjoint word sets).
  RR_DIGEST_HD constexpr void merge(const DigestAccumulator& other) {
    a += other.a;
    b += other.b;
  }
  /// The digest of a chunk of `chunk_bytes` bytes whose every word was added.
  RR_DIGEST_HD constexpr std::uint64_t finish(std::uint64_t chunk_bytes) const {
    return digest_fmix64(a + digest_fmix64(b ^ (chunk_bytes * kDigestKey2 + kDigestKey3)));
  }
};

/// Starts a region digest (region_bytes: the region's size in bytes).
RR_DIGEST_HD constexpr std::uint64_t region_digest_begin(std::uint64_t region_bytes) {
  return digest_fmix64(region_bytes * kDigestKey1 + kDigestKey3);
}
/// Folds the region's next chunk digest into `h`.
RR_DIGEST_HD constexpr std::uint64_t region_digest_step(std::uint64_t h, std::uint64_t chunk_digest) {
  return digest_fmix64(h * kDigestKey0 + chunk_digest);
}

/// Host reference: the digest of `bytes` bytes at `data` (any alignment; a
/// null `data` is allowed when bytes == 0). Reads each byte once.
std::uint64_t chunk_digest_reference(const void* data, std::size_t bytes);

/// The digest of `bytes` zero bytes (as chunk_digest_reference of a zero
/// buffer, without one): what an all-zero chunk of that size digests to.
/// Linear in bytes / 16 (about 0.1 ms for 1 MiB).
std::uint64_t zero_chunk_digest(std::size_t bytes);

/// Host reference of the accumulator for words [first_word, end_word) of a
/// chunk of `chunk_bytes` bytes at `chunk` (the last word zero-padded), so
/// tests can check that any partition of the words merges to the same sums.
DigestAccumulator chunk_digest_words(const void* chunk, std::size_t chunk_bytes, std::uint64_t first_word,
                                     std::uint64_t end_word);

/// A region's digest from its chunk digests in order (see the file comment).
std::uint64_t combine_chunk_digests(std::span<const std::uint64_t> chunk_digests, std::uint64_t region_bytes);

}  // namespace rangereplay
