// Range begin/end decisions from NVTX and profiler-API events (see header).
#include "tool/range_trigger.h"

namespace rangereplay::tool {

namespace {
// Parses "D@A/B/" into a domain and the push/pop names, outermost first.
StatusOr<std::vector<std::string>> split_push_pop(const std::string& expr, std::string* domain) {
  std::string body = expr;
  auto at = body.find('@');
  if (at != std::string::npos) {
    *domain = body.substr(0, at);
    body = body.substr(at + 1);
  }
  std::vector<std::string> names;
  std::string cur;
  for (char c : body) {
    if (c == '/') {
      if (cur.empty()) return invalid_argument("nvtx expression '" + expr + "': empty range name");
      names.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) names.push_back(cur);
  if (names.empty()) return invalid_argument("nvtx expression '" + expr + "' names no range");
  return names;
}
}  // namespace

Status RangeTrigger::configure(const ProfileConfig& config) {
  profiler_api_ = config.profiler_api;
  for (const auto& e : config.nvtx_include) {
    Expression x;
    RR_ASSIGN_OR_RETURN(x.names, split_push_pop(e, &x.domain));
    includes_.push_back(std::move(x));
  }
  for (const auto& e : config.nvtx_exclude) {
    Expression x;
    RR_ASSIGN_OR_RETURN(x.names, split_push_pop(e, &x.domain));
    excludes_.push_back(std::move(x));
  }
  return ok_status();
}

bool RangeTrigger::matches(const std::vector<std::string>& stack, const std::string& domain) const {
  auto ends_with = [&](const Expression& x) {
    if (x.domain != domain || x.names.size() > stack.size()) return false;
    return std::equal(x.names.rbegin(), x.names.rend(), stack.rbegin());
  };
  bool included = false;
  for (const auto& x : includes_) included = included || ends_with(x);
  for (const auto& x : excludes_) included = included && !ends_with(x);
  return included;
}

std::optional<std::string> RangeTrigger::on_push(std::thread::id thread, const std::string& domain,
                                                 const std::string& name) {
  auto& stack = stacks_[{thread, domain}];
  stack.push_back(name);
  if (active_depth_ || includes_.empty() || !matches(stack, domain)) return std::nullopt;
  active_depth_ = stack.size();
  active_thread_ = thread;
  active_domain_ = domain;
  return name;
}

bool RangeTrigger::on_pop(std::thread::id thread, const std::string& domain) {
  auto& stack = stacks_[{thread, domain}];
  if (stack.empty()) return false;
  stack.pop_back();
  if (active_depth_ && thread == active_thread_ && domain == active_domain_ && stack.size() < *active_depth_) {
    active_depth_.reset();
    return true;
  }
  return false;
}

std::optional<std::string> RangeTrigger::on_profiler_start() {
  if (!profiler_api_ || profiler_open_) return std::nullopt;
  profiler_open_ = true;
  return std::string("cudaProfilerStart");
}

bool RangeTrigger::on_profiler_stop() {
  if (!profiler_api_ || !profiler_open_) return false;
  profiler_open_ = false;
  return true;
}

}  // namespace rangereplay::tool
