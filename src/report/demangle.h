// Demangling of kernel names for the report. CUDA reports a kernel by its
// mangled symbol (cuFuncGetName: "_Z6kernelPfi"); people read the demangled
// form ("kernel(float*, int)"), as Nsight Compute prints it.
//
// Thread-safety: pure function (abi::__cxa_demangle allocates its result).
#pragma once

#include <string>
#include <string_view>

#include "report/report_model.h"

namespace rangereplay::report {

/// The Itanium C++ ABI demangling of `mangled` (GCC's abi::__cxa_demangle).
/// Names that are not mangled C++ function names (no "_Z" prefix, e.g. an
/// extern "C" kernel) and names the demangler rejects are returned
/// unchanged, so a C kernel named "f" never turns into "float".
std::string demangle(std::string_view mangled);

/// A kernel's name as the reports print it: its (demangled) name, or the
/// demangling of its mangled name when the record has no name.
std::string kernel_display_name(const KernelRecord& kernel);

}  // namespace rangereplay::report
