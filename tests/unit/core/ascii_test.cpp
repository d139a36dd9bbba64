// Strict unsigned decimals (core/ascii.h), shared by option values and the
// launcher gate's variable.
#include "core/ascii.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace rangereplay {
namespace {

TEST(ParseUnsignedDecimal, reads_zero_one_and_the_largest_value_of_the_type) {
  std::uint32_t v = 99;
  ASSERT_TRUE(parse_unsigned_decimal("0", v));
  EXPECT_EQ(v, 0u);
  ASSERT_TRUE(parse_unsigned_decimal("1", v));
  EXPECT_EQ(v, 1u);
  ASSERT_TRUE(parse_unsigned_decimal("4294967295", v));
  EXPECT_EQ(v, 4294967295u);
  std::uint64_t w = 0;
  ASSERT_TRUE(parse_unsigned_decimal("18446744073709551615", w));
  EXPECT_EQ(w, 18446744073709551615ull);
  ASSERT_TRUE(parse_unsigned_decimal("007", v));
  EXPECT_EQ(v, 7u);
}

TEST(ParseUnsignedDecimal, refuses_signs_spaces_prefixes_trailing_text_and_overflow) {
  std::uint32_t v = 0;
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x10", "1.5", "1e3", "12a", "4294967296"}) {
    EXPECT_FALSE(parse_unsigned_decimal(bad, v)) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace rangereplay
