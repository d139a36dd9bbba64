// The fake CUDA driver and CUPTI subscription (fake_cuda.h says what it
// fakes and how). Entry points are defined with cuda.h's own declarations
// (its macros give the versioned names, cuMemAlloc -> cuMemAlloc_v2), so a
// signature that drifts from the toolkit's fails to compile.
#include "tool/fakes/fake_cuda.h"

#include <cuda.h>
#include <cupti.h>
#include <generated_nvtx_meta.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

namespace rangereplay::fake {
namespace {

enum class Kind { kDevice, kPinned };

struct Allocation {
  std::size_t bytes = 0;
  Kind kind = Kind::kDevice;
};

struct Kernel {
  std::string name;
  std::vector<std::size_t> offsets;
  std::vector<std::size_t> sizes;
  KernelBody body;
};

struct GraphNode {
  CUfunction f = nullptr;
  std::vector<std::vector<unsigned char>> values;  // one per parameter
  std::vector<void*> pointers;                     // to values, as kernelParams
};

struct Graph {
  std::vector<std::unique_ptr<GraphNode>> nodes;
};

struct GraphExec {
  Graph* graph = nullptr;
};

struct State {
  std::mutex mutex;
  DeviceOptions options;
  std::map<std::uintptr_t, Allocation> allocations;  // by base address
  std::uint64_t allocated = 0;                       // bytes of device allocations
  std::vector<std::unique_ptr<Kernel>> kernels;
  // Kernels of earlier tests: kept, so that no later kernel gets the handle
  // of one the tool has seen (it caches parameter layouts by handle, as a
  // driver never reuses a loaded function's handle).
  std::vector<std::unique_ptr<Kernel>> retired;
  // Graphs and execs live for the process (their handles are never reused).
  std::vector<std::unique_ptr<Graph>> graphs;
  std::vector<std::unique_ptr<GraphExec>> execs;
  std::set<const void*> streams;
  std::set<const void*> events;
  Counts counts;
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  std::set<CUpti_CallbackDomain> domains;
};

State& state() {
  static State* s = new State();  // never destroyed: the tool may call at exit
  return *s;
}

Graph* graph_of(const void* handle) {
  std::lock_guard lock(state().mutex);
  for (const auto& g : state().graphs)
    if (g.get() == handle) return g.get();
  return nullptr;
}

GraphNode* node_of(const void* handle) {
  std::lock_guard lock(state().mutex);
  for (const auto& g : state().graphs)
    for (const auto& n : g->nodes)
      if (n.get() == handle) return n.get();
  return nullptr;
}

GraphExec* exec_of(const void* handle) {
  std::lock_guard lock(state().mutex);
  for (const auto& e : state().execs)
    if (e.get() == handle) return e.get();
  return nullptr;
}

// The context handle: the address of a static object, never dereferenced.
char g_context_tag;
CUcontext fake_context() { return reinterpret_cast<CUcontext>(&g_context_tag); }

std::optional<Allocation> find_locked(State& s, std::uintptr_t address, std::uintptr_t* base = nullptr) {
  auto it = s.allocations.upper_bound(address);
  if (it == s.allocations.begin()) return std::nullopt;
  --it;
  if (address >= it->first + it->second.bytes) return std::nullopt;
  if (base != nullptr) *base = it->first;
  return it->second;
}

CUresult allocate(std::uintptr_t* address, std::size_t bytes, Kind kind) {
  if (address == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (kind == Kind::kDevice && s.allocated + bytes > s.options.total_memory) return CUDA_ERROR_OUT_OF_MEMORY;
  const std::size_t rounded = (bytes + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, rounded);
  if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(p, 0, rounded);
  *address = reinterpret_cast<std::uintptr_t>(p);
  s.allocations[*address] = Allocation{bytes, kind};
  if (kind == Kind::kDevice) {
    s.allocated += bytes;
    ++s.counts.device_allocations;
  }
  ++s.counts.live_allocations;
  return CUDA_SUCCESS;
}

CUresult release(std::uintptr_t address, Kind kind) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.allocations.find(address);
  if (it == s.allocations.end() || it->second.kind != kind) return CUDA_ERROR_INVALID_VALUE;
  if (kind == Kind::kDevice) s.allocated -= it->second.bytes;
  s.allocations.erase(it);
  --s.counts.live_allocations;
  std::free(reinterpret_cast<void*>(address));
  return CUDA_SUCCESS;
}

Kernel* kernel_of(const void* handle) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  for (const auto& k : s.kernels)
    if (k.get() == handle) return k.get();
  return nullptr;
}

CUresult run_kernel(const void* handle, void** params) {
  Kernel* k = kernel_of(handle);
  if (k == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (params == nullptr && !k->sizes.empty()) return CUDA_ERROR_INVALID_VALUE;
  k->body(params);
  std::lock_guard lock(state().mutex);
  ++state().counts.launches;
  return CUDA_SUCCESS;
}

CUresult param_info(const void* handle, std::size_t index, std::size_t* offset, std::size_t* size) {
  Kernel* k = kernel_of(handle);
  if (k == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (index >= k->sizes.size()) return CUDA_ERROR_INVALID_VALUE;
  if (offset != nullptr) *offset = k->offsets[index];
  if (size != nullptr) *size = k->sizes[index];
  return CUDA_SUCCESS;
}

// Delivers one callback to the subscriber when its domain is on (outside the lock).
void deliver(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  State& s = state();
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  {
    std::lock_guard lock(s.mutex);
    if (s.callback == nullptr || s.domains.count(domain) == 0) return;
    callback = s.callback;
    userdata = s.userdata;
    ++s.counts.callbacks;
  }
  callback(userdata, domain, cbid, data);
}

CUresult copy(std::uintptr_t dst, std::uintptr_t src, std::size_t bytes) {
  if (bytes == 0) return CUDA_SUCCESS;
  if (dst == 0 || src == 0) return CUDA_ERROR_INVALID_VALUE;
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}

template <class T>
CUresult fill(CUdeviceptr dst, T value, std::size_t count) {
  if (dst == 0 && count != 0) return CUDA_ERROR_INVALID_VALUE;
  T* p = reinterpret_cast<T*>(dst);
  std::fill(p, p + count, value);
  return CUDA_SUCCESS;
}

// A new stream or event handle of `handles` (never reused while it lives)
// into *out; the caller holds the state's mutex.
template <class Handle>
CUresult new_handle(std::set<const void*>& handles, Handle* out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const void* h = new char;
  handles.insert(h);
  *out = reinterpret_cast<Handle>(const_cast<void*>(h));
  return CUDA_SUCCESS;
}

CUresult drop_handle(std::set<const void*>& handles, const void* h) {
  if (handles.erase(h) == 0) return CUDA_ERROR_INVALID_HANDLE;
  delete static_cast<const char*>(h);
  return CUDA_SUCCESS;
}

}  // namespace

void deliver_driver_api(CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  deliver(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &data);
}

void reset(const DeviceOptions& options) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  for (auto& [address, allocation] : s.allocations) std::free(reinterpret_cast<void*>(address));
  s.allocations.clear();
  for (const void* h : s.streams) delete static_cast<const char*>(h);
  for (const void* h : s.events) delete static_cast<const char*>(h);
  s.streams.clear();
  s.events.clear();
  for (auto& k : s.kernels) s.retired.push_back(std::move(k));
  s.kernels.clear();
  s.allocated = 0;
  s.counts = Counts{};
  s.callback = nullptr;
  s.userdata = nullptr;
  s.domains.clear();
  s.options = options;
}

CUfunction register_kernel(const std::string& name, std::vector<std::size_t> param_sizes, KernelBody body) {
  auto k = std::make_unique<Kernel>();
  k->name = name;
  std::size_t offset = 0;
  for (std::size_t size : param_sizes) {
    const std::size_t align = std::min<std::size_t>(size, 8);
    offset = (offset + align - 1) / align * align;
    k->offsets.push_back(offset);
    offset += size;
  }
  k->sizes = std::move(param_sizes);
  k->body = std::move(body);
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.kernels.push_back(std::move(k));
  return reinterpret_cast<CUfunction>(s.kernels.back().get());
}

CUcontext context() { return fake_context(); }

CUgraph make_kernel_graph(CUfunction f, void** params) {
  const Kernel* k = kernel_of(f);
  auto node = std::make_unique<GraphNode>();
  node->f = f;
  if (k != nullptr)
    for (std::size_t i = 0; i < k->sizes.size(); ++i) {
      const auto* bytes = static_cast<const unsigned char*>(params[i]);
      node->values.emplace_back(bytes, bytes + k->sizes[i]);
    }
  for (auto& value : node->values) node->pointers.push_back(value.data());
  auto graph = std::make_unique<Graph>();
  graph->nodes.push_back(std::move(node));
  std::lock_guard lock(state().mutex);
  state().graphs.push_back(std::move(graph));
  return reinterpret_cast<CUgraph>(state().graphs.back().get());
}

CUgraphExec instantiate(CUgraph graph) {
  auto exec = std::make_unique<GraphExec>();
  exec->graph = reinterpret_cast<Graph*>(graph);
  std::lock_guard lock(state().mutex);
  state().execs.push_back(std::move(exec));
  return reinterpret_cast<CUgraphExec>(state().execs.back().get());
}

Counts counts() {
  std::lock_guard lock(state().mutex);
  return state().counts;
}

void note_tool_kernel() {
  std::lock_guard lock(state().mutex);
  ++state().counts.tool_kernels;
}

void note_async_copy_call() {
  std::lock_guard lock(state().mutex);
  ++state().counts.async_copy_calls;
}

bool subscribed() {
  std::lock_guard lock(state().mutex);
  return state().callback != nullptr && state().domains.count(CUPTI_CB_DOMAIN_DRIVER_API) != 0;
}

CUresult app_mem_alloc(CUdeviceptr* address, std::size_t bytes) {
  cuMemAlloc_v2_params p{address, bytes};
  return app_call(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", p,
                  [&] { return cuMemAlloc(address, bytes); });
}

CUresult app_mem_free(CUdeviceptr address) {
  cuMemFree_v2_params p{address};
  return app_call(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", p, [&] { return cuMemFree(address); });
}

CUresult app_memcpy_htod(CUdeviceptr dst, const void* src, std::size_t bytes) {
  cuMemcpyHtoD_v2_params p{dst, src, bytes};
  return app_call(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2", p,
                  [&] { return cuMemcpyHtoD(dst, src, bytes); });
}

CUresult app_memcpy_dtoh(void* dst, CUdeviceptr src, std::size_t bytes) {
  cuMemcpyDtoH_v2_params p{dst, src, bytes};
  return app_call(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2", p,
                  [&] { return cuMemcpyDtoH(dst, src, bytes); });
}

CUresult app_launch(CUfunction f, void** params, unsigned grid, unsigned block) {
  cuLaunchKernel_params p{f, grid, 1, 1, block, 1, 1, 0, nullptr, params, nullptr};
  const Kernel* k = kernel_of(f);
  return app_call(
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", p,
      [&] { return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, nullptr, params, nullptr); },
      k != nullptr ? k->name.c_str() : nullptr);
}

CUresult app_synchronize() {
  cuStreamSynchronize_params p{nullptr};
  return app_call(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize", p,
                  [] { return cuStreamSynchronize(nullptr); });
}

void nvtx_push(const char* message) {
  nvtxRangePushA_params p{message};
  int result = 0;
  CUpti_NvtxData data{"nvtxRangePushA", &p, &result};
  deliver(CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePushA, &data);
}

void nvtx_pop() {
  nvtxRangePop_params p{};
  int result = 0;
  CUpti_NvtxData data{"nvtxRangePop", &p, &result};
  deliver(CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePop, &data);
}

void context_created() {
  CUpti_ResourceData data{};
  data.context = context();
  deliver(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &data);
}

}  // namespace rangereplay::fake

using rangereplay::fake::Graph;
using rangereplay::fake::GraphExec;
using rangereplay::fake::GraphNode;
using rangereplay::fake::Kind;
using rangereplay::fake::state;

extern "C" {

// --- Device, context, version ---------------------------------------------
CUresult CUDAAPI cuDriverGetVersion(int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetCurrent(CUcontext* ctx) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ctx = rangereplay::fake::context();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetApiVersion(CUcontext, unsigned int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *version = 3020;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) {
  return ctx == rangereplay::fake::context() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  // One context, current on every thread: making it (or none) current changes nothing.
  return ctx == nullptr || ctx == rangereplay::fake::context() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
CUresult CUDAAPI cuCtxPopCurrent(CUcontext* ctx) {
  if (ctx != nullptr) *ctx = rangereplay::fake::context();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice) {
  if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(name, static_cast<std::size_t>(len), "%s", "Fake GPU (host memory)");
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice, unsigned int* flags, int* active) {
  if (flags != nullptr) *flags = 0;
  if (active != nullptr) *active = 1;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: {
      std::lock_guard lock(state().mutex);
      *value = state().options.l2_bytes;
      return CUDA_SUCCESS;
    }
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; return CUDA_SUCCESS;
    default: return CUDA_ERROR_NOT_SUPPORTED;
  }
}
CUresult CUDAAPI cuGetErrorName(CUresult error, const char** text) {
  if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *text = error == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorString(CUresult error, const char** text) {
  if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *text = error == CUDA_SUCCESS ? "no error" : "an error of the fake CUDA driver";
  return CUDA_SUCCESS;
}

// --- Memory -----------------------------------------------------------------
CUresult CUDAAPI cuMemAlloc(CUdeviceptr* address, size_t bytes) {
  std::uintptr_t a = 0;
  const CUresult r = rangereplay::fake::allocate(&a, bytes, Kind::kDevice);
  if (r == CUDA_SUCCESS) *address = a;
  return r;
}
CUresult CUDAAPI cuMemFree(CUdeviceptr address) { return rangereplay::fake::release(address, Kind::kDevice); }
CUresult CUDAAPI cuMemHostAlloc(void** p, size_t bytes, unsigned int) {
  if (p == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::uintptr_t a = 0;
  const CUresult r = rangereplay::fake::allocate(&a, bytes, Kind::kPinned);
  if (r == CUDA_SUCCESS) *p = reinterpret_cast<void*>(a);
  return r;
}
CUresult CUDAAPI cuMemFreeHost(void* p) {
  return rangereplay::fake::release(reinterpret_cast<std::uintptr_t>(p), Kind::kPinned);
}
CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr* device, void* p, unsigned int) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard lock(state().mutex);
  if (!rangereplay::fake::find_locked(state(), reinterpret_cast<std::uintptr_t>(p))) return CUDA_ERROR_INVALID_VALUE;
  *device = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  std::lock_guard lock(state().mutex);
  const auto& s = state();
  if (free_bytes != nullptr) *free_bytes = s.options.total_memory - s.allocated;
  if (total_bytes != nullptr) *total_bytes = s.options.total_memory;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard lock(state().mutex);
  std::uintptr_t base = 0;
  const auto allocation = rangereplay::fake::find_locked(state(), ptr, &base);
  if (!allocation) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned int*>(data) = allocation->kind == Kind::kDevice ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<unsigned int*>(data) = 0; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<CUdeviceptr*>(data) = ptr; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *static_cast<CUcontext*>(data) = rangereplay::fake::context();
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<CUdeviceptr*>(data) = base; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<std::size_t*>(data) = allocation->bytes; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data) = 0; return CUDA_SUCCESS;
    default: return CUDA_ERROR_NOT_SUPPORTED;
  }
}
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
  return rangereplay::fake::copy(dst, reinterpret_cast<std::uintptr_t>(src), bytes);
}
CUresult CUDAAPI cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
  return rangereplay::fake::copy(reinterpret_cast<std::uintptr_t>(dst), src, bytes);
}
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream) {
  return rangereplay::fake::copy(dst, reinterpret_cast<std::uintptr_t>(src), bytes);
}
CUresult CUDAAPI cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream) {
  return rangereplay::fake::copy(reinterpret_cast<std::uintptr_t>(dst), src, bytes);
}
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream) {
  return rangereplay::fake::copy(dst, src, bytes);
}
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream) {
  rangereplay::fake::note_async_copy_call();
  return rangereplay::fake::copy(dst, src, bytes);
}
CUresult CUDAAPI cuMemcpyBatchAsync(CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes, size_t count,
                                    CUmemcpyAttributes*, size_t*, size_t, CUstream) {
  if (count != 0 && (dsts == nullptr || srcs == nullptr || sizes == nullptr)) return CUDA_ERROR_INVALID_VALUE;
  rangereplay::fake::note_async_copy_call();
  for (size_t i = 0; i < count; ++i)
    if (const CUresult r = rangereplay::fake::copy(dsts[i], srcs[i], sizes[i]); r != CUDA_SUCCESS) return r;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream) {
  return rangereplay::fake::fill(dst, value, count);
}
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count, CUstream) {
  return rangereplay::fake::fill(dst, value, count);
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count, CUstream) {
  return rangereplay::fake::fill(dst, value, count);
}

// --- Streams and events (every call completes at once) ---------------------
CUresult CUDAAPI cuStreamCreate(CUstream* stream, unsigned int) {
  std::lock_guard lock(state().mutex);
  return rangereplay::fake::new_handle(state().streams, stream);
}
CUresult CUDAAPI cuStreamDestroy(CUstream stream) {
  std::lock_guard lock(state().mutex);
  return rangereplay::fake::drop_handle(state().streams, stream);
}
CUresult CUDAAPI cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuStreamWaitEvent(CUstream, CUevent, unsigned int) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventCreate(CUevent* event, unsigned int) {
  std::lock_guard lock(state().mutex);
  return rangereplay::fake::new_handle(state().events, event);
}
CUresult CUDAAPI cuEventDestroy(CUevent event) {
  std::lock_guard lock(state().mutex);
  return rangereplay::fake::drop_handle(state().events, event);
}
CUresult CUDAAPI cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventElapsedTime(float* ms, CUevent, CUevent) {
  if (ms == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ms = 0.0F;
  return CUDA_SUCCESS;
}

// --- Kernels ----------------------------------------------------------------
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                                unsigned int, unsigned int, CUstream, void** params, void** extra) {
  if (extra != nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return rangereplay::fake::run_kernel(f, params);
}
CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int, unsigned int, unsigned int, unsigned int,
                                           unsigned int, unsigned int, unsigned int, CUstream, void** params) {
  return rangereplay::fake::run_kernel(f, params);
}
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig*, CUfunction f, void** params, void** extra) {
  if (extra != nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return rangereplay::fake::run_kernel(f, params);
}
CUresult CUDAAPI cuFuncGetName(const char** name, CUfunction f) {
  const auto* k = rangereplay::fake::kernel_of(f);
  if (k == nullptr || name == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  *name = k->name.c_str();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuKernelGetName(const char** name, CUkernel kernel) {
  return cuFuncGetName(name, reinterpret_cast<CUfunction>(kernel));
}
CUresult CUDAAPI cuFuncGetParamInfo(CUfunction f, size_t index, size_t* offset, size_t* size) {
  return rangereplay::fake::param_info(f, index, offset, size);
}
CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t index, size_t* offset, size_t* size) {
  return rangereplay::fake::param_info(kernel, index, offset, size);
}

// --- Not faked: modules, libraries ------------------------------------------
CUresult CUDAAPI cuFuncGetModule(CUmodule*, CUfunction) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult CUDAAPI cuModuleGetGlobal(CUdeviceptr*, size_t*, CUmodule, const char*) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult CUDAAPI cuKernelGetLibrary(CUlibrary*, CUkernel) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr*, size_t*, CUlibrary, const char*) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult CUDAAPI cuGraphLaunch(CUgraphExec exec, CUstream) {
  const GraphExec* e = rangereplay::fake::exec_of(exec);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  for (const auto& node : e->graph->nodes)
    if (const CUresult r = rangereplay::fake::run_kernel(node->f, node->pointers.data()); r != CUDA_SUCCESS) return r;
  std::lock_guard lock(state().mutex);
  ++state().counts.graph_launches;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphGetNodes(CUgraph graph, CUgraphNode* nodes, size_t* count) {
  const Graph* g = rangereplay::fake::graph_of(graph);
  if (g == nullptr || count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (nodes != nullptr)
    for (std::size_t i = 0; i < std::min(*count, g->nodes.size()); ++i)
      nodes[i] = reinterpret_cast<CUgraphNode>(g->nodes[i].get());
  *count = g->nodes.size();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphGetEdges(CUgraph graph, CUgraphNode*, CUgraphNode*, CUgraphEdgeData*, size_t* count) {
  if (rangereplay::fake::graph_of(graph) == nullptr || count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *count = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode node, CUgraphNodeType* type) {
  if (rangereplay::fake::node_of(node) == nullptr || type == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *type = CU_GRAPH_NODE_TYPE_KERNEL;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphChildGraphNodeGetGraph(CUgraphNode, CUgraph*) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS* params) {
  GraphNode* n = rangereplay::fake::node_of(node);
  if (n == nullptr || params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *params = CUDA_KERNEL_NODE_PARAMS{};
  params->func = n->f;
  params->gridDimX = params->gridDimY = params->gridDimZ = 1;
  params->blockDimX = 32;
  params->blockDimY = params->blockDimZ = 1;
  params->kernelParams = n->pointers.data();
  params->ctx = rangereplay::fake::context();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphKernelNodeGetAttribute(CUgraphNode node, CUkernelNodeAttrID attribute,
                                               CUkernelNodeAttrValue* value) {
  if (rangereplay::fake::node_of(node) == nullptr || value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (attribute != CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE) return CUDA_ERROR_NOT_SUPPORTED;
  *value = CUkernelNodeAttrValue{};
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphMemcpyNodeGetParams(CUgraphNode, CUDA_MEMCPY3D*) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult CUDAAPI cuGraphMemsetNodeGetParams(CUgraphNode, CUDA_MEMSET_NODE_PARAMS*) { return CUDA_ERROR_NOT_SUPPORTED; }

// --- CUPTI's callback API ---------------------------------------------------
CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* userdata) {
  if (subscriber == nullptr || callback == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard lock(state().mutex);
  if (state().callback != nullptr) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  state().callback = callback;
  state().userdata = userdata;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&state());
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle) {
  std::lock_guard lock(state().mutex);
  state().callback = nullptr;
  state().userdata = nullptr;
  state().domains.clear();
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain domain) {
  std::lock_guard lock(state().mutex);
  if (subscriber != reinterpret_cast<CUpti_SubscriberHandle>(&state())) return CUPTI_ERROR_INVALID_PARAMETER;
  if (enable != 0)
    state().domains.insert(domain);
  else
    state().domains.erase(domain);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** text) {
  if (text == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *text = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}

}  // extern "C"
