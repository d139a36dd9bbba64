// Checks shared by the libFuzzer targets: a failed check prints what broke
// and aborts, which libFuzzer reports as a crash with the input saved.
#pragma once
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace rangereplay::fuzz {

inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz check failed: %s\n", what);
    std::abort();
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A parser's error: a message, and a column, when reported, inside the
/// text (or just past its end). The messages quote the text as given, so a
/// text with a newline or other control bytes gives a message with them.
inline void check_error(const Status& status, std::size_t text_size, std::size_t column = 0) {
  check(!status.ok(), "an error status");
  check(!status.message().empty(), "the error has a message");
  check(column <= text_size, "the error column lies within the text");
}

}  // namespace rangereplay::fuzz
