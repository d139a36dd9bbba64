// Byte sizes as users type them: --snapshot-device-limit 512MiB.
//
// Accepted: a plain number of bytes ("4096"), or a number with an optional
// fraction and a unit, with optional spaces between ("512MiB", "1.5GiB",
// "6GB", "64 KiB"). Units, case-insensitive: B; KB, MB, GB, TB (powers of
// 1000); KiB, MiB, GiB, TiB (powers of 1024). Fractions are rounded down to
// whole bytes ("0.1KiB" = 102). Pure and thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/base/status.h"

namespace rangereplay::storage {

/// The size in bytes. invalid_argument, one line naming the text and the
/// accepted forms, for malformed text; out_of_range past 2^64 - 1 bytes.
StatusOr<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace rangereplay::storage
