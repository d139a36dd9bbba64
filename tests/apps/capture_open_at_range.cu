// capture_open_at_range: ordinary kernel launches made while a stream capture
// is open, so that a --kernel-range window can begin inside the capture; the
// captured graph is then instantiated and launched between ordinary launches.
// Captured launches do not execute (they become graph nodes); a profiler that
// synchronizes the context while the capture is open invalidates it, and
// cudaStreamEndCapture then fails with cudaErrorStreamCaptureInvalidated.
//
// Every stream is non-blocking: ordinary work never joins the capture
// implicitly. `x` is updated on `main_stream` only, so submission order is
// execution order for it; `side` is updated on `side_stream` only.
//
// Launch indices of the launches that execute (captured launches are not
// counted; graph launches and their kernel nodes are not kernel launches),
// the same in every variant:
//   0-2   before the capture    before_capture_kernel(x, 1..3)            main_stream
//   3     capture open          during_capture_kernel(side, 0x51)         side_stream
//   4     capture open          during_capture_kernel(side, 0x52)         side_stream
//   5     after the capture     between_kernel(x, 0x30), then graph launch 0
//   6     graph launches        between_kernel(x, 0x31), then graph launch 1
//   7                           between_kernel(x, 0x32), then graph launch 2
//   8                           between_kernel(x, 0x33)
//   9-11  after                 after_capture_kernel(x, 0x40..0x42)
// The capture, in submission order (c = captured, does not execute):
//   default:      c captured_kernel(x, 0x10);  3;  c captured_kernel(x, 0x11);  4;
//                 c captured_kernel(x, 0x12)
//   --conditional: c loop_init_kernel (counter = kLoopTrips, condition set);
//                 a while node added to the capture's graph, its body
//                 captured into from `body_stream` (cudaStreamBeginCaptureToGraph):
//                   c loop_body_kernel(x, 0x20 + counter);  3;  c loop_step_kernel (--counter)
//                 body capture ended;  4;  c captured_kernel(x, 0x12)
// so each graph launch applies 0x10, 0x11, 0x12 (default) or 0x20 + 4, 3, 2, 1
// and then 0x12 (--conditional) to x. With --other-thread, launches 3 and 4
// are made by a second host thread (into side_stream) while the main thread's
// capture is open; the main thread waits for each, so the order is the same.
// A count that included the captured launches would make launch 3 the first
// captured launch (loop_init_kernel with --conditional) in every variant.
//
// --mode selects the cudaStreamCaptureMode of both captures (default global).
// The program checks x, side (and the loop counter) against host references,
// prints their checksums and exits 1 with a message when a CUDA call fails or
// a result differs from its reference.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "app_kernels.cuh"
#include "example_common.h"
#include "host_worker.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: app_capture_open_at_range [--mode global|thread-local|relaxed] [--conditional] [--other-thread]\n"
    "  --mode M         capture mode of the stream captures (default global)\n"
    "  --conditional    the graph holds a while-loop conditional node whose body is captured\n"
    "  --other-thread   the launches made while the capture is open come from a second host thread\n"
    "Launch indices (executed launches only): 0-2 before the capture, 3-4 while it is open,\n"
    "5-8 around the 3 graph launches (one after each of 5, 6, 7), 9-11 after.\n";

constexpr int kGraphLaunches = 3;
constexpr uint32_t kLoopTrips = 4;

__global__ void before_capture_kernel(uint32_t* x, size_t n, uint32_t salt) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = affine(x[i], salt, i);
}

__global__ void captured_kernel(uint32_t* x, size_t n, uint32_t salt) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = affine(x[i], salt, i);
}

__global__ void during_capture_kernel(uint32_t* x, size_t n, uint32_t salt) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = affine(x[i], salt, i);
}

__global__ void between_kernel(uint32_t* x, size_t n, uint32_t salt) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = affine(x[i], salt, i);
}

__global__ void after_capture_kernel(uint32_t* x, size_t n, uint32_t salt) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = affine(x[i], salt, i);
}

// The while loop: the init node sets the trip counter and the condition; each
// body iteration applies affine with a salt that depends on the counter, then
// counts down and sets the condition for the next iteration.
__global__ void loop_init_kernel(uint32_t* counter, uint32_t trips, cudaGraphConditionalHandle handle) {
  *counter = trips;
  cudaGraphSetConditional(handle, trips > 0 ? 1u : 0u);
}

__global__ void loop_body_kernel(uint32_t* x, size_t n, uint32_t salt, const uint32_t* counter) {
  const uint32_t s = salt + *counter;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    x[i] = affine(x[i], s, i);
}

__global__ void loop_step_kernel(uint32_t* counter, cudaGraphConditionalHandle handle) {
  const uint32_t left = --*counter;
  cudaGraphSetConditional(handle, left > 0 ? 1u : 0u);
}

struct Options {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  bool conditional = false;
  bool other_thread = false;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (std::strcmp(argv[i], "--mode") == 0) {
      const char* mode = option_value(argc, argv, i);
      if (std::strcmp(mode, "global") == 0) {
        o.mode = cudaStreamCaptureModeGlobal;
      } else if (std::strcmp(mode, "thread-local") == 0) {
        o.mode = cudaStreamCaptureModeThreadLocal;
      } else if (std::strcmp(mode, "relaxed") == 0) {
        o.mode = cudaStreamCaptureModeRelaxed;
      } else {
        usage_error("--mode takes global, thread-local or relaxed", mode);
      }
    } else if (std::strcmp(argv[i], "--conditional") == 0) {
      o.conditional = true;
    } else if (std::strcmp(argv[i], "--other-thread") == 0) {
      o.other_thread = true;
    } else {
      usage_error("unknown option", argv[i]);
    }
  }
  return o;
}

template <typename Kernel>
void launch_words(Kernel kernel, uint32_t* x, uint32_t salt, cudaStream_t stream) {
  kernel<<<grid_for(kAppElements, kAppThreads), kAppThreads, 0, stream>>>(x, kAppElements, salt);
  CHECK_LAUNCH();
}

int run(const Options& o) {
  init_device();
  std::vector<uint32_t> expected_x = random_words(kAppElements, 0xa9900c01);
  std::vector<uint32_t> expected_side = random_words(kAppElements, 0xa9900c02);
  uint32_t* x = upload(expected_x);
  uint32_t* side = upload(expected_side);
  uint32_t* counter = nullptr;
  CHECK_CUDA(cudaMalloc(&counter, sizeof(uint32_t)));
  CHECK_CUDA(cudaMemset(counter, 0xff, sizeof(uint32_t)));
  // The streams below are non-blocking: they do not wait for the legacy
  // stream's uploads and memset.
  CHECK_CUDA(cudaDeviceSynchronize());
  cudaStream_t main_stream = nullptr, side_stream = nullptr, capture_stream = nullptr, body_stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&capture_stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&body_stream, cudaStreamNonBlocking));
  std::unique_ptr<HostWorker> worker;
  if (o.other_thread) {
    worker = std::make_unique<HostWorker>();
    // The worker has made device 0 current once this returns: nothing of its
    // set-up happens while the capture is open.
    worker->run_and_wait([] {});
  }
  // Launches 3 and 4, made while the capture is open.
  auto launch_during_capture = [&](uint32_t salt) {
    auto job = [&, salt] { launch_words(during_capture_kernel, side, salt, side_stream); };
    if (worker) {
      worker->run_and_wait(job);
    } else {
      job();
    }
  };

  // Launches 0-2.
  for (uint32_t salt = 1; salt <= 3; ++salt) launch_words(before_capture_kernel, x, salt, main_stream);

  cudaGraph_t graph = nullptr;
  CHECK_CUDA(cudaStreamBeginCapture(capture_stream, o.mode));
  if (!o.conditional) {
    launch_words(captured_kernel, x, 0x10, capture_stream);
    launch_during_capture(0x51);  // launch 3
    launch_words(captured_kernel, x, 0x11, capture_stream);
    launch_during_capture(0x52);  // launch 4
    launch_words(captured_kernel, x, 0x12, capture_stream);
  } else {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaGraph_t capturing = nullptr;
    CHECK_CUDA(cudaStreamGetCaptureInfo(capture_stream, &status, nullptr, &capturing));
    CHECK_THAT(status == cudaStreamCaptureStatusActive);
    cudaGraphConditionalHandle handle = 0;
    CHECK_CUDA(cudaGraphConditionalHandleCreate(&handle, capturing, 0, 0));
    loop_init_kernel<<<1, 1, 0, capture_stream>>>(counter, kLoopTrips, handle);
    CHECK_LAUNCH();
    // The while node depends on what the capture has so far (the init node).
    const cudaGraphNode_t* dependencies = nullptr;
    const cudaGraphEdgeData* edges = nullptr;
    size_t dependency_count = 0;
    CHECK_CUDA(cudaStreamGetCaptureInfo(capture_stream, &status, nullptr, &capturing, &dependencies, &edges,
                                        &dependency_count));
    cudaGraphNodeParams params{};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = handle;
    params.conditional.type = cudaGraphCondTypeWhile;
    params.conditional.size = 1;
    cudaGraphNode_t loop_node = nullptr;
    CHECK_CUDA(cudaGraphAddNode(&loop_node, capturing, dependencies, edges, dependency_count, &params));
    cudaGraph_t body = params.conditional.phGraph_out[0];
    CHECK_CUDA(cudaStreamBeginCaptureToGraph(body_stream, body, nullptr, nullptr, 0, o.mode));
    loop_body_kernel<<<grid_for(kAppElements, kAppThreads), kAppThreads, 0, body_stream>>>(x, kAppElements, 0x20,
                                                                                           counter);
    CHECK_LAUNCH();
    launch_during_capture(0x51);  // launch 3: both captures open
    loop_step_kernel<<<1, 1, 0, body_stream>>>(counter, handle);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaStreamEndCapture(body_stream, nullptr));
    // The capture continues after the while node.
    CHECK_CUDA(
        cudaStreamUpdateCaptureDependencies(capture_stream, &loop_node, nullptr, 1, cudaStreamSetCaptureDependencies));
    launch_during_capture(0x52);  // launch 4
    launch_words(captured_kernel, x, 0x12, capture_stream);
  }
  CHECK_CUDA(cudaStreamEndCapture(capture_stream, &graph));
  cudaGraphExec_t exec = nullptr;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  // Launches 5-8 with the graph launches between them.
  for (int g = 0; g < kGraphLaunches; ++g) {
    launch_words(between_kernel, x, 0x30 + static_cast<uint32_t>(g), main_stream);
    CHECK_CUDA(cudaGraphLaunch(exec, main_stream));
  }
  launch_words(between_kernel, x, 0x30 + kGraphLaunches, main_stream);
  // Launches 9-11.
  for (uint32_t salt = 0x40; salt <= 0x42; ++salt) launch_words(after_capture_kernel, x, salt, main_stream);
  CHECK_CUDA(cudaDeviceSynchronize());

  for (uint32_t salt = 1; salt <= 3; ++salt) host_affine(expected_x, salt);
  for (int g = 0; g < kGraphLaunches; ++g) {
    host_affine(expected_x, 0x30 + static_cast<uint32_t>(g));
    if (!o.conditional) {
      host_affine(expected_x, 0x10);
      host_affine(expected_x, 0x11);
    } else {
      for (uint32_t left = kLoopTrips; left > 0; --left) host_affine(expected_x, 0x20 + left);
    }
    host_affine(expected_x, 0x12);
  }
  host_affine(expected_x, 0x30 + kGraphLaunches);
  for (uint32_t salt = 0x40; salt <= 0x42; ++salt) host_affine(expected_x, salt);
  host_affine(expected_side, 0x51);
  host_affine(expected_side, 0x52);

  check_and_print(download(x, kAppElements), expected_x, "x");
  check_and_print(download(side, kAppElements), expected_side, "side");
  if (o.conditional) {
    uint32_t left = 1;
    CHECK_CUDA(cudaMemcpy(&left, counter, sizeof(left), cudaMemcpyDeviceToHost));
    if (left != 0) {
      std::fprintf(stderr, "error: the while loop's counter ended at %u, expected 0\n", left);
      return 1;
    }
  }
  worker.reset();
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  for (cudaStream_t s : {main_stream, side_stream, capture_stream, body_stream}) CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaFree(counter));
  CHECK_CUDA(cudaFree(side));
  CHECK_CUDA(cudaFree(x));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_options(argc, argv));
}
