// Byte sizes typed by users ("512MiB", "6GB", "1.5GiB", "4096"), as taken by
// --snapshot-device-limit and --snapshot-host-limit.
//
// The launcher parses sizes itself: src/core has no size parser (the storage
// planner takes plain byte counts). Move this into src/core if another part
// ever needs it.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/status.h"

namespace rangereplay::cli {

/// Parses a byte size: a decimal number (digits, optionally one '.' and more
/// digits) followed by an optional unit, case-insensitive:
///   (none) or B         bytes
///   K, KiB, M, MiB, G, GiB, T, TiB   powers of 1024
///   KB, MB, GB, TB                   powers of 1000 (as disk vendors and dd use them)
/// A fraction must name a whole number of bytes ("1.5KiB" = 1536; "1.3B" fails).
/// Errors (invalid_argument, one line naming the text and the accepted form):
/// empty text, a sign, a missing number, an unknown unit, a fraction of a byte;
/// out_of_range: the value exceeds 2^64-1 bytes. Thread-safe (pure).
StatusOr<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace rangereplay::cli
