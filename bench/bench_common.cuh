// Helpers shared by the GPU benchmarks: seeded random fill (never time zeros),
// a spin kernel that keeps the GPU busy while the host queues a repetition,
// medians and size labels. Header-only; each benchmark is one program.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace rangereplay::bench {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Fills `count` words with splitmix64(seed + i).
inline __global__ void fill_kernel(std::uint64_t* words, std::uint64_t count, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    words[i] = splitmix64(seed + i);
  }
}

// Keeps the GPU busy while the host queues one repetition's stages.
inline __global__ void spin_kernel(std::uint64_t ns) {
  std::uint64_t start = 0;
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

/// Median of `v` (0 when empty).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// "64 MB", "4 GB".
inline std::string size_name(std::uint64_t bytes) {
  return bytes >= 1024 * kMiB ? std::to_string(bytes / (1024 * kMiB)) + " GB" : std::to_string(bytes / kMiB) + " MB";
}

}  // namespace rangereplay::bench
