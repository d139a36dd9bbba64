#include "core/record/cubin_symbols.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

namespace rangereplay {
namespace {

std::vector<std::uint8_t> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(CubinSymbols, writable_globals_and_kernels_are_found_in_an_nvcc_cubin) {
  auto image = read_file(RR_TEST_CUBIN_GLOBALS);
  ASSERT_FALSE(image.empty()) << RR_TEST_CUBIN_GLOBALS;
  auto symbols = read_cubin_symbols(image);
  ASSERT_TRUE(symbols.ok()) << symbols.status().to_string();
  EXPECT_TRUE(has(symbols->kernels, "bump_kernel"));
  EXPECT_TRUE(has(symbols->kernels, "scale_kernel"));
  ASSERT_EQ(symbols->writable_globals.size(), 2u);
  std::vector<std::string> names;
  for (const auto& g : symbols->writable_globals) names.push_back(g.name);
  EXPECT_TRUE(has(names, "g_counter"));
  EXPECT_TRUE(has(names, "g_table"));
  for (const auto& g : symbols->writable_globals) EXPECT_EQ(g.size_bytes, g.name == "g_counter" ? 8u : 256u) << g.name;
}

TEST(CubinSymbols, a_module_without_device_variables_has_no_writable_globals) {
  auto symbols = read_cubin_symbols(read_file(RR_TEST_CUBIN_NO_GLOBALS));
  ASSERT_TRUE(symbols.ok()) << symbols.status().to_string();
  EXPECT_EQ(symbols->kernels, std::vector<std::string>{"add_kernel"});
  EXPECT_TRUE(symbols->writable_globals.empty());
}

TEST(CubinSymbols, malformed_images_are_errors_not_crashes) {
  EXPECT_EQ(read_cubin_symbols({}).status().code(), StatusCode::kInvalidArgument);
  std::vector<std::uint8_t> junk(100, 0x41);
  EXPECT_EQ(read_cubin_symbols(junk).status().code(), StatusCode::kInvalidArgument);
  auto image = read_file(RR_TEST_CUBIN_GLOBALS);
  ASSERT_GT(image.size(), 64u);
  for (std::size_t cut : {std::size_t{64}, image.size() / 2, image.size() - 1}) {
    std::vector<std::uint8_t> truncated(image.begin(), image.begin() + static_cast<std::ptrdiff_t>(cut));
    (void)read_cubin_symbols(truncated);  // must return, ok or not
  }
  std::vector<std::uint8_t> bad_table = image;
  bad_table[0x28] = 0xff;  // section header offset far past the end
  bad_table[0x2f] = 0x7f;
  EXPECT_EQ(read_cubin_symbols(bad_table).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rangereplay
