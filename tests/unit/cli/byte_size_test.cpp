// parse_byte_size: the sizes --snapshot-device-limit / --snapshot-host-limit take.
#include "cli/byte_size.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace rangereplay::cli {
namespace {

std::uint64_t bytes(const char* text) {
  StatusOr<std::uint64_t> v = parse_byte_size(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().to_string();
  return v.ok() ? *v : 0;
}

std::string error_of(const char* text) {
  StatusOr<std::uint64_t> v = parse_byte_size(text);
  EXPECT_FALSE(v.ok()) << text << " parsed as " << (v.ok() ? *v : 0);
  return v.ok() ? std::string() : v.status().message();
}

TEST(ByteSize, plain_numbers_are_bytes) {
  EXPECT_EQ(bytes("0"), 0u);
  EXPECT_EQ(bytes("1"), 1u);
  EXPECT_EQ(bytes("4097"), 4097u);
  EXPECT_EQ(bytes("1073741824"), 1073741824u);
  EXPECT_EQ(bytes("17B"), 17u);
}

TEST(ByteSize, binary_units_are_powers_of_1024) {
  EXPECT_EQ(bytes("1KiB"), 1024u);
  EXPECT_EQ(bytes("512MiB"), 512ull << 20);
  EXPECT_EQ(bytes("3GiB"), 3ull << 30);
  EXPECT_EQ(bytes("2TiB"), 2ull << 40);
  EXPECT_EQ(bytes("8G"), 8ull << 30);
  EXPECT_EQ(bytes("4k"), 4096u);
}

TEST(ByteSize, decimal_units_are_powers_of_1000) {
  EXPECT_EQ(bytes("6GB"), 6000000000ull);
  EXPECT_EQ(bytes("1KB"), 1000u);
  EXPECT_EQ(bytes("7MB"), 7000000u);
  EXPECT_EQ(bytes("2TB"), 2000000000000ull);
}

TEST(ByteSize, units_ignore_case_and_surrounding_spaces) {
  EXPECT_EQ(bytes("512mib"), 512ull << 20);
  EXPECT_EQ(bytes(" 6 gb "), 6000000000ull);
  EXPECT_EQ(bytes("1GIB"), 1ull << 30);
}

TEST(ByteSize, fractions_must_make_whole_bytes) {
  EXPECT_EQ(bytes("1.5KiB"), 1536u);
  EXPECT_EQ(bytes("1.5GiB"), 1610612736ull);
  EXPECT_EQ(bytes("0.25MB"), 250000u);
  EXPECT_EQ(bytes(".5KiB"), 512u);
  EXPECT_EQ(bytes("2.000B"), 2u);
  EXPECT_EQ(bytes("1.0009765625KiB"), 1025u);
  EXPECT_NE(error_of("1.3B").find("not a whole number of bytes"), std::string::npos);
  EXPECT_NE(error_of("0.0001KiB").find("not a whole number of bytes"), std::string::npos);
}

TEST(ByteSize, largest_value_parses_and_one_more_overflows) {
  EXPECT_EQ(bytes("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(bytes("16777215TiB"), 16777215ull << 40);
  StatusOr<std::uint64_t> over = parse_byte_size("18446744073709551616");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(parse_byte_size("16777216TiB").status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(parse_byte_size("99999999999999999999999GB").status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(parse_byte_size("16777215.9999999TiB").status().code(), StatusCode::kInvalidArgument);
}

TEST(ByteSize, malformed_sizes_name_the_text_and_the_form) {
  EXPECT_EQ(error_of(""), "size '' is empty; write a number of bytes with an optional unit, e.g. 512MiB, 6GB or 1073741824");
  EXPECT_EQ(error_of("5XB"),
            "size '5XB' has an unknown unit 'xb'; write a number of bytes with an optional unit, e.g. 512MiB, 6GB or "
            "1073741824");
  EXPECT_NE(error_of("-1GiB").find("has a sign"), std::string::npos);
  EXPECT_NE(error_of("+1").find("has a sign"), std::string::npos);
  EXPECT_NE(error_of("GiB").find("has no number"), std::string::npos);
  EXPECT_NE(error_of(".").find("has no number"), std::string::npos);
  EXPECT_NE(error_of("1.2.3").find("unknown unit"), std::string::npos);
  EXPECT_NE(error_of("1e9").find("unknown unit 'e9'"), std::string::npos);
}

}  // namespace
}  // namespace rangereplay::cli
