// Zero-initialised CUPTI parameter structs with structSize set, the form every
// CUPTI profiler call expects:
//
//   auto params = RR_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
//   params.pChipName = "GH100";
//
// (Brace-initialising only the first member, as NVIDIA's samples do, leaves
// the rest zeroed too but trips -Wmissing-field-initializers.)
// Thread-safety: stateless.
#pragma once

#include <cstddef>

namespace rangereplay::cupti {

template <typename Params>
Params make_cupti_params(std::size_t struct_size) {
  Params params{};
  params.structSize = struct_size;
  return params;
}

}  // namespace rangereplay::cupti

/// `Type` value-initialised with structSize = Type_STRUCT_SIZE.
#define RR_CUPTI_PARAMS(Type) ::rangereplay::cupti::make_cupti_params<Type>(Type##_STRUCT_SIZE)
