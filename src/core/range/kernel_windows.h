// Ranges given as windows of kernel-launch indices: --kernel-range 100:164.
//
// Launches are counted in the process from 0, in the order the injection
// sees their launch calls (cuLaunchKernel, cuLaunchKernelEx, cooperative
// launches and their _ptsz variants; every thread counts into one counter).
// Graph launches and copies do not advance the count but belong to the window
// they are submitted in. A window "A:B" is half-open: it begins just before
// launch A and ends just after launch B-1 (B - A launches). Several windows
// may be given as "0:10,100:164" (ascending, disjoint; touching is allowed);
// window i is matched range i. There is no open-ended form: a range must end
// before the process does.
//
//   RR_ASSIGN_OR_RETURN(KernelWindows w, KernelWindows::parse("100:164"));
//   auto at = w.position(launch_index);
//   if (at.begins_before) begin_range(w.window_name(*at.window));
//   submit_launch();
//   if (at.ends_after) end_range();
//
// Thread-safety: immutable value; the caller assigns launch indices and keeps
// begin/launch/end of one index atomic with respect to other launches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace rangereplay::range {

/// Launch indices [first, end): first inclusive, end exclusive; first < end.
struct KernelWindow {
  std::uint64_t first = 0;
  std::uint64_t end = 0;
  friend bool operator==(const KernelWindow&, const KernelWindow&) = default;
};

class KernelWindows {
 public:
  /// Parses "A:B[,C:D...]". Errors are kInvalidArgument with
  /// "<option> '<text>': <problem> at column <c>; <hint>" (c 1-based, as editors
  /// count; `error_column`, when given, gets the 0-based offset c - 1).
  static StatusOr<KernelWindows> parse(std::string_view text, std::string_view option = "kernel-range",
                                       std::size_t* error_column = nullptr);
  /// The windows `windows` as parse() would give them (read back from the
  /// configuration). Errors: kInvalidArgument when there is no window, a
  /// window is empty (end <= first) or the windows are not ascending and
  /// disjoint; the message names the window by its index in `windows`.
  static StatusOr<KernelWindows> from_windows(std::vector<KernelWindow> windows);

  /// Where launch `launch_index` stands relative to the windows.
  struct Position {
    std::optional<std::size_t> window;  // the window containing the launch
    bool begins_before = false;         // begin the window's range before submitting it
    bool ends_after = false;            // end the window's range after submitting it
    friend bool operator==(const Position&, const Position&) = default;
  };
  Position position(std::uint64_t launch_index) const;

  /// Whether no window contains `launch_index` or any later launch (the
  /// injection may stop counting).
  bool past_last(std::uint64_t launch_index) const;

  /// The range name of window `i`: "kernels 100:164".
  std::string window_name(std::size_t i) const;
  std::span<const KernelWindow> windows() const { return windows_; }

  friend bool operator==(const KernelWindows&, const KernelWindows&) = default;

 private:
  explicit KernelWindows(std::vector<KernelWindow> windows) : windows_(std::move(windows)) {}
  std::vector<KernelWindow> windows_;  // ascending, disjoint
};

}  // namespace rangereplay::range
