// RangeTrigger: turns NVTX push/pop and cu(da)ProfilerStart/Stop events into
// "a matched range begins / ends" decisions for the configured selection.
//
// Push/pop ranges are per thread: a range begins at the push that makes the
// thread's stack match an include expression (and no exclude) and ends at the
// pop that takes that thread's stack below the matched depth.
// Thread-safety: externally locked (ProfilerTool::mutex_).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/profile_config.h"
#include "core/status.h"

namespace rangereplay::tool {

class RangeTrigger {
 public:
  Status configure(const ProfileConfig& config);
  /// NVTX push on `thread` in `domain` ("" = default domain). Returns the
  /// range's name when a matched range begins.
  std::optional<std::string> on_push(std::thread::id thread, const std::string& domain, const std::string& name);
  /// NVTX pop; true when it ends the matched range.
  bool on_pop(std::thread::id thread, const std::string& domain);
  std::optional<std::string> on_profiler_start();
  bool on_profiler_stop();
  /// Forget the active range (it was not profiled or has ended).
  bool active() const { return active_depth_.has_value(); }

 private:
  struct Expression {
    std::string domain;               // "" = default domain
    std::vector<std::string> names;   // outermost first: "A/B" -> {A, B}
  };
  bool matches(const std::vector<std::string>& stack, const std::string& domain) const;

  std::vector<Expression> includes_;
  std::vector<Expression> excludes_;
  bool profiler_api_ = false;
  bool profiler_open_ = false;
  std::map<std::pair<std::thread::id, std::string>, std::vector<std::string>> stacks_;
  std::optional<std::size_t> active_depth_;
  std::thread::id active_thread_;
  std::string active_domain_;
};

}  // namespace rangereplay::tool
