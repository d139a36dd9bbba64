// Host-side byte helpers shared by the GPU tests: seeded random buffers, the
// first differing byte of two buffers, and ASSERT_OK for Status values.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/base/status.h"

#define ASSERT_OK(expr)                                            \
  do {                                                             \
    const ::rangereplay::Status rr_s_ = (expr);                    \
    ASSERT_TRUE(rr_s_.ok()) << #expr << ": " << rr_s_.to_string(); \
  } while (0)

namespace rangereplay::gpu_test {

/// `bytes` bytes from mt19937_64(seed), 8 at a time.
inline std::vector<unsigned char> random_bytes(std::uint64_t bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> out(bytes);
  std::uint64_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    const std::uint64_t v = rng();
    std::memcpy(out.data() + i, &v, 8);
  }
  for (; i < bytes; ++i) out[i] = static_cast<unsigned char>(rng());
  return out;
}

/// Index of the first byte where a and b differ, -1 when equal, -2 when the sizes differ.
inline long long first_difference(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  if (a.size() != b.size()) return -2;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return static_cast<long long>(i);
  }
  return -1;
}

}  // namespace rangereplay::gpu_test
