// Tier budgets: how many snapshot bytes each tier may hold, as pure functions.
//
// Backings gather the numbers (cuMemGetInfo, /proc/meminfo) and call these
// once per plan; the formulas are:
//   device = min(largest allocation, half of device memory,
//                retained + 95% of (free - reserve))
// where reserve is device memory left for others: CUPTI's counter buffers and
// the driver need some at cuptiRangeProfilerStart (measured on the H200: with
// 165 MB left free it failed with CUPTI_ERROR_UNKNOWN).
//   pinned = min(largest allocation, retained + half of available host memory)
// The retained arena counts as available: the next commit reuses or frees it.
// All arithmetic saturates (no overflow for inputs near UINT64_MAX). Pure and
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace rangereplay::storage {

struct DeviceMemoryInfo {
  std::uint64_t largest_allocation_bytes = 0;  // largest single allocation the backing allows
  std::uint64_t total_bytes = 0;               // device memory (cuMemGetInfo total)
  std::uint64_t free_bytes = 0;                // free device memory now (cuMemGetInfo free)
  std::uint64_t reserve_bytes = 0;             // of free, never taken by the device tier
};

/// Device memory the CUDA backing leaves free for CUPTI and the driver: 1 GiB.
inline constexpr std::uint64_t kDeviceReserveBytes = std::uint64_t{1} << 30;

struct HostMemoryInfo {
  std::uint64_t largest_allocation_bytes = 0;  // largest single pinned allocation allowed
  std::uint64_t available_bytes = 0;           // /proc/meminfo MemAvailable, in bytes
};

/// min(largest, total / 2, retained + floor(max(free - reserve, 0) * 95 / 100)),
/// in bytes.
std::uint64_t device_tier_budget(const DeviceMemoryInfo& info, std::uint64_t retained_bytes);

/// min(largest, retained + available / 2), in bytes.
std::uint64_t pinned_tier_budget(const HostMemoryInfo& info, std::uint64_t retained_bytes);

/// The budget lowered to the user's limit when there is one; never raised.
std::uint64_t apply_limit(std::uint64_t budget_bytes, std::optional<std::uint64_t> limit_bytes);

/// MemAvailable from the text of /proc/meminfo ("MemAvailable:  123456 kB"),
/// in bytes. Errors (not_found / invalid_argument) name the missing or bad line.
StatusOr<std::uint64_t> parse_meminfo_available(std::string_view meminfo_text);

/// MemAvailable read from the file at `meminfo_path` (/proc/meminfo), in
/// bytes. Errors: unavailable when the file cannot be read; otherwise as
/// parse_meminfo_available.
StatusOr<std::uint64_t> read_meminfo_available(const std::string& meminfo_path);

}  // namespace rangereplay::storage
