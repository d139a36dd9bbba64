// Milliseconds elapsed on the steady clock, for the stage timings of the
// report and the debug trace.
//
// Thread-safety: a pure function of the clock.
#pragma once

#include <chrono>

namespace rangereplay {

/// Milliseconds from `start` to now (std::chrono::steady_clock), fractional.
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace rangereplay
