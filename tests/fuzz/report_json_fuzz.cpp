// libFuzzer target: report JSON (parse_report_json, what `rangereplay
// report`, diff and merge read). A parsed report dumps, and the dump parses.
#include <string>

#include "fuzz_check.h"
#include "report/report_json.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer names the entry point.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rangereplay;
  using namespace rangereplay::report;
  const std::string_view text = fuzz::as_text(data, size);
  StatusOr<Report> parsed = parse_report_json(text, "fuzz.json");
  if (!parsed.ok()) {
    fuzz::check_error(parsed.status(), text.size());
    return 0;
  }
  StatusOr<std::string> dumped = dump_report_json(*parsed, -1);
  if (!dumped.ok()) {  // e.g. a name that is not UTF-8 cannot be written as JSON
    fuzz::check_error(dumped.status(), dumped.status().message().size());
    return 0;
  }
  fuzz::check(parse_report_json(*dumped, "dump").ok(), "a dumped report parses");
  return 0;
}
