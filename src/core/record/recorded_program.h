// RecordedProgram: the GPU work of one range, in submission order, as the
// tool recorded it during pass 0. Replays re-submit it.
//
// Pure data: driver handles are kept as opaque 64-bit values so this type is
// testable without CUDA; src/cuda/replayer.h turns them back into handles.
// Thread-safety: none; the range controller appends under its own lock.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/record/graph_nodes.h"

namespace rangereplay {

enum class LaunchApi : std::uint8_t { kLaunchKernel, kLaunchKernelEx, kCooperative };

/// One kernel launch with its argument bytes copied at launch time; or one
/// kernel node of a graph, with the arguments its executable graph holds.
struct KernelLaunchOp {
  LaunchApi api = LaunchApi::kLaunchKernel;
  std::uint64_t function = 0;  // CUfunction
  std::string name;            // mangled symbol name
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint32_t shared_mem_bytes = 0;
  std::uint64_t stream = 0;  // the application's CUstream (for the report)
  /// The launch's number among the process's kernel launches (cuLaunchKernel,
  /// cuLaunchKernelEx, cooperative; every host thread, in call order), from
  /// 0: what `ncu --launch-skip` counts in a process without graph launches
  /// (ncu also counts each kernel node of a launched graph; this does not).
  /// -1 for a graph's kernel node.
  std::int64_t launch_index = -1;
  std::vector<std::uint8_t> arg_bytes;     // all arguments, packed at their offsets
  std::vector<std::uint32_t> arg_offsets;  // byte offset of each argument in arg_bytes
  std::vector<std::uint32_t> arg_sizes;    // byte size of each argument
  /// Graph kernel nodes only: non-empty when the tool cannot know the node's
  /// arguments when the graph runs (a device-updatable node, whose arguments
  /// kernels may change; a parameter layout the driver did not report), and
  /// why. The argument fields are then empty and not scanned for pointers.
  std::string arguments_unknown;
  /// Sets arguments_unknown to `why` (non-empty) and empties the argument fields.
  void forget_arguments(std::string why) {
    arguments_unknown = std::move(why);
    arg_bytes.clear();
    arg_offsets.clear();
    arg_sizes.clear();
  }
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

/// cuGraphLaunch of an executable graph, replayed as one unit with
/// cuGraphLaunch(exec, replay stream): the exec holds its nodes' parameters,
/// so nothing else is captured. The exec must exist until the replay window
/// ends (the recorder declines a range that destroys or changes it).
struct GraphLaunchOp {
  std::uint64_t exec = 0;    // CUgraphExec
  std::uint64_t stream = 0;  // the application's CUstream (for the report)
  /// The graph's kernel nodes, child graphs flattened, in a topological
  /// order of the graph (cuda/graph_inspector.h): name, grid, block, shared
  /// memory for the report, and the argument bytes the exec holds, for the
  /// pointer scan (a replay relaunches the exec, not these). Shared by every
  /// launch of the same exec.
  std::shared_ptr<const std::vector<KernelLaunchOp>> kernels;
};

using RecordedOp = std::variant<KernelLaunchOp, MemsetOp, CopyDeviceOp, CopyFromHostOp, GraphLaunchOp>;

struct RecordedProgram {
  std::vector<RecordedOp> ops;
  std::uint32_t skipped_device_to_host = 0;  // D2H copies not re-executed in replays
  /// Host functions (cuLaunchHostFunc) the range enqueued: they ran in pass 0
  /// and are never replayed (they are the application's host code). Sound
  /// only while nothing is recorded after the first: `ops.size()` when it
  /// came is `ops_before_host_function`.
  std::uint32_t host_functions = 0;
  std::optional<std::size_t> ops_before_host_function;

  /// Kernels run: plain launches plus the kernel nodes of graph launches.
  std::size_t kernel_count() const;
  /// Kernels run, in order (for the report and per-kernel metrics): plain
  /// launches, and for a graph launch its kernel nodes in its node order.
  std::vector<const KernelLaunchOp*> kernels() const;
  /// The exec of every graph launch, in order (repeats included).
  std::vector<std::uint64_t> graph_execs() const;
  /// One LaunchUnit per kernel launch or graph launch, in order (for
  /// map_counter_ranges).
  std::vector<LaunchUnit> launch_units() const;
};

}  // namespace rangereplay
