// Which GPUs the profiler serves (see gpu_support.h).
#include "core/config/gpu_support.h"

#include <algorithm>
#include <array>

namespace rangereplay {

bool is_ampere_or_later_chip(std::string_view chip) {
  if (chip.size() < 2) return false;
  static constexpr std::array<std::string_view, 5> kBeforeAmpere = {"GK", "GM", "GP", "GV", "TU"};
  return std::find(kBeforeAmpere.begin(), kBeforeAmpere.end(), chip.substr(0, 2)) == kBeforeAmpere.end();
}

Status check_gpu_supported(std::string_view device_name, int cc_major, int cc_minor, std::string_view chip,
                           std::span<const std::string> host_api_chips) {
  const std::string device = std::string(device_name.empty() ? "the GPU" : device_name) + " (" +
                             (chip.empty() ? std::string() : std::string(chip) + ", ") + "compute capability " +
                             std::to_string(cc_major) + "." + std::to_string(cc_minor) + ")";
  if (cc_major < kMinComputeCapabilityMajor) {
    return failed_precondition(device +
                               " cannot be profiled: rangereplay needs an NVIDIA GPU from Ampere on (compute "
                               "capability 8.0 or later); choose another GPU with CUDA_VISIBLE_DEVICES, or use "
                               "Nsight Compute on this one");
  }
  if (std::find(host_api_chips.begin(), host_api_chips.end(), chip) == host_api_chips.end()) {
    return failed_precondition(device + " cannot be profiled: the CUPTI library loaded does not know chip '" +
                               std::string(chip) +
                               "', so its metrics cannot be named or scheduled; install the CUDA toolkit's CUPTI "
                               "that supports this GPU (or newer) and put it first on LD_LIBRARY_PATH");
  }
  return ok_status();
}

}  // namespace rangereplay
