// The launch attributes of a recorded cuLaunchKernelEx that its replays pass
// on: all but those that record one of the application's events
// (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT).
// A replay recording them would move the application's event to the tool's
// replay, so that what the application later measures or waits on with it
// (cuEventElapsedTime, cuEventQuery, cuStreamWaitEvent) would be the
// replay's. Programmatic stream serialization and every other attribute are
// kept.
//
// Thread-safety: a pure function.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <vector>

namespace rangereplay::tool {

/// `attributes[0..count)` less the event-recording ones, in their order.
inline std::vector<CUlaunchAttribute> replayed_launch_attributes(const CUlaunchAttribute* attributes,
                                                                 std::size_t count) {
  std::vector<CUlaunchAttribute> kept;
  kept.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (attributes[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT ||
        attributes[i].id == CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT)
      continue;
    kept.push_back(attributes[i]);
  }
  return kept;
}

}  // namespace rangereplay::tool
