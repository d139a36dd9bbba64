// Kernel-name demangling (demangle.h), through the C++ runtime's demangler.
#include "report/demangle.h"

#include <cxxabi.h>
#include <cstdlib>
#include <memory>

namespace rangereplay::report {

std::string demangle(std::string_view mangled) {
  // Only "_Z..." is a mangled function or object name; __cxa_demangle would
  // also accept bare type encodings ("i" -> "int").
  if (mangled.size() < 3 || mangled.substr(0, 2) != "_Z") return std::string(mangled);
  const std::string terminated(mangled);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(terminated.c_str(), nullptr, nullptr, &status),
                                                   std::free);
  if (status != 0 || demangled == nullptr) return terminated;
  return std::string(demangled.get());
}

std::string kernel_display_name(const KernelRecord& kernel) {
  return kernel.name.empty() ? demangle(kernel.mangled_name) : kernel.name;
}

}  // namespace rangereplay::report
