// The count of the tool's kernel launches (see launch_count.h).
#include <atomic>

#include "cuda/kernels/launch_count.h"

namespace rangereplay::kernels {

namespace {
std::atomic<std::uint64_t> g_launches{0};
}  // namespace

std::uint64_t tool_kernel_launches() { return g_launches.load(std::memory_order_relaxed); }

void count_tool_kernel_launch() { g_launches.fetch_add(1, std::memory_order_relaxed); }

}  // namespace rangereplay::kernels
