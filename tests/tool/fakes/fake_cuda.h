// A fake CUDA driver and CUPTI subscription for the CPU tests of src/tool's
// CUDA-bound part (tests/tool): fake_cuda.cpp defines, in place of libcuda
// and libcupti, the cu* and cupti* entry points the tool, src/cuda's host code
// and src/cupti's status helper call, with host-memory semantics:
//   - one device (ordinal 0, compute capability 9.0, a small L2) and one
//     context, current on every thread;
//   - device, pinned and mapped allocations are host allocations (256-byte
//     aligned) whose addresses serve as CUdeviceptr; cuPointerGetAttribute
//     answers from the table of them; cuMemGetInfo reports the configured
//     total less what is allocated;
//   - copies and memsets are memcpy/memset; streams and events complete at
//     once (every call is synchronous), and an event's elapsed time is 0;
//   - cuLaunchKernel and cuLaunchKernelEx run the host function a test
//     registered for the CUfunction (register_kernel), with the launch's
//     parameter array;
//   - graphs of kernel nodes made by make_kernel_graph answer the graph
//     queries and run at cuGraphLaunch;
//   - modules, libraries, other graph nodes and every call not listed above
//     answer an error code (CUDA_ERROR_NOT_SUPPORTED or
//     CUDA_ERROR_INVALID_VALUE), never abort.
// The application side of a test calls the driver through the app_* helpers
// below, which deliver CUPTI's driver-API callbacks (API_ENTER, the call,
// API_EXIT) to the subscriber as CUPTI would; NVTX range markers are
// delivered by nvtx_push/nvtx_pop. The tool's own calls reach no callback
// (CUPTI would deliver them; the tool ignores its own calls anyway).
// It is a fake: nothing here says how a GPU behaves beyond these rules.
//
// Thread-safety: the entry points take one lock around the fake's tables;
// callbacks are delivered outside it. reset() must not run beside a call.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rangereplay::fake {

/// What the fake device reports.
struct DeviceOptions {
  std::uint64_t total_memory = std::uint64_t{1} << 30;  // bytes, cuMemGetInfo's total
  int l2_bytes = 1 << 20;                               // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
};

/// A test "kernel": called with cuLaunchKernel's kernelParams (one pointer
/// per parameter, as the driver receives them).
using KernelBody = std::function<void(void** params)>;

/// Frees every allocation, forgets kernels, counts and the subscriber, and
/// configures the device. Call at the start of each test.
void reset(const DeviceOptions& options = {});

/// A kernel named `name` whose parameters have the sizes `param_sizes`
/// (bytes, laid out one after the other with natural alignment, as
/// cuFuncGetParamInfo reports them). The handle runs the kernel until
/// reset(), and no later kernel of the process gets the same handle.
CUfunction register_kernel(const std::string& name, std::vector<std::size_t> param_sizes, KernelBody body);

/// The one context and the application's stream (the legacy stream, 0).
CUcontext context();

/// How often the fake ran what (since reset()).
struct Counts {
  std::uint64_t launches = 0;            // cuLaunchKernel(Ex) calls that ran a body
  std::uint64_t tool_kernels = 0;        // note_tool_kernel calls
  std::uint64_t graph_launches = 0;      // cuGraphLaunch calls that ran a graph
  std::uint64_t device_allocations = 0;  // cuMemAlloc calls that succeeded
  std::uint64_t live_allocations = 0;    // allocations not freed yet (device and host)
  std::uint64_t callbacks = 0;           // callbacks delivered to the subscriber
  std::uint64_t async_copy_calls = 0;    // cuMemcpyAsync and cuMemcpyBatchAsync calls
};
Counts counts();

/// Counts one kernel of the tool's own that ran on the host
/// (host_kernels.cpp's copy, digest, chunk copy and L2 flush launches:
/// CUPTI counts each as a kernel when it runs inside a counter pass).
void note_tool_kernel();
/// Counts one cuMemcpyAsync or cuMemcpyBatchAsync call (Counts::async_copy_calls).
void note_async_copy_call();

/// A graph of one kernel node: `f` with a copy of the parameter values
/// `params` points to (as cuGraphAddKernelNode copies them), no edges. The
/// graph answers cuGraphGetNodes, cuGraphNodeGetType,
/// cuGraphKernelNodeGetParams, cuGraphKernelNodeGetAttribute (not device
/// updatable) and cuGraphGetEdges. Graph and exec handles stay valid for
/// the process (never reused).
CUgraph make_kernel_graph(CUfunction f, void** params);
/// An executable graph of `graph`: cuGraphLaunch of it runs its kernel
/// nodes. (What cuGraphInstantiate would make; the test delivers the
/// instantiation's callbacks with app_call.)
CUgraphExec instantiate(CUgraph graph);

/// Whether a CUPTI subscriber is registered with its driver-API domain on.
bool subscribed();

/// Delivers one driver-API callback (`data` with its site set) to the
/// subscriber, when its driver-API domain is on.
void deliver_driver_api(CUpti_CallbackId cbid, const CUpti_CallbackData& data);

/// One application driver call of any kind, as CUPTI's driver domain shows
/// it: API_ENTER with `params` (the call's struct from
/// generated_cuda_meta.h), then `call()` (what the call does: usually the
/// fake's entry point, or a lambda for a call the fake does not implement),
/// then API_EXIT with its result.
template <class Params, class Call>
CUresult app_call(CUpti_CallbackId cbid, const char* name, Params& params, Call call, const char* symbol = nullptr) {
  CUresult result = CUDA_SUCCESS;
  CUpti_CallbackData data{};
  data.functionName = name;
  data.functionParams = &params;
  data.functionReturnValue = &result;
  data.symbolName = symbol;
  data.context = context();
  data.contextUid = 1;
  data.callbackSite = CUPTI_API_ENTER;
  deliver_driver_api(cbid, data);
  result = call();
  data.callbackSite = CUPTI_API_EXIT;
  deliver_driver_api(cbid, data);
  return result;
}

// The application's calls, delivered to the subscriber as CUPTI does.
CUresult app_mem_alloc(CUdeviceptr* address, std::size_t bytes);
CUresult app_mem_free(CUdeviceptr address);
CUresult app_memcpy_htod(CUdeviceptr dst, const void* src, std::size_t bytes);
CUresult app_memcpy_dtoh(void* dst, CUdeviceptr src, std::size_t bytes);
CUresult app_launch(CUfunction f, void** params, unsigned grid = 1, unsigned block = 32);
/// cuStreamSynchronize on the legacy stream.
CUresult app_synchronize();
/// nvtxRangePushA(message) and nvtxRangePop() as CUPTI's NVTX domain delivers them.
void nvtx_push(const char* message);
void nvtx_pop();
/// CUPTI's resource callback for the creation of the fake's context (as the
/// driver makes it at the application's first context).
void context_created();

}  // namespace rangereplay::fake
