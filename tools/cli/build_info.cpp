// The build's version, commit and CUDA/CUPTI versions (see build_info.h).
#include "cli/build_info.h"

#include <cupti_version.h>

#ifndef RANGEREPLAY_VERSION
#define RANGEREPLAY_VERSION "unknown"
#endif
#ifndef RANGEREPLAY_CUDA_VERSION
#define RANGEREPLAY_CUDA_VERSION "unknown"
#endif

namespace rangereplay::cli {

std::string build_info_text() {
  return std::string("rangereplay ") + RANGEREPLAY_VERSION + "\ncommit: " + std::string(build_commit()) +
         "\nbuilt with: CUDA " + RANGEREPLAY_CUDA_VERSION + ", CUPTI API " + std::to_string(CUPTI_API_VERSION) + "\n";
}

}  // namespace rangereplay::cli
