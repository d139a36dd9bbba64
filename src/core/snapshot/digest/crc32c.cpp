// CRC-32C: bitwise reference, slicing-by-8 table, SSE4.2 instruction (see crc32c.h).
#include "core/snapshot/digest/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RR_CRC32C_X86 1
#include <immintrin.h>
#else
#define RR_CRC32C_X86 0
#endif

namespace rangereplay {
namespace {

constexpr std::uint32_t kPolynomial = 0x82F63B78u;  // reflected Castagnoli

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

// tables[0] is the classic byte table; tables[k][b] is the CRC of byte b
// followed by k zero bytes (slicing-by-8, Intel's technique).
constexpr Tables make_tables() {
  Tables t{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t c = b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1u) ? kPolynomial : 0u);
    t[0][b] = c;
  }
  for (std::uint32_t b = 0; b < 256; ++b) {
    for (int k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFFu];
  }
  return t;
}

constexpr Tables kTables = make_tables();

std::uint64_t load_le64(const unsigned char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

}  // namespace

std::uint32_t crc32c_bitwise(const void* data, std::size_t bytes, std::uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  for (std::size_t i = 0; i < bytes; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1u) ? kPolynomial : 0u);
  }
  return ~c;
}

std::uint32_t crc32c_table(const void* data, std::size_t bytes, std::uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  while (bytes >= 8) {
    const std::uint64_t v = load_le64(p) ^ c;
    c = kTables[7][v & 0xFF] ^ kTables[6][(v >> 8) & 0xFF] ^ kTables[5][(v >> 16) & 0xFF] ^
        kTables[4][(v >> 24) & 0xFF] ^ kTables[3][(v >> 32) & 0xFF] ^ kTables[2][(v >> 40) & 0xFF] ^
        kTables[1][(v >> 48) & 0xFF] ^ kTables[0][v >> 56];
    p += 8;
    bytes -= 8;
  }
  while (bytes > 0) {
    c = (c >> 8) ^ kTables[0][(c ^ *p) & 0xFFu];
    ++p;
    --bytes;
  }
  return ~c;
}

#if RR_CRC32C_X86

namespace {

__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(const unsigned char* p, std::size_t bytes,
                                                             std::uint32_t crc) {
  std::uint64_t c = ~crc;
  while (bytes >= 8) {
    c = _mm_crc32_u64(c, load_le64(p));
    p += 8;
    bytes -= 8;
  }
  auto c32 = static_cast<std::uint32_t>(c);
  while (bytes > 0) {
    c32 = _mm_crc32_u8(c32, *p);
    ++p;
    --bytes;
  }
  return ~c32;
}

}  // namespace

bool crc32c_hardware_available() {
  static const bool available = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return available;
}

std::uint32_t crc32c_hardware(const void* data, std::size_t bytes, std::uint32_t crc) {
  if (!crc32c_hardware_available()) return crc32c_table(data, bytes, crc);
  return crc32c_sse42(static_cast<const unsigned char*>(data), bytes, crc);
}

#else

bool crc32c_hardware_available() { return false; }

std::uint32_t crc32c_hardware(const void* data, std::size_t bytes, std::uint32_t crc) {
  return crc32c_table(data, bytes, crc);
}

#endif

std::uint32_t crc32c(const void* data, std::size_t bytes, std::uint32_t crc) {
  return crc32c_hardware(data, bytes, crc);
}

}  // namespace rangereplay
