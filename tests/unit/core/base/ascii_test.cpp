// Strict unsigned decimals (core/base/ascii.h), shared by option values and the
// launcher gate's variable.
#include "core/base/ascii.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

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

TEST(EscapeControls, writes_c0_controls_and_del_as_hex) {
  EXPECT_EQ(escape_controls("a\x1b[2Jb"), "a\\x1b[2Jb");  // ESC: clear the screen
  EXPECT_EQ(escape_controls("bell\a"), "bell\\x07");
  EXPECT_EQ(escape_controls("over\rwrite"), "over\\x0dwrite");
  EXPECT_EQ(escape_controls("del\x7f"), "del\\x7f");
  EXPECT_EQ(escape_controls(std::string_view("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(escape_controls("tab\there"), "tab\\x09here");
  EXPECT_EQ(escape_controls("two\nlines"), "two\\x0alines");
  EXPECT_EQ(escape_controls("two\nlines\x1b", LineBreaks::kKeep), "two\nlines\\x1b");
}

TEST(EscapeControls, writes_c1_controls_as_code_points_and_bad_utf8_as_bytes) {
  EXPECT_EQ(escape_controls("csi\xc2\x9b"
                            "31m"),
            "csi\\u009b31m");
  EXPECT_EQ(escape_controls("\xc2\x80\xc2\x9f"), "\\u0080\\u009f");
  EXPECT_EQ(escape_controls("lone\x9b"), "lone\\x9b");                     // a bare 8-bit CSI
  EXPECT_EQ(escape_controls("cut\xe6\xa2"), "cut\\xe6\\xa2");              // a truncated sequence
  EXPECT_EQ(escape_controls("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(escape_controls("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // an encoded surrogate
  EXPECT_EQ(escape_controls("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

TEST(EscapeControls, keeps_printable_ascii_and_utf8_as_is) {
  for (const char* text : {"", "step/forward", "größe \xc2\xa0nbsp", "梯度", "emoji \xf0\x9f\x98\x80", "back\\slash",
                           "void kern<float>(int*)"}) {
    EXPECT_EQ(escape_controls(text), text);
  }
}

}  // namespace
}  // namespace rangereplay
