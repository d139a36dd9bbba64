#include "core/record/module_registry.h"

#include <optional>

#include "core/record/module_load_decision.h"

namespace rangereplay {

void ModuleRegistry::open_range_window() {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.clear();
  window_open_ = true;
}

std::vector<ModuleEvent> ModuleRegistry::close_range_window() {
  std::lock_guard<std::mutex> lock(mutex_);
  window_open_ = false;
  std::vector<ModuleEvent> out;
  out.swap(events_);
  return out;
}

void ModuleRegistry::loaded(const StatusOr<CubinSymbols>& symbols) {
  std::shared_ptr<ModuleGlobals> module;
  if (symbols.ok() && !symbols->writable_globals.empty()) {
    module = std::make_shared<ModuleGlobals>();
    module->globals = symbols->writable_globals;
    module->names = global_names(symbols->writable_globals);
  }
  std::optional<std::string> why = module_load_decline(symbols);
  std::lock_guard<std::mutex> lock(mutex_);
  if (module)
    for (const std::string& k : symbols->kernels) kernels_with_globals_[k] = module;
  if (!window_open_) return;
  if (why) {
    events_.push_back({ModuleEvent::Kind::kLoadDeclines, std::move(*why)});
  } else {
    events_.push_back({ModuleEvent::Kind::kLoaded, ""});
  }
}

void ModuleRegistry::unloading() {
  unloads_.fetch_add(1, std::memory_order_acq_rel);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!window_open_) return;
  events_.push_back({ModuleEvent::Kind::kUnloaded, "a module was unloaded inside the range"});
}

std::shared_ptr<const ModuleGlobals> ModuleRegistry::globals_of(const std::string& mangled_name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_with_globals_.find(mangled_name);
  return it == kernels_with_globals_.end() ? nullptr : it->second;
}

}  // namespace rangereplay
