// LauncherGateWait (launcher_gate_wait.h): the first range's wait at the launcher gate.
#include "tool/launcher_gate_wait.h"

#include <cstdio>

#include "tool/tool_thread.h"

namespace rangereplay::tool {

void LauncherGateWait::pass() {
  if (!gate_.held()) return;
  const GateWait wait = gate_.wait();
  report_.gate_wait_ms = wait.wait_ms;
  if (debug_enabled())
    std::fprintf(stderr, "rangereplay[debug] injection: launcher gate %s, waited %.3f ms\n",
                 gate_outcome_name(wait.outcome), wait.wait_ms);
}

}  // namespace rangereplay::tool
