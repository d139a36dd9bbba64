// CubinSymbols: what the tool needs to know about a loaded GPU module, read
// from its cubin (an ELF64 image, as CUPTI's module-loaded callback hands it
// over): the kernels it defines and its writable module-scope variables.
//
//   RR_ASSIGN_OR_RETURN(CubinSymbols s, read_cubin_symbols(bytes));
//   if (!s.writable_globals.empty()) ... // kernels in s.kernels write state the snapshot misses
//
// Writable globals are STT_OBJECT symbols of non-zero size in the sections
// `.nv.global` (zero-initialised) and `.nv.global.init`; kernels are STT_FUNC
// symbols in `.text.<name>` sections. Source: the ELF64 specification and the
// section names nvcc emits (cuobjdump -elf). Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace rangereplay {

struct CubinGlobal {
  std::string name;
  std::uint64_t size_bytes = 0;
};

struct CubinSymbols {
  std::vector<std::string> kernels;           // mangled names, in symbol-table order
  std::vector<CubinGlobal> writable_globals;  // in symbol-table order
};

/// Errors: kInvalidArgument when `image` is not a well-formed little-endian
/// ELF64 file (too short, bad magic, section or symbol tables out of bounds).
StatusOr<CubinSymbols> read_cubin_symbols(std::span<const std::uint8_t> image);

}  // namespace rangereplay
