// KernelWindows: half-open launch-index windows, where each launch stands,
// and exact parse errors.
#include "core/range/kernel_windows.h"

#include <gtest/gtest.h>

namespace rangereplay::range {
namespace {

using Position = KernelWindows::Position;

TEST(KernelWindows, a_window_begins_before_its_first_launch_and_ends_after_its_last) {
  const KernelWindows w = KernelWindows::parse("100:164").value();
  ASSERT_EQ(w.windows().size(), 1u);
  EXPECT_EQ(w.windows()[0], (KernelWindow{100, 164}));
  EXPECT_EQ(w.position(0), (Position{}));
  EXPECT_EQ(w.position(99), (Position{}));
  EXPECT_EQ(w.position(100), (Position{0, true, false}));
  EXPECT_EQ(w.position(130), (Position{0, false, false}));
  EXPECT_EQ(w.position(163), (Position{0, false, true}));
  EXPECT_EQ(w.position(164), (Position{}));
  EXPECT_FALSE(w.past_last(163));
  EXPECT_TRUE(w.past_last(164));
  EXPECT_EQ(w.window_name(0), "kernels 100:164");
}

TEST(KernelWindows, a_one_launch_window_begins_and_ends_at_the_same_launch) {
  const KernelWindows w = KernelWindows::parse("5:6").value();
  EXPECT_EQ(w.position(5), (Position{0, true, true}));
  EXPECT_EQ(w.position(6), (Position{}));
}

TEST(KernelWindows, a_window_from_launch_zero) {
  const KernelWindows w = KernelWindows::parse("0:1").value();
  EXPECT_EQ(w.position(0), (Position{0, true, true}));
  EXPECT_TRUE(w.past_last(1));
}

TEST(KernelWindows, several_windows_are_separate_ranges_in_order) {
  const KernelWindows w = KernelWindows::parse("0:10,10:20,30:31").value();
  ASSERT_EQ(w.windows().size(), 3u);
  EXPECT_EQ(w.position(9), (Position{0, false, true}));
  EXPECT_EQ(w.position(10), (Position{1, true, false}));
  EXPECT_EQ(w.position(19), (Position{1, false, true}));
  EXPECT_EQ(w.position(25), (Position{}));
  EXPECT_EQ(w.position(30), (Position{2, true, true}));
  EXPECT_FALSE(w.past_last(30));
  EXPECT_TRUE(w.past_last(31));
  EXPECT_EQ(w.window_name(2), "kernels 30:31");
}

TEST(KernelWindows, windows_near_the_largest_index) {
  const KernelWindows w = KernelWindows::parse("18446744073709551614:18446744073709551615").value();
  EXPECT_EQ(w.position(18446744073709551614u), (Position{0, true, true}));
  EXPECT_TRUE(w.past_last(18446744073709551615u));
}

struct BadWindow {
  const char* text;
  std::size_t column;
  const char* message;
};

TEST(KernelWindows, malformed_windows_name_the_problem_and_its_column) {
  const BadWindow cases[] = {
      {"", 0,
       "kernel-range '': missing first launch index at column 1; write FIRST:END, launch indices from 0, END "
       "exclusive, e.g. 100:164"},
      {"100", 3, "kernel-range '100': missing ':' at column 4; write FIRST:END, e.g. 100:101 for launch 100 alone"},
      {"100:", 4,
       "kernel-range '100:': missing end launch index at column 5; write FIRST:END, launch indices from 0, END "
       "exclusive, e.g. 100:164"},
      {"164:100", 4, "kernel-range '164:100': end 100 is not after first 164 at column 5; write 100:164"},
      {"100:100", 4,
       "kernel-range '100:100': end 100 is not after first 100 at column 5; END is exclusive: write 100:101 for "
       "one launch"},
      {"10:20,15:30", 6,
       "kernel-range '10:20,15:30': window 15:30 overlaps or precedes 10:20 at column 7; list windows in "
       "ascending order without overlap"},
      {"10:20,0:5", 6,
       "kernel-range '10:20,0:5': window 0:5 overlaps or precedes 10:20 at column 7; list windows in ascending "
       "order without overlap"},
      {"1:2,", 4, "kernel-range '1:2,': empty window at column 5; write 1:2"},
      {"1:2;3:4", 3,
       "kernel-range '1:2;3:4': unexpected ';' at column 4; write FIRST:END, launch indices from 0, END "
       "exclusive, e.g. 100:164"},
      {"a:3", 0,
       "kernel-range 'a:3': unexpected 'a' at column 1; write FIRST:END, launch indices from 0, END exclusive, "
       "e.g. 100:164"},
      {"1-3", 1,
       "kernel-range '1-3': unexpected '-' at column 2; write FIRST:END, launch indices from 0, END exclusive, "
       "e.g. 100:164"},
      {"1:99999999999999999999", 2,
       "kernel-range '1:99999999999999999999': number too large at column 3; write FIRST:END, launch indices "
       "from 0, END exclusive, e.g. 100:164"},
  };
  for (const BadWindow& c : cases) {
    std::size_t column = 999;
    StatusOr<KernelWindows> w = KernelWindows::parse(c.text, "kernel-range", &column);
    ASSERT_FALSE(w.ok()) << c.text;
    EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(w.status().message(), c.message);
    EXPECT_EQ(column, c.column) << c.text;
  }
}

}  // namespace
}  // namespace rangereplay::range
