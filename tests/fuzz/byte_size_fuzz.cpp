// libFuzzer target: sizes of the snapshot limits (storage::parse_byte_size,
// --snapshot-host-limit and friends).
#include "core/snapshot/storage/byte_size.h"
#include "fuzz_check.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer names the entry point.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rangereplay;
  const std::string_view text = fuzz::as_text(data, size);
  StatusOr<std::uint64_t> parsed = storage::parse_byte_size(text);
  if (!parsed.ok()) fuzz::check_error(parsed.status(), text.size());
  return 0;
}
