// libFuzzer target: --range-list selections (range::RangeSelector::parse_list).
#include "core/range/range_selector.h"
#include "fuzz_check.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer names the entry point.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rangereplay;
  const std::string_view text = fuzz::as_text(data, size);
  std::size_t column = 0;
  StatusOr<range::RangeSelector> parsed = range::RangeSelector::parse_list(text, "range-list", &column);
  if (!parsed.ok()) fuzz::check_error(parsed.status(), text.size(), column);
  return 0;
}
