// libFuzzer target: one rendezvous line (parse_rendezvous_message). A parsed
// message encodes to one line no longer than kMaxRendezvousLineBytes, which
// parses back to a message with the same encoding.
#include <string>

#include "core/interprocess/rendezvous_wire.h"
#include "fuzz_check.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer names the entry point.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rangereplay;
  const std::string_view line = fuzz::as_text(data, size);
  StatusOr<RendezvousMessage> parsed = parse_rendezvous_message(line);
  if (!parsed.ok()) {
    fuzz::check_error(parsed.status(), line.size());
    return 0;
  }
  const std::string encoded = encode_rendezvous_message(*parsed);
  fuzz::check(!encoded.empty() && encoded.back() == '\n', "an encoded message ends its line");
  fuzz::check(encoded.size() <= kMaxRendezvousLineBytes, "an encoded line fits kMaxRendezvousLineBytes");
  fuzz::check(encoded.find('\n') == encoded.size() - 1, "an encoded message is one line");
  StatusOr<RendezvousMessage> again = parse_rendezvous_message(std::string_view(encoded).substr(0, encoded.size() - 1));
  fuzz::check(again.ok(), "an encoded message parses");
  fuzz::check(encode_rendezvous_message(*again) == encoded, "an encoded message parses to the same encoding");
  return 0;
}
