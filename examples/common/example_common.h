// example_common.h: the few helpers every example workload (examples/*.cu) and
// tiny test app (tests/apps/*.cu) shares, so that all of them check errors,
// seed their inputs and print checksums the same way.
//
// Output convention (scripts/run-examples.sh and the GPU tests rely on it):
//   checksum <buffer-name> <16 lower-case hex digits>     one line per output buffer
//   checksum-nondeterministic <buffer-name> <16 hex>       legitimately order-dependent
//                                                          results (float atomics); tests ignore it
//   checksums-done                                         last line of a successful run
// The checksum is FNV-1a 64 (Fowler/Noll/Vo, offset basis 0xcbf29ce484222325,
// prime 0x100000001b3) over the buffer's raw bytes, computed on the host.
//
// Usage:
//   CHECK_CUDA(cudaMalloc(&ptr, bytes));        // one-line error and exit(1) on failure
//   my_kernel<<<grid, block, 0, stream>>>(...);
//   CHECK_LAUNCH();
//   SplitMix64 rng(kSeed); fill_uniform(host, rng, 0.5, 1.5);
//   print_device_checksum("a", device_a, bytes);
//   print_checksums_done();
//
// Not thread-safe beyond what the CUDA runtime and stdio give: print from one
// thread at a time.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cerrno>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <strings.h>  // strcasecmp

namespace rangereplay::example {

// Exits with status 1 after one line on stderr naming the failed call, the
// CUDA error and the source position.
inline void check_cuda(cudaError_t error, const char* call, const char* file, int line) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "error: %s failed: %s (%s) at %s:%d\n", call, cudaGetErrorName(error), cudaGetErrorString(error),
               file, line);
  std::exit(1);
}

// Driver-API counterpart of check_cuda.
inline void check_cu(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS) name = "CUDA_ERROR_UNKNOWN";
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS) text = "unknown error";
  std::fprintf(stderr, "error: %s failed: %s (%s) at %s:%d\n", call, name, text, file, line);
  std::exit(1);
}

// Exits with status 1 after one line on stderr when a self-check fails.
inline void check_that(bool condition, const char* what, const char* file, int line) {
  if (condition) return;
  std::fprintf(stderr, "error: check failed: %s at %s:%d\n", what, file, line);
  std::exit(1);
}

}  // namespace rangereplay::example

#define CHECK_CUDA(call) ::rangereplay::example::check_cuda((call), #call, __FILE__, __LINE__)
#define CHECK_CU(call) ::rangereplay::example::check_cu((call), #call, __FILE__, __LINE__)
// After a <<<>>> launch: reports a bad launch configuration at its source line.
#define CHECK_LAUNCH() ::rangereplay::example::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
#define CHECK_THAT(condition) ::rangereplay::example::check_that((condition), #condition, __FILE__, __LINE__)

namespace rangereplay::example {

// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014; constants as in Vigna's reference splitmix64.c).
// Deterministic for a given seed on every platform.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 53 random bits.
  double next_unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

// Fills `values` with uniform doubles in [lo, hi). Choose lo > 0 for data that
// must never be zero.
inline void fill_uniform(std::vector<double>& values, SplitMix64& rng, double lo, double hi) {
  for (double& v : values) v = lo + (hi - lo) * rng.next_unit();
}

inline void fill_uniform(std::vector<float>& values, SplitMix64& rng, float lo, float hi) {
  for (float& v : values) v = lo + (hi - lo) * static_cast<float>(rng.next_unit());
}

// Fills `values` with the low 32 bits of successive SplitMix64 outputs.
inline void fill_bits(std::vector<uint32_t>& values, SplitMix64& rng) {
  for (uint32_t& v : values) v = static_cast<uint32_t>(rng.next());
}

// FNV-1a 64 over `bytes` raw bytes at `data` (see the file comment).
inline uint64_t fnv1a64(const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < bytes; ++i) {
    hash ^= p[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// Prints `checksum <name> <hex>` for `bytes` bytes of host memory.
inline void print_checksum(const char* name, const void* host, size_t bytes) {
  std::printf("checksum %s %016" PRIx64 "\n", name, fnv1a64(host, bytes));
}

// Prints `checksum-nondeterministic <name> <hex>`: a result whose bytes may
// legitimately differ between runs (floating-point atomics in any order).
inline void print_nondeterministic_checksum(const char* name, const void* host, size_t bytes) {
  std::printf("checksum-nondeterministic %s %016" PRIx64 "\n", name, fnv1a64(host, bytes));
}

// Copies `bytes` bytes of device memory to the host (synchronous cudaMemcpy)
// and prints their checksum.
inline void print_device_checksum(const char* name, const void* device, size_t bytes) {
  std::vector<unsigned char> host(bytes);
  if (bytes != 0) CHECK_CUDA(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost));
  print_checksum(name, host.data(), bytes);
}

inline void print_checksums_done() {
  std::printf("checksums-done\n");
  std::fflush(stdout);
}

// Exits with status 2 after `error: <message>` and a hint to --help.
[[noreturn]] inline void usage_error(const char* message, const char* argument) {
  std::fprintf(stderr, "error: %s%s%s (see --help)\n", message, argument ? ": " : "", argument ? argument : "");
  std::exit(2);
}

// Returns argv[i + 1] as the value of option argv[i] and advances i past it;
// a missing value is a usage error.
inline const char* option_value(int argc, char** argv, int& i) {
  if (i + 1 >= argc) usage_error("missing value for option", argv[i]);
  ++i;
  return argv[i];
}

// Parses a non-negative decimal integer; anything else is a usage error.
inline uint64_t parse_count(const char* text) {
  if (text[0] < '0' || text[0] > '9') usage_error("not a non-negative integer", text);
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0') usage_error("not a non-negative integer", text);
  return value;
}

// Parses a byte size: a decimal integer with an optional suffix B, KB, MB, GB
// (powers of 1000) or KiB, MiB, GiB (powers of 1024); suffixes are
// case-insensitive. `256MiB` = 268435456, `256MB` = 256000000.
inline uint64_t parse_bytes(const char* text) {
  if (text[0] < '0' || text[0] > '9') usage_error("not a byte size", text);
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0) usage_error("not a byte size", text);
  struct Suffix {
    const char* name;
    uint64_t scale;
  };
  static constexpr Suffix kSuffixes[] = {
      {"", 1},
      {"b", 1},
      {"kb", 1000ULL},
      {"kib", 1ULL << 10},
      {"mb", 1000000ULL},
      {"mib", 1ULL << 20},
      {"gb", 1000000000ULL},
      {"gib", 1ULL << 30},
  };
  for (const Suffix& suffix : kSuffixes) {
    if (strcasecmp(end, suffix.name) != 0) continue;
    if (value > UINT64_MAX / suffix.scale) usage_error("byte size too large", text);
    return value * suffix.scale;
  }
  usage_error("unknown byte-size suffix (use B, KB, MB, GB, KiB, MiB, GiB)", text);
}

// Parses the options every test app takes (--iterations N, --help) and
// returns the iteration count; `usage` is printed for --help.
inline int parse_iterations_only(int argc, char** argv, int default_iterations, const char* usage) {
  int iterations = default_iterations;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", usage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--iterations") == 0) {
      const uint64_t n = parse_count(option_value(argc, argv, i));
      if (n > 1000000) usage_error("--iterations at most 1000000", argv[i]);
      iterations = static_cast<int>(n);
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  return iterations;
}

// Selects device 0 and creates its primary context now (cudaSetDevice does
// so since CUDA 12), so that later driver-API calls find a current context.
inline void init_device() {
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaFree(nullptr));
}

// Number of blocks of `threads` threads covering `n` elements, capped so a
// grid-stride loop covers the rest.
inline unsigned int grid_for(size_t n, unsigned int threads) {
  const size_t blocks = (n + threads - 1) / threads;
  constexpr size_t kMaxBlocks = 1u << 20;
  if (blocks == 0) return 1;
  return static_cast<unsigned int>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

}  // namespace rangereplay::example
