// globals: kernels that update module-scope __device__ variables (a counter, a
// generation number and an array) that no cudaMalloc ever returned, so a
// replay is only right when the tool snapshots the module's globals too. Read
// back with cudaMemcpyFromSymbol; checked against a host reference (exit 1 on
// a mismatch). Per step:
//   bump_generation: g_generation += 1              (one thread)
//   mix:             g_array[i] = g_array[i] * kMul + data[i] + g_generation
//                    g_counter += data[i] & 0xff    (atomic, per element)
//                    data[i] ^= g_generation << 8   (data is longer than g_array;
//                                                    its tail stays as uploaded)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "example_common.h"

namespace rangereplay::example {
namespace {

constexpr char kUsage[] =
    "usage: globals [--iterations N]\n"
    "  --iterations N  number of steps, one NVTX range `step` each (default 3)\n"
    "Prints `checksum <buffer> <hex>` for g_counter, g_generation, g_array, data,\n"
    "then `checksums-done`.\n";

constexpr unsigned int kArray = 1u << 16;  // elements of g_array
constexpr size_t kData = size_t{1} << 20;  // elements of the cudaMalloc'd data buffer
constexpr uint32_t kMul = 2654435761u;     // Knuth's multiplicative hash constant
constexpr unsigned int kThreads = 256;

}  // namespace

__device__ unsigned long long g_counter;
__device__ uint32_t g_generation;
__device__ uint32_t g_array[kArray];

namespace {

__global__ void bump_generation_kernel() {
  if (blockIdx.x == 0 && threadIdx.x == 0) g_generation += 1;
}

// One thread per g_array element; data has kData >= kArray elements.
__global__ void mix_kernel(uint32_t* data) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kArray) return;
  const uint32_t generation = g_generation;
  g_array[i] = g_array[i] * kMul + data[i] + generation;
  atomicAdd(&g_counter, static_cast<unsigned long long>(data[i] & 0xffu));
  data[i] ^= generation << 8;
}

void compute_reference(uint64_t& counter, uint32_t& generation, std::vector<uint32_t>& array,
                       std::vector<uint32_t>& data, int iterations) {
  for (int iteration = 0; iteration < iterations; ++iteration) {
    generation += 1;
    for (unsigned int i = 0; i < kArray; ++i) {
      array[i] = array[i] * kMul + data[i] + generation;
      counter += data[i] & 0xffu;
      data[i] ^= generation << 8;
    }
  }
}

int run(int iterations) {
  init_device();
  std::printf("globals: %u-element __device__ array, %zu-element data buffer, %d iterations\n", kArray, kData,
              iterations);

  SplitMix64 rng(0x5eed0004);
  uint64_t host_counter = rng.next() >> 16;
  uint32_t host_generation = static_cast<uint32_t>(rng.next() >> 40);
  std::vector<uint32_t> host_array(kArray), host_data(kData);
  fill_bits(host_array, rng);
  fill_bits(host_data, rng);
  const unsigned long long initial_counter = host_counter;
  CHECK_CUDA(cudaMemcpyToSymbol(g_counter, &initial_counter, sizeof(initial_counter)));
  CHECK_CUDA(cudaMemcpyToSymbol(g_generation, &host_generation, sizeof(host_generation)));
  CHECK_CUDA(cudaMemcpyToSymbol(g_array, host_array.data(), kArray * sizeof(uint32_t)));
  uint32_t* data = nullptr;
  CHECK_CUDA(cudaMalloc(&data, kData * sizeof(uint32_t)));
  CHECK_CUDA(cudaMemcpy(data, host_data.data(), kData * sizeof(uint32_t), cudaMemcpyHostToDevice));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  for (int iteration = 0; iteration < iterations; ++iteration) {
    nvtxRangePushA("step");
    bump_generation_kernel<<<1, 1, 0, stream>>>();
    CHECK_LAUNCH();
    mix_kernel<<<kArray / kThreads, kThreads, 0, stream>>>(data);
    CHECK_LAUNCH();
    nvtxRangePop();
    CHECK_CUDA(cudaStreamSynchronize(stream));
  }

  compute_reference(host_counter, host_generation, host_array, host_data, iterations);
  unsigned long long counter = 0;
  uint32_t generation = 0;
  std::vector<uint32_t> array(kArray), result_data(kData);
  CHECK_CUDA(cudaMemcpyFromSymbol(&counter, g_counter, sizeof(counter)));
  CHECK_CUDA(cudaMemcpyFromSymbol(&generation, g_generation, sizeof(generation)));
  CHECK_CUDA(cudaMemcpyFromSymbol(array.data(), g_array, kArray * sizeof(uint32_t)));
  CHECK_CUDA(cudaMemcpy(result_data.data(), data, kData * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CHECK_THAT(counter == host_counter);
  CHECK_THAT(generation == host_generation);
  CHECK_THAT(array == host_array);
  CHECK_THAT(result_data == host_data);

  print_checksum("g_counter", &counter, sizeof(counter));
  print_checksum("g_generation", &generation, sizeof(generation));
  print_checksum("g_array", array.data(), kArray * sizeof(uint32_t));
  print_checksum("data", result_data.data(), kData * sizeof(uint32_t));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(data));
  print_checksums_done();
  return 0;
}

}  // namespace
}  // namespace rangereplay::example

int main(int argc, char** argv) {
  using namespace rangereplay::example;
  return run(parse_iterations_only(argc, argv, 3, kUsage));
}
