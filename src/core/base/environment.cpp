// The environment accessors (see environment.h): each variable read once.
#include "core/base/environment.h"

#include <cstdlib>

namespace rangereplay::environment {
namespace {

std::optional<std::string> read(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

bool debug() {
  static const bool on = read(kDebug).has_value();
  return on;
}

// The tables and values below are made once and never destroyed: the
// injection library's exit handler (the report's write) may run after the
// destructors of statics made after it was registered.
const std::optional<std::string>& config_path() {
  static const std::optional<std::string>& path = *new const std::optional<std::string>(read(kConfig));
  return path;
}

const char* gate() {
  static const std::optional<std::string>& value = *new const std::optional<std::string>(read(kGate));
  return value ? value->c_str() : nullptr;
}

std::optional<std::size_t> max_kernels_per_range() {
  // (trivially destructible: nothing of it runs at exit)
  static const std::optional<std::size_t> n = []() -> std::optional<std::size_t> {
    const std::optional<std::string> v = read(kMaxKernelsPerRange);
    const long parsed = v ? std::strtol(v->c_str(), nullptr, 10) : 0;
    if (parsed > 0) return static_cast<std::size_t>(parsed);
    return std::nullopt;
  }();
  return n;
}

std::optional<std::chrono::seconds> rendezvous_timeout() {
  // (trivially destructible: nothing of it runs at exit)
  static const std::optional<std::chrono::seconds> s = []() -> std::optional<std::chrono::seconds> {
    const std::optional<std::string> v = read(kRendezvousTimeout);
    const long parsed = v ? std::strtol(v->c_str(), nullptr, 10) : 0;
    if (parsed > 0 && parsed <= 3600) return std::chrono::seconds(parsed);
    return std::nullopt;
  }();
  return s;
}

bool standing_pass_off() {
  static const bool off = read(kStandingPass) == "0";
  return off;
}

bool counter_warm_up_off() {
  static const bool off = read(kCounterWarmUp) == "0";
  return off;
}

bool metric_host_warm_up() {
  static const bool on = read(kMetricHostWarmUp) != "0";
  return on;
}

bool counter_prewarm() {
  static const bool on = read(kCounterPrewarm) != "0";
  return on;
}

bool batch_copy_engine_restore() {
  static const bool on = read(kBatchCopyEngineRestore) != "0";
  return on;
}

bool whole_range_lead_in_off() {
  static const bool off = read(kWholeRangeLeadIn) == "0";
  return off;
}

bool user_kernel_ranges() {
  static const bool on = read(kKernelRanges) == "user";
  return on;
}

bool test_corrupt_restores() {
  static const bool on = read(kTestCorruptRestores).has_value();
  return on;
}

}  // namespace rangereplay::environment
