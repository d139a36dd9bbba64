// Host digest: CRC-32C lanes, their combination, and the thread-local scratch
// (see host_digest.h).
#include "core/snapshot/digest/host_digest.h"

#include <cassert>
#include <cstring>
#include <memory>
#include <new>

#include "core/snapshot/digest/chunk_digest.h"
#include "core/snapshot/digest/crc32c.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RR_HOST_DIGEST_X86 1
#include <immintrin.h>
#else
#define RR_HOST_DIGEST_X86 0
#endif

namespace rangereplay {
namespace {

constexpr std::size_t kLanes = kHostDigestLanes;
static_assert(kHostDigestLanes == 4, "lanes_sse42 interleaves exactly four lanes");

std::size_t lane_bytes_for(std::size_t n) { return n / (8 * kLanes) * 8; }

#if RR_HOST_DIGEST_X86

std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

// Four CRC-32C streams, one crc32 instruction each per step: the instruction's
// three-cycle latency is hidden behind the other lanes.
__attribute__((target("sse4.2"))) std::array<std::uint32_t, kHostDigestLanes> lanes_sse42(const unsigned char* p,
                                                                                          std::size_t n) {
  const std::size_t lane = lane_bytes_for(n);
  const unsigned char* p0 = p;
  const unsigned char* p1 = p + lane;
  const unsigned char* p2 = p + 2 * lane;
  const unsigned char* p3 = p + 3 * lane;
  std::uint64_t c0 = 0xFFFFFFFFu;
  std::uint64_t c1 = 0xFFFFFFFFu;
  std::uint64_t c2 = 0xFFFFFFFFu;
  std::uint64_t c3 = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < lane; i += 8) {
    c0 = _mm_crc32_u64(c0, load64(p0 + i));
    c1 = _mm_crc32_u64(c1, load64(p1 + i));
    c2 = _mm_crc32_u64(c2, load64(p2 + i));
    c3 = _mm_crc32_u64(c3, load64(p3 + i));
  }
  // The last lane's extra bytes (under 32) continue its CRC (crc32c_hardware
  // takes and returns the finished, inverted value).
  const std::uint32_t last = crc32c_hardware(p3 + lane, n - kLanes * lane, ~static_cast<std::uint32_t>(c3));
  return {~static_cast<std::uint32_t>(c0), ~static_cast<std::uint32_t>(c1), ~static_cast<std::uint32_t>(c2), last};
}

#endif

template <typename Crc>
std::array<std::uint32_t, kHostDigestLanes> lanes_one_by_one(const unsigned char* p, std::size_t n, Crc crc) {
  std::array<std::uint32_t, kHostDigestLanes> out{};
  for (int i = 0; i < kHostDigestLanes; ++i) {
    const LaneSpan span = host_digest_lane(n, i);
    out[static_cast<std::size_t>(i)] = crc(span.bytes == 0 ? nullptr : p + span.offset, span.bytes);
  }
  return out;
}

struct Scratch {
  std::unique_ptr<unsigned char[]> data;
  std::size_t capacity = 0;
};

Scratch& this_thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

}  // namespace

LaneSpan host_digest_lane(std::size_t n, int lane) {
  assert(lane >= 0 && lane < kHostDigestLanes);
  const std::size_t lane_bytes = lane_bytes_for(n);
  const std::size_t offset = static_cast<std::size_t>(lane) * lane_bytes;
  if (lane == kHostDigestLanes - 1) return {offset, n - offset};
  return {offset, lane_bytes};
}

std::array<std::uint32_t, kHostDigestLanes> host_lane_crcs(const void* data, std::size_t n, Crc32cEngine engine) {
  const auto* p = static_cast<const unsigned char*>(data);
  switch (engine) {
    case Crc32cEngine::kHardware:
#if RR_HOST_DIGEST_X86
      if (crc32c_hardware_available()) return lanes_sse42(p, n);
#endif
      return lanes_one_by_one(p, n, [](const void* d, std::size_t b) { return crc32c_table(d, b); });
    case Crc32cEngine::kTable:
      return lanes_one_by_one(p, n, [](const void* d, std::size_t b) { return crc32c_table(d, b); });
    case Crc32cEngine::kBitwise: break;
  }
  return lanes_one_by_one(p, n, [](const void* d, std::size_t b) { return crc32c_bitwise(d, b); });
}

std::uint64_t combine_lane_crcs(const std::array<std::uint32_t, kHostDigestLanes>& crcs, std::size_t n) {
  std::uint64_t h = digest_fmix64(static_cast<std::uint64_t>(n) * kDigestKey1 + kDigestKey3);
  for (const std::uint32_t crc : crcs) h = digest_fmix64(h * kDigestKey0 + crc);
  return h;
}

std::uint64_t host_digest(const void* data, std::size_t n, Crc32cEngine engine) {
  return combine_lane_crcs(host_lane_crcs(data, n, engine), n);
}

std::uint64_t host_digest(const void* data, std::size_t n) { return host_digest(data, n, Crc32cEngine::kHardware); }

void host_chunk_digests(const ChunkTable& table, std::span<const unsigned char* const> region_data,
                        std::span<std::uint64_t> out) {
  assert(region_data.size() == table.regions().size());
  assert(out.size() == table.chunk_count());
  const std::vector<DigestChunk>& chunks = table.chunks();
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    out[c] = host_digest(region_data[chunks[c].region] + chunks[c].offset, chunks[c].bytes);
  }
}

std::span<unsigned char> host_digest_scratch(std::size_t bytes) {
  Scratch& s = this_thread_scratch();
  if (bytes > s.capacity) {
    const std::size_t grown = s.capacity + s.capacity / 2;
    const std::size_t capacity = bytes > grown ? bytes : grown;
    // Default-initialized: no zero fill.
    unsigned char* fresh = new (std::nothrow) unsigned char[capacity];
    if (fresh == nullptr) return {};
    s.data.reset(fresh);
    s.capacity = capacity;
  }
  return {s.data.get(), bytes};
}

std::size_t host_digest_scratch_capacity() { return this_thread_scratch().capacity; }

}  // namespace rangereplay
