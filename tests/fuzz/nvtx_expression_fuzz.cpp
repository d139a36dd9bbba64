// libFuzzer target: --nvtx-include/--nvtx-exclude expressions
// (range::parse_nvtx_expression). A parsed expression keeps its text, which parses
// again to an equal expression, and matches names without crashing.
#include <string>
#include <vector>

#include "core/range/nvtx_expression.h"
#include "fuzz_check.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer names the entry point.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rangereplay;
  const std::string_view text = fuzz::as_text(data, size);
  std::size_t column = 0;
  StatusOr<range::NvtxExpression> parsed = range::parse_nvtx_expression(text, "nvtx-include", &column);
  if (!parsed.ok()) {
    fuzz::check_error(parsed.status(), text.size(), column);
    return 0;
  }
  StatusOr<range::NvtxExpression> again = range::parse_nvtx_expression(parsed->text);
  fuzz::check(again.ok() && *again == *parsed, "an expression's text parses to the same expression");
  // Names built from the input itself exercise the matchers, regex ones
  // included: RE2 matches in time linear in the name (the first 4096 bytes).
  const std::vector<std::string> names = {"step", std::string(text), ""};
  (void)parsed->matches_domain(text);
  (void)parsed->matches_stack(names);
  (void)parsed->matches_open_ranges(names);
  return 0;
}
