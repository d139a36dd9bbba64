// libFuzzer target: --kernel-range windows (range::KernelWindows::parse).
// Parsed windows are ascending, disjoint and non-empty, and from_windows
// accepts them back.
#include <vector>

#include "core/range/kernel_windows.h"
#include "fuzz_check.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer names the entry point.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rangereplay;
  const std::string_view text = fuzz::as_text(data, size);
  std::size_t column = 0;
  StatusOr<range::KernelWindows> parsed = range::KernelWindows::parse(text, "kernel-range", &column);
  if (!parsed.ok()) {
    fuzz::check_error(parsed.status(), text.size(), column);
    return 0;
  }
  const auto windows = parsed->windows();
  fuzz::check(!windows.empty(), "at least one window");
  for (std::size_t i = 0; i < windows.size(); ++i) {
    fuzz::check(windows[i].first < windows[i].end, "a window is not empty");
    if (i > 0) fuzz::check(windows[i - 1].end <= windows[i].first, "windows are ascending and disjoint");
  }
  StatusOr<range::KernelWindows> back =
      range::KernelWindows::from_windows(std::vector<range::KernelWindow>(windows.begin(), windows.end()));
  fuzz::check(back.ok() && *back == *parsed, "from_windows accepts parse's windows");
  return 0;
}
