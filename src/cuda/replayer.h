// Replayer: re-submits a RecordedProgram on the tool's own stream, in
// recorded order. All work goes to one stream, which is a
// valid order for any multi-stream recording because the program is in host
// submission order.
//
//   RR_ASSIGN_OR_RETURN(auto replayer, Replayer::create(program));   // once per range
//   RR_RETURN_IF_ERROR(replayer.submit(tool_stream));                // once per pass
//
// create() builds every launch's kernelParams array once, so submit() costs
// one driver call per op (a graph launch is one cuGraphLaunch of the
// application's executable graph). The caller must hold the tool's re-entrancy guard so
// these launches are not recorded again. Thread-safety: one thread at a time.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <vector>

#include "core/base/status.h"
#include "core/record/recorded_program.h"

namespace rangereplay {

/// Calls made around each kernel launch submit() makes (a counter range
/// pushed before it and popped after it). Implementations must not wait for
/// the GPU or for another application thread.
class KernelBrackets {
 public:
  virtual ~KernelBrackets() = default;
  /// Before the launch of the `kernel`-th kernel of the program (from 0, in
  /// recorded order; graph launches are not kernels here).
  virtual Status open(std::size_t kernel) = 0;
  /// After that launch was submitted.
  virtual Status close() = 0;
};

class Replayer {
 public:
  static StatusOr<Replayer> create(const RecordedProgram& program);
  /// Submits every op asynchronously on `stream`; with `brackets`, each
  /// kernel launch is submitted between its open() and close(). Errors: the
  /// first failing driver call or bracket (the range's replay is then
  /// unsound and must be declined).
  Status submit(CUstream stream, KernelBrackets* brackets = nullptr) const;
  std::size_t op_count() const { return program_->ops.size(); }

 private:
  explicit Replayer(const RecordedProgram& program) : program_(&program) {}
  const RecordedProgram* program_;
  // Per op: pointers into the op's arg_bytes (only for kernel launches).
  std::vector<std::vector<void*>> params_;
};

}  // namespace rangereplay
