// Driver API calls that put GPU work on a stream or change device memory but
// that the recorder does not record. A replay re-submits only what was
// recorded, so a range that made one of these calls would be replayed without
// it: its passes would run different work (and read different data) from the
// application's own execution. The range declines unsupported_api instead,
// naming the call.
//
// The calls the tool knows are the rows of its table of intercepted driver
// calls (src/tool/logic/driver_calls.h), recorded, tracked or declined there; this
// classifier answers for the calls without a row, by family: the cuMemcpy*
// and cuMemset* families (2D and 3D copies and sets, peer copies, CUDA
// arrays, batched copies), stream memory operations (cuStreamWaitValue*,
// cuStreamWriteValue*, cuStreamBatchMemOp*), the legacy launches (cuLaunch,
// cuLaunchGrid, cuLaunchGridAsync) and cuMemDiscard*, so that a new API of
// one of these families declines too. Event records, stream waits,
// prefetches and memory advice do not change device memory: the replay runs
// in submission order on one stream, which keeps every order the events
// expressed.
//
// Thread-safety: pure function.
#pragma once

#include <string_view>

namespace rangereplay {

/// True when `function_name` (a driver API name as CUPTI reports it, e.g.
/// "cuMemcpy2DAsync_v2") enqueues GPU work or writes device memory and is not
/// one of the calls the recorder handles (see the file comment). Names are
/// matched by family prefix; a call with a row in the tool's table is
/// answered by its row, never by this.
bool is_unrecorded_gpu_work(std::string_view function_name);

}  // namespace rangereplay
