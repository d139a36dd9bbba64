// The injection library's one exported symbol. CUDA calls InitializeInjection
// once, from the first CUDA call of the process, when CUDA_INJECTION64_PATH
// names this library (CUPTI's injection mechanism, cupti_callbacks.h docs).
// Everything the tool does starts here; nothing here may throw.
#include <cstdio>

#include "tool/profiler_tool.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  try {
    rangereplay::Status s = rangereplay::tool::ProfilerTool::instance().initialize();
    if (!s.ok()) {
      std::fprintf(stderr, "rangereplay: profiling disabled: %s\n", s.message().c_str());
      return 1;  // the application runs on, unprofiled
    }
  } catch (...) {
    std::fprintf(stderr, "rangereplay: profiling disabled: unexpected error during set-up\n");
  }
  return 1;
}
