// Milliseconds elapsed on the steady clock, for the stage timings of the
// report, its time budget and the debug trace.
//
// Thread-safety: a pure function of the clock.
#pragma once

#include <chrono>

namespace rangereplay {

/// Milliseconds from `start` to now (std::chrono::steady_clock), fractional.
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// The steady clock now, in milliseconds since its epoch. On Linux it is
/// CLOCK_MONOTONIC, one clock for every process of the machine, so stamps
/// taken in the application and in the launcher can be subtracted.
inline double monotonic_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace rangereplay
