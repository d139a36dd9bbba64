// NVTX include/exclude decisions (see nvtx_filter.h).
#include "core/range/nvtx_filter.h"

#include <algorithm>
#include <utility>

namespace rangereplay::range {

bool expression_matches(const NvtxExpression& e, const NvtxState& state) {
  if (e.kind == NvtxRangeKind::kPushPop) {
    for (const auto& [domain, stack] : state.thread_stacks) {
      if (e.matches_domain(domain) && e.matches_stack(stack)) return true;
    }
    return false;
  }
  for (const auto& [domain, names] : state.open_ranges) {
    if (e.matches_domain(domain) && e.matches_open_ranges(names)) return true;
  }
  return false;
}

namespace {

// A filter needs an include: a range begins at an included range's push or start.
Status check_has_includes(bool includes, bool excludes) {
  if (includes) return ok_status();
  return invalid_argument(excludes ? "nvtx-exclude needs at least one nvtx-include: a range begins at an included "
                                     "range's push or start"
                                   : "no nvtx-include expression given");
}

}  // namespace

StatusOr<NvtxFilter> NvtxFilter::create(std::vector<NvtxExpression> includes, std::vector<NvtxExpression> excludes) {
  RR_RETURN_IF_ERROR(check_has_includes(!includes.empty(), !excludes.empty()));
  return NvtxFilter(std::move(includes), std::move(excludes));
}

StatusOr<NvtxFilter> NvtxFilter::parse(std::span<const std::string> includes, std::span<const std::string> excludes) {
  RR_RETURN_IF_ERROR(check_has_includes(!includes.empty(), !excludes.empty()));
  std::vector<NvtxExpression> inc, exc;
  for (const std::string& text : includes) {
    RR_ASSIGN_OR_RETURN(NvtxExpression e, parse_nvtx_expression(text, "nvtx-include"));
    inc.push_back(std::move(e));
  }
  for (const std::string& text : excludes) {
    RR_ASSIGN_OR_RETURN(NvtxExpression e, parse_nvtx_expression(text, "nvtx-exclude"));
    exc.push_back(std::move(e));
  }
  return NvtxFilter(std::move(inc), std::move(exc));
}

NvtxFilter::NvtxFilter(std::vector<NvtxExpression> includes, std::vector<NvtxExpression> excludes)
    : includes_(std::move(includes)), excludes_(std::move(excludes)) {}

bool NvtxFilter::begins_at_push(const NvtxState& state, std::string_view domain) const {
  const auto stack = state.thread_stacks.find(domain);
  if (stack == state.thread_stacks.end()) return false;
  const bool included = std::any_of(includes_.begin(), includes_.end(), [&](const NvtxExpression& e) {
    return e.kind == NvtxRangeKind::kPushPop && e.matches_domain(domain) && e.matches_stack(stack->second);
  });
  return included && !excluded(state);
}

bool NvtxFilter::begins_at_start(const NvtxState& state, std::string_view domain) const {
  const auto open = state.open_ranges.find(domain);
  if (open == state.open_ranges.end()) return false;
  const bool included = std::any_of(includes_.begin(), includes_.end(), [&](const NvtxExpression& e) {
    return e.kind == NvtxRangeKind::kStartEnd && e.matches_domain(domain) && e.matches_open_ranges(open->second);
  });
  return included && !excluded(state);
}

bool NvtxFilter::start_end_includes_match(const NvtxState& state) const {
  return std::any_of(includes_.begin(), includes_.end(), [&](const NvtxExpression& e) {
    return e.kind == NvtxRangeKind::kStartEnd && expression_matches(e, state);
  });
}

bool NvtxFilter::excluded(const NvtxState& state) const {
  return std::any_of(excludes_.begin(), excludes_.end(),
                     [&](const NvtxExpression& e) { return expression_matches(e, state); });
}

bool NvtxFilter::has_push_pop_includes() const {
  return std::any_of(includes_.begin(), includes_.end(),
                     [](const NvtxExpression& e) { return e.kind == NvtxRangeKind::kPushPop; });
}

bool NvtxFilter::has_start_end_includes() const {
  return std::any_of(includes_.begin(), includes_.end(),
                     [](const NvtxExpression& e) { return e.kind == NvtxRangeKind::kStartEnd; });
}

}  // namespace rangereplay::range
