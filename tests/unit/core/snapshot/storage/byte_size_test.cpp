// Sizes as users type them for --snapshot-device-limit / --snapshot-host-limit.
#include <gtest/gtest.h>

#include "core/snapshot/storage/byte_size.h"

namespace rangereplay::storage {
namespace {

std::uint64_t parsed(std::string_view text) {
  StatusOr<std::uint64_t> bytes = parse_byte_size(text);
  EXPECT_TRUE(bytes.ok()) << text << ": " << bytes.status().to_string();
  return bytes.ok() ? *bytes : 0;
}

TEST(ParseByteSize, plain_numbers_are_bytes) {
  EXPECT_EQ(parsed("0"), 0u);
  EXPECT_EQ(parsed("1"), 1u);
  EXPECT_EQ(parsed("4096"), 4096u);
  EXPECT_EQ(parsed("4096B"), 4096u);
  EXPECT_EQ(parsed("  4096  "), 4096u);
  EXPECT_EQ(parsed("18446744073709551615"), 18446744073709551615ull);
}

TEST(ParseByteSize, binary_units_are_powers_of_1024) {
  EXPECT_EQ(parsed("1KiB"), 1024u);
  EXPECT_EQ(parsed("512MiB"), 512ull << 20);
  EXPECT_EQ(parsed("2GiB"), 2ull << 30);
  EXPECT_EQ(parsed("3TiB"), 3ull << 40);
  EXPECT_EQ(parsed("64 kib"), 64ull << 10);
  EXPECT_EQ(parsed("16777215TiB"), 16777215ull << 40);
}

TEST(ParseByteSize, decimal_units_are_powers_of_1000) {
  EXPECT_EQ(parsed("6GB"), 6000000000u);
  EXPECT_EQ(parsed("1kb"), 1000u);
  EXPECT_EQ(parsed("7MB"), 7000000u);
  EXPECT_EQ(parsed("2TB"), 2000000000000u);
}

TEST(ParseByteSize, fractions_round_down_to_whole_bytes) {
  EXPECT_EQ(parsed("1.5GiB"), 3ull << 29);
  EXPECT_EQ(parsed("0.5KiB"), 512u);
  EXPECT_EQ(parsed("0.1KiB"), 102u);  // 102.4
  EXPECT_EQ(parsed("1.5"), 1u);
  EXPECT_EQ(parsed("2.25 GB"), 2250000000u);
  EXPECT_EQ(parsed("0.999999999999999999TiB"), 1099511627775u);
}

TEST(ParseByteSize, malformed_text_names_itself_and_the_accepted_forms) {
  const std::string forms =
      "': expected bytes (4096) or a number with a unit (512MiB, 1.5GiB, 6GB; units B, KB, MB, "
      "GB, TB, KiB, MiB, GiB, TiB)";
  EXPECT_EQ(parse_byte_size("lots").status().to_string(), "invalid argument: bad size 'lots" + forms);
  for (const char* text : {"", " ", "-1", "1.", ".5GiB", "1..5GiB", "5 G", "5GiBs", "1e9", "0x100", "5 Gi B",
                           "1.0000000000000000001GiB"}) {
    Status status = parse_byte_size(text).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(status.message(), "bad size '" + std::string(text) + forms) << text;
  }
}

TEST(ParseByteSize, sizes_past_2_to_the_64_are_out_of_range) {
  EXPECT_EQ(parse_byte_size("18446744073709551616").status().to_string(),
            "out of range: size '18446744073709551616' is larger than 2^64 - 1 bytes");
  EXPECT_EQ(parse_byte_size("16777216TiB").status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(parse_byte_size("99999999999999999999999GB").status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(parse_byte_size("18446744073709551615.5KiB").status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace rangereplay::storage
