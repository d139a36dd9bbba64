// The host digest: a 64-bit digest of host-resident bytes (host-tier regions,
// or device bytes read back into scratch) from hardware CRC-32C running in
// kHostDigestLanes independent lanes, so the crc32 instruction's latency is
// hidden (one instruction per lane per step, the lanes interleaved).
//
// Definition. For n bytes, lane_bytes = floor(n / (8 * kHostDigestLanes)) * 8.
// Lane i < kHostDigestLanes - 1 covers [i * lane_bytes, (i + 1) * lane_bytes);
// the last lane covers the rest, [(kHostDigestLanes - 1) * lane_bytes, n) (all
// of it when n < 32). Each lane's value is the standard CRC-32C of its bytes
// (core/snapshot/digest/crc32c.h), and the digest is a fixed function of the lane CRCs
// and n (combine_lane_crcs()). So every engine (SSE4.2 lanes, the portable
// table, the bitwise reference) computes the same lane CRCs and therefore the
// same digest; the unit test checks exactly that for lengths 0..4097.
//
// Digests are compared only inside one process and never persisted; a host
// digest is never compared with a GPU chunk digest (core/snapshot/digest/chunk_digest.h).
//
//   std::uint64_t d = host_digest(bytes, size);                 // best engine
//   std::span<unsigned char> buf = host_digest_scratch(size);   // e.g. for a readback
//
// Approach: hardware CRC-32C in interleaved independent lanes, combined into
// one value, with grow-only thread-local scratch for readbacks (no per-call
// allocation or zero-fill).
// Thread-safety: pure functions; host_digest_scratch() is per thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/snapshot/digest/chunk_table.h"

namespace rangereplay {

/// Independent CRC-32C lanes of the host digest.
inline constexpr int kHostDigestLanes = 4;

/// Which implementation computes the lane CRCs.
enum class Crc32cEngine : std::uint8_t {
  kHardware,  // SSE4.2 crc32, lanes interleaved (the table when the CPU lacks SSE4.2)
  kTable,     // portable slicing-by-8, lane by lane
  kBitwise,   // bitwise reference, lane by lane
};

/// The byte span [offset, offset + bytes) of lane `lane` for an n-byte input.
struct LaneSpan {
  std::size_t offset = 0;
  std::size_t bytes = 0;
};
LaneSpan host_digest_lane(std::size_t n, int lane);

/// The CRC-32C of every lane of `data` (n bytes; null allowed when n == 0).
std::array<std::uint32_t, kHostDigestLanes> host_lane_crcs(const void* data, std::size_t n, Crc32cEngine engine);

/// The digest from the lane CRCs and the length: h = fmix64(n * K1 + K3),
/// then h = fmix64(h * K0 + crc_i) per lane in order (constants of
/// core/snapshot/digest/chunk_digest.h).
std::uint64_t combine_lane_crcs(const std::array<std::uint32_t, kHostDigestLanes>& crcs, std::size_t n);

/// The host digest of n bytes at `data` with the fastest engine available.
std::uint64_t host_digest(const void* data, std::size_t n);
/// The same with a chosen engine (tests and benchmarks).
std::uint64_t host_digest(const void* data, std::size_t n, Crc32cEngine engine);

/// Host digests of every chunk of `table`: out[c] = host_digest of chunk c's
/// bytes, read at region_data[region] + offset. region_data holds one host
/// pointer per region of the table (null allowed for empty regions).
/// Preconditions (asserted): region_data.size() == regions, out.size() == chunks.
void host_chunk_digests(const ChunkTable& table, std::span<const unsigned char* const> region_data,
                        std::span<std::uint64_t> out);

/// This thread's scratch buffer of at least `bytes` bytes. Grow-only: it is
/// reallocated only when a request exceeds its capacity (to max(bytes, 1.5x
/// capacity)); contents are unspecified (never zero-filled) and survive
/// until the next growth. Valid until this thread's next call or exit.
/// Never throws: when the allocation fails it returns an empty span and keeps
/// the old buffer.
std::span<unsigned char> host_digest_scratch(std::size_t bytes);
/// Capacity of this thread's scratch in bytes (0 before the first request).
std::size_t host_digest_scratch_capacity();

}  // namespace rangereplay
