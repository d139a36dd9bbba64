// Number, size, duration and text helpers shared by the report renderers
// (terminal table, CSV) and by progress lines on stderr.
//
// Human-facing formats follow Nsight Compute's habits: integers with thousands
// separators ("6,291,488"), binary byte units ("256.0 MiB"). Machine-facing
// formats (format_exact_number) round-trip a double exactly.
//
//   format_metric_value(6291488.0)  -> "6,291,488"
//   format_bytes(256 << 20)         -> "256.0 MiB"
//   format_ms(61.23)                -> "61.2 ms"
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "report/report_model.h"

namespace rangereplay::report {

/// Inserts a comma every three digits of the integer part of a plain decimal
/// number ("-1234567.5" -> "-1,234,567.5"). Text that does not start with an
/// optional '-' and a digit is returned unchanged.
std::string group_thousands(std::string_view decimal);

/// An integer with thousands separators: 6291488 -> "6,291,488", -1000 -> "-1,000".
std::string format_integer(std::int64_t value);
std::string format_integer(std::uint64_t value);

/// A metric value for people, as Nsight Compute prints it:
/// - integral values below 1e18: grouped integer ("6,291,488", "0");
/// - |v| in [0.01, 1e18): two decimals, grouped ("1,234.57", "0.50");
/// - 0 < |v| < 0.01 or |v| >= 1e18: scientific with three significant digits ("1.23e-05");
/// - NaN: "n/a"; infinities: "inf" / "-inf".
std::string format_metric_value(double value);

/// A double for machines (CSV): integral values below 1e18 without a
/// fraction ("1024"), everything else the shortest text that parses back to
/// the same double ("0.1", "1e+20"); NaN "nan", infinities "inf" / "-inf".
std::string format_exact_number(double value);

/// A byte count in binary units with one decimal ("1.5 KiB", "256.0 MiB",
/// "16.0 EiB"); below 1 KiB exact bytes ("0 B", "1023 B"). Never prints
/// "1024.0" of a unit: that rounds up to the next unit.
std::string format_bytes(std::uint64_t bytes);

/// A duration in milliseconds: three decimals below 1 ms ("0.123 ms"), two
/// below 10 ms ("1.50 ms"), one from 10 ms ("61.2 ms", "12,345.7 ms");
/// NaN "n/a".
std::string format_ms(double ms);

/// A launch dimension as Nsight Compute prints it: "(1024, 1, 1)".
std::string format_dim3(const Dim3& dim);

/// A device address in hex: "0x7f0000001000".
std::string format_address(std::uint64_t address);

/// "1 kernel", "5 kernels", "3 passes": `count` and `noun`, made plural
/// unless count == 1 by appending "es" to a noun ending in 's', else "s".
std::string count_of(std::uint64_t count, std::string_view noun);

/// Shortens `text` to at most `max_width` bytes by replacing its middle with
/// "..." (the start names the function, the end its parameters). Text that
/// fits is returned unchanged; UTF-8 sequences are never split. With
/// max_width < 4 the text is cut to max_width bytes without an ellipsis.
std::string truncate_middle(std::string_view text, std::size_t max_width);

/// A progress line for stderr while passes run: "range 2/10: pass 7/40".
/// Indices are 0-based and printed 1-based; range_count 0 means unknown
/// ("range 3: pass 7/40").
std::string format_progress(std::uint32_t range_index, std::uint32_t range_count, std::uint32_t pass_index,
                            std::uint32_t pass_count);

}  // namespace rangereplay::report
