#include "core/module_registry.h"

#include <optional>

#include "core/module_load_decision.h"

namespace rangereplay {

void ModuleRegistry::loaded(const StatusOr<CubinSymbols>& symbols, bool in_range) {
  std::shared_ptr<ModuleGlobals> module;
  if (symbols.ok() && !symbols->writable_globals.empty()) {
    module = std::make_shared<ModuleGlobals>();
    module->globals = symbols->writable_globals;
    module->names = global_names(symbols->writable_globals);
  }
  std::optional<std::string> why = in_range ? module_load_decline(symbols) : std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  if (module)
    for (const std::string& k : symbols->kernels) kernels_with_globals_[k] = module;
  if (!in_range) return;
  if (why) {
    events_.push_back({ModuleEvent::Kind::kLoadDeclines, std::move(*why)});
  } else {
    events_.push_back({ModuleEvent::Kind::kLoaded, ""});
  }
}

void ModuleRegistry::unloading(bool in_range) {
  unloads_.fetch_add(1, std::memory_order_acq_rel);
  if (!in_range) return;
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back({ModuleEvent::Kind::kUnloaded, "a module was unloaded inside the range"});
}

std::shared_ptr<const ModuleGlobals> ModuleRegistry::globals_of(const std::string& mangled_name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_with_globals_.find(mangled_name);
  return it == kernels_with_globals_.end() ? nullptr : it->second;
}

std::vector<ModuleEvent> ModuleRegistry::take_range_events() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ModuleEvent> out;
  out.swap(events_);
  return out;
}

}  // namespace rangereplay
