// Which GPUs the profiler serves: NVIDIA GPUs from Ampere on (compute
// capability 8.0 or later) whose chip CUPTI's profiler host API knows (the
// metric sets are resolved and scheduled there by chip name). The launcher
// asks before the application's first range and refuses any other GPU with
// one line; the CPU tests take the chips from Ampere on from the host API's
// list with is_ampere_or_later_chip.
//
//   if (Status s = check_gpu_supported("NVIDIA H200", 9, 0, "GH100", chips); !s.ok()) ...
//
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace rangereplay {

/// The oldest compute capability served: 8.0 (Ampere, A100).
inline constexpr int kMinComputeCapabilityMajor = 8;

/// Whether CUPTI chip name `chip` is of an architecture from Ampere on: false
/// for the Kepler, Maxwell, Pascal, Volta and Turing prefixes (GK, GM, GP,
/// GV, TU) and for an empty name; true for every other name (GA, AD, GH, GB,
/// and chips newer than this list).
bool is_ampere_or_later_chip(std::string_view chip);

/// ok when the device can be profiled: compute capability `cc_major`.`cc_minor`
/// at least 8.0, and `chip` in `host_api_chips` (cupti::supported_chips()).
/// Otherwise kFailedPrecondition with one line naming the device, what it
/// lacks and what to do, e.g. "Tesla V100-SXM2-16GB (GV100, compute
/// capability 7.0) cannot be profiled: rangereplay needs an NVIDIA GPU from
/// Ampere on (compute capability 8.0 or later); ...".
Status check_gpu_supported(std::string_view device_name, int cc_major, int cc_minor, std::string_view chip,
                           std::span<const std::string> host_api_chips);

}  // namespace rangereplay
