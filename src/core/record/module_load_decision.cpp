// Decline or not for a module loaded inside a range (module_load_decision.h).
#include "core/record/module_load_decision.h"

namespace rangereplay {

std::string global_names(std::span<const CubinGlobal> globals) {
  std::string names;
  for (const CubinGlobal& g : globals) {
    if (names.size() > 80) {
      names += ", ...";
      break;
    }
    names += (names.empty() ? "" : ", ") + g.name;
  }
  return names;
}

std::optional<std::string> module_load_decline(const StatusOr<CubinSymbols>& symbols) {
  if (!symbols.ok())
    return "module loaded inside the range whose variables are unknown (" + symbols.status().message() + ")";
  const auto& globals = symbols->writable_globals;
  if (globals.empty()) return std::nullopt;
  return std::string(globals.size() == 1 ? "module with writable variable " : "module with writable variables ") +
         global_names(globals) + " loaded inside the range";
}

}  // namespace rangereplay
