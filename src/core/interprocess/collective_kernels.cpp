// Collective-communication kernels by name (see collective_kernels.h).
#include "core/interprocess/collective_kernels.h"

#include <cctype>

namespace rangereplay {

namespace {

// The kernel's own identifier: a mangled name's first source name
// ("_Z<length><name>..." or "_ZN<length><name>..." for a namespace, whose
// innermost name is not needed here: the libraries' kernels are global), or
// the text before '(' or '<' of a demangled one, after its last "::".
std::string_view identifier(std::string_view name) {
  if (name.starts_with("_Z")) {
    std::size_t i = 2;
    if (i < name.size() && name[i] == 'N') ++i;
    std::size_t length = 0, digits = i;
    while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits])))
      length = length * 10 + static_cast<std::size_t>(name[digits++] - '0');
    if (digits == i || digits + length > name.size()) return {};
    return name.substr(digits, length);
  }
  // "void ncclDevKernel_X(...)" or "ns::k<T>(...)": the name before its arguments.
  name = name.substr(0, name.find_first_of("(<"));
  if (const std::size_t space = name.rfind(' '); space != std::string_view::npos) name.remove_prefix(space + 1);
  if (const std::size_t scope = name.rfind("::"); scope != std::string_view::npos) name.remove_prefix(scope + 2);
  return name;
}

}  // namespace

std::optional<std::string_view> collective_library_of(std::string_view name) {
  const std::string_view id = identifier(name);
  // ncclDevKernel_*, ncclKernel_*, and the symmetric-memory kernels
  // ncclSymDevKernel_* and ncclSymkDevKernel_*: any kernel of NCCL's own
  // naming (a false match only declines the range, which is safe).
  if (id.starts_with("nccl") && id.find("Kernel_") != std::string_view::npos) return "NCCL";
  if (id.starts_with("nvshmemi_") || id.starts_with("nvshmemx_") || id.starts_with("nvshmem_")) return "NVSHMEM";
  return std::nullopt;
}

}  // namespace rangereplay
