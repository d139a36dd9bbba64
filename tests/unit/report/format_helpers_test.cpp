#include "report/format_helpers.h"

#include <gtest/gtest.h>
#include <cstdint>
#include <limits>

namespace rangereplay::report {
namespace {

TEST(FormatHelpers, group_thousands_groups_the_integer_part_only) {
  EXPECT_EQ(group_thousands("0"), "0");
  EXPECT_EQ(group_thousands("999"), "999");
  EXPECT_EQ(group_thousands("1000"), "1,000");
  EXPECT_EQ(group_thousands("6291488"), "6,291,488");
  EXPECT_EQ(group_thousands("-1234567.891"), "-1,234,567.891");
  EXPECT_EQ(group_thousands("123456.5"), "123,456.5");
  EXPECT_EQ(group_thousands(""), "");
  EXPECT_EQ(group_thousands("-"), "-");
  EXPECT_EQ(group_thousands("n/a"), "n/a");
}

TEST(FormatHelpers, integers_get_thousands_separators_at_every_size) {
  EXPECT_EQ(format_integer(std::int64_t{0}), "0");
  EXPECT_EQ(format_integer(std::int64_t{1}), "1");
  EXPECT_EQ(format_integer(std::int64_t{-1000}), "-1,000");
  EXPECT_EQ(format_integer(std::numeric_limits<std::int64_t>::min()), "-9,223,372,036,854,775,808");
  EXPECT_EQ(format_integer(std::numeric_limits<std::uint64_t>::max()), "18,446,744,073,709,551,615");
}

TEST(FormatHelpers, metric_values_print_like_nsight_compute) {
  EXPECT_EQ(format_metric_value(0), "0");
  EXPECT_EQ(format_metric_value(-0.0), "0");
  EXPECT_EQ(format_metric_value(1), "1");
  EXPECT_EQ(format_metric_value(6291488), "6,291,488");
  EXPECT_EQ(format_metric_value(-98304), "-98,304");
  EXPECT_EQ(format_metric_value(1e18 - 128), "999,999,999,999,999,872");  // largest double below 1e18
  EXPECT_EQ(format_metric_value(1e18), "1.00e+18");
  EXPECT_EQ(format_metric_value(1234.5678), "1,234.57");
  EXPECT_EQ(format_metric_value(0.5), "0.50");
  EXPECT_EQ(format_metric_value(0.01), "0.01");
  EXPECT_EQ(format_metric_value(99.999), "100.00");
  EXPECT_EQ(format_metric_value(0.00123), "1.23e-03");
  EXPECT_EQ(format_metric_value(-0.00123), "-1.23e-03");
  EXPECT_EQ(format_metric_value(2e18), "2.00e+18");
  EXPECT_EQ(format_metric_value(std::numeric_limits<double>::quiet_NaN()), "n/a");
  EXPECT_EQ(format_metric_value(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_metric_value(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(FormatHelpers, exact_numbers_round_trip_for_machines) {
  EXPECT_EQ(format_exact_number(0), "0");
  EXPECT_EQ(format_exact_number(1024), "1024");
  EXPECT_EQ(format_exact_number(-3), "-3");
  EXPECT_EQ(format_exact_number(6291488), "6291488");
  EXPECT_EQ(format_exact_number(0.1), "0.1");
  EXPECT_EQ(format_exact_number(1234.5678), "1234.5678");
  EXPECT_EQ(format_exact_number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(format_exact_number(1e20), "1e+20");
  EXPECT_EQ(format_exact_number(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_exact_number(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(FormatHelpers, bytes_use_binary_units_with_one_decimal) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1), "1 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.0 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(4097), "4.0 KiB");
  EXPECT_EQ(format_bytes((std::uint64_t{1} << 20) - 1), "1.0 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{256} << 20), "256.0 MiB");
  EXPECT_EQ(format_bytes((std::uint64_t{3} << 30) + (std::uint64_t{1} << 29)), "3.5 GiB");
  EXPECT_EQ(format_bytes(std::uint64_t{141} << 30), "141.0 GiB");
  EXPECT_EQ(format_bytes(std::uint64_t{2} << 40), "2.0 TiB");
  EXPECT_EQ(format_bytes(std::numeric_limits<std::uint64_t>::max()), "16.0 EiB");
}

TEST(FormatHelpers, durations_keep_three_significant_places_below_ten_ms) {
  EXPECT_EQ(format_ms(0), "0.000 ms");
  EXPECT_EQ(format_ms(0.1234), "0.123 ms");
  EXPECT_EQ(format_ms(1.5), "1.50 ms");
  EXPECT_EQ(format_ms(9.994), "9.99 ms");
  EXPECT_EQ(format_ms(10), "10.0 ms");
  EXPECT_EQ(format_ms(61.23), "61.2 ms");
  EXPECT_EQ(format_ms(171.25), "171.2 ms");
  EXPECT_EQ(format_ms(12345.67), "12,345.7 ms");
  EXPECT_EQ(format_ms(std::numeric_limits<double>::quiet_NaN()), "n/a ms");
}

TEST(FormatHelpers, dims_addresses_and_counts) {
  EXPECT_EQ(format_dim3({1024, 1, 1}), "(1024, 1, 1)");
  EXPECT_EQ(format_dim3({}), "(1, 1, 1)");
  EXPECT_EQ(format_address(0x7f0000001000), "0x7f0000001000");
  EXPECT_EQ(format_address(0), "0x0");
  EXPECT_EQ(count_of(0, "kernel"), "0 kernels");
  EXPECT_EQ(count_of(1, "kernel"), "1 kernel");
  EXPECT_EQ(count_of(5, "kernel"), "5 kernels");
  EXPECT_EQ(count_of(1, "pass"), "1 pass");
  EXPECT_EQ(count_of(40, "pass"), "40 passes");
}

TEST(FormatHelpers, long_names_are_shortened_in_the_middle) {
  EXPECT_EQ(truncate_middle("", 10), "");
  EXPECT_EQ(truncate_middle("kernel(float*, int)", 19), "kernel(float*, int)");
  EXPECT_EQ(truncate_middle("kernel(float*, int)", 100), "kernel(float*, int)");
  // 16 bytes: 13 kept, 9 from the start and 4 from the end.
  EXPECT_EQ(truncate_middle("void cutlass::Kernel<Gemm<float>>(Params)", 16), "void cutl...ams)");
  EXPECT_EQ(truncate_middle("void cutlass::Kernel<Gemm<float>>(Params)", 16).size(), 16u);
  EXPECT_EQ(truncate_middle("abcdef", 4), "a...");
  EXPECT_EQ(truncate_middle("abcdef", 3), "abc");
  EXPECT_EQ(truncate_middle("abcdef", 0), "");
}

TEST(FormatHelpers, shortening_never_splits_a_utf8_sequence) {
  // "é" is two bytes (0xC3 0xA9); a cut inside it moves to its start.
  const std::string name = "a\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9z";
  const std::string cut = truncate_middle(name, 6);
  EXPECT_EQ(cut, "a...z");
  EXPECT_EQ(truncate_middle("\xC3\xA9xyz", 1), "");
}

TEST(FormatHelpers, progress_lines_count_from_one) {
  EXPECT_EQ(format_progress(1, 10, 6, 40), "range 2/10: pass 7/40");
  EXPECT_EQ(format_progress(2, 0, 0, 1), "range 3: pass 1/1");
}

}  // namespace
}  // namespace rangereplay::report
