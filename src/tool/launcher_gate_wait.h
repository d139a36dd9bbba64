// LauncherGateWait: the launcher's gate (core/interprocess/launcher_gate.h)
// on the replay side. The tool takes the gate when it initializes and hands
// it here (hold); the first range to begin waits at it (pass) until the
// launcher's device checks pass, or until the launcher kills the process
// when they fail, so that no range is profiled before the checks' verdict.
// Later ranges do not wait.
//
// The range controller (range_controller.h) owns it and passes it at every
// range's begin.
//
// Thread-safety: hold() is called once, before the tool subscribes to CUPTI;
// pass() with the tool's lock held. pass() waits for the launcher process
// (a read of its pipe, which ends when the launcher closes it or exits),
// never for another thread of the application.
#pragma once

#include <utility>

#include "core/interprocess/launcher_gate.h"
#include "report/report_model.h"

namespace rangereplay::tool {

class LauncherGateWait {
 public:
  /// `report` (its gate_wait_ms) outlives the gate.
  explicit LauncherGateWait(report::Report& report) : report_(report) {}
  LauncherGateWait(const LauncherGateWait&) = delete;
  LauncherGateWait& operator=(const LauncherGateWait&) = delete;

  /// Keeps the launcher's gate, waited at by the next pass().
  void hold(HeldLauncherGate gate) { gate_ = std::move(gate); }
  /// Waits at the launcher gate if it is still held: until the launcher's
  /// checks pass, or the launcher kills the process. Records the wait in the
  /// report's gate_wait_ms (milliseconds). Nothing when no gate is held.
  void pass();

 private:
  report::Report& report_;
  HeldLauncherGate gate_;
};

}  // namespace rangereplay::tool
