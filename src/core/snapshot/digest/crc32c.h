// CRC-32C (Castagnoli) three ways: a bitwise reference, a portable table-driven
// implementation, and the SSE4.2 crc32 instruction. The host digest
// (core/snapshot/digest/host_digest.h) runs several of these in independent lanes.
//
// CRC-32C: reflected polynomial 0x82F63B78, initial value and final xor
// 0xFFFFFFFF (RFC 3720 appendix B.4; the checksum the SSE4.2 `crc32`
// instruction computes). crc32c("123456789") == 0xE3069283.
// Each function extends a previous value: f(b, f(a)) == f(a ++ b), and
// f(x, 0) is the CRC of x alone.
//
//   std::uint32_t c = crc32c(buffer, bytes);          // the fastest available
//   if (crc32c_hardware_available()) ...              // SSE4.2 probed at run time
//
// The SSE4.2 code is compiled with a target attribute, so the rest of the build
// needs no -msse4.2 and the library still runs on CPUs without it.
// Thread-safety: pure functions (the CPU probe is a thread-safe static).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rangereplay {

/// Bit-at-a-time reference (slow: ~8 shifts per bit). `data` may be null when bytes == 0.
std::uint32_t crc32c_bitwise(const void* data, std::size_t bytes, std::uint32_t crc = 0);

/// Portable slicing-by-8 (eight 256-entry tables built at compile time).
std::uint32_t crc32c_table(const void* data, std::size_t bytes, std::uint32_t crc = 0);

/// True when this CPU has SSE4.2's crc32 instruction (x86-64 only; probed once
/// with __builtin_cpu_supports("sse4.2")).
bool crc32c_hardware_available();

/// One stream of SSE4.2 crc32 instructions (8 bytes per step). Falls back to
/// crc32c_table() when crc32c_hardware_available() is false.
std::uint32_t crc32c_hardware(const void* data, std::size_t bytes, std::uint32_t crc = 0);

/// crc32c_hardware() when available, else crc32c_table().
std::uint32_t crc32c(const void* data, std::size_t bytes, std::uint32_t crc = 0);

}  // namespace rangereplay
