// RecordedProgram: the GPU work of one range, in submission order, as the
// tool recorded it during pass 0 (MISSION.md point 3). Replays re-submit it.
//
// Pure data: driver handles are kept as opaque 64-bit values so this type is
// testable without CUDA; src/cuda/replayer.h turns them back into handles.
// Thread-safety: none; the range controller appends under its own lock.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace rangereplay {

enum class LaunchApi : std::uint8_t { kLaunchKernel, kLaunchKernelEx, kCooperative };

/// One kernel launch with its argument bytes copied at launch time.
struct KernelLaunchOp {
  LaunchApi api = LaunchApi::kLaunchKernel;
  std::uint64_t function = 0;   // CUfunction
  std::string name;             // mangled symbol name
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint32_t shared_mem_bytes = 0;
  std::uint64_t stream = 0;     // the application's CUstream (for the report)
  std::vector<std::uint8_t> arg_bytes;     // all arguments, packed at their offsets
  std::vector<std::uint32_t> arg_offsets;  // byte offset of each argument in arg_bytes
  std::vector<std::uint32_t> arg_sizes;    // byte size of each argument
  /// Launch attributes of cuLaunchKernelEx as raw CUlaunchAttribute bytes.
  std::vector<std::uint8_t> attributes;
  std::uint32_t attribute_count = 0;
};

/// cuMemsetD8/16/32 (1D): `count` elements of `element_bytes` set to `value`.
struct MemsetOp {
  std::uint64_t dst = 0;
  std::uint32_t value = 0;
  std::uint32_t element_bytes = 1;
  std::uint64_t count = 0;
};

/// Device-to-device copy of `bytes`.
struct CopyDeviceOp {
  std::uint64_t dst = 0;
  std::uint64_t src = 0;
  std::uint64_t bytes = 0;
};

/// Host-to-device copy, with its source bytes captured at record time.
struct CopyFromHostOp {
  std::uint64_t dst = 0;
  std::vector<std::uint8_t> data;
};

using RecordedOp = std::variant<KernelLaunchOp, MemsetOp, CopyDeviceOp, CopyFromHostOp>;

struct RecordedProgram {
  std::vector<RecordedOp> ops;
  std::uint32_t skipped_device_to_host = 0;  // D2H copies not re-executed in replays

  std::size_t kernel_count() const;
  /// Launches only, in order (for the report and per-kernel metrics).
  std::vector<const KernelLaunchOp*> kernels() const;
};

}  // namespace rangereplay
