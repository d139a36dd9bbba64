// What this build of the launcher is: its version, the commit it was built
// from, and the CUDA toolkit and CUPTI it was compiled against (all fixed
// at build time). The driver found at run time is gpu_probe.h's
// driver_version_text.
#pragma once

#include <string>
#include <string_view>

namespace rangereplay::cli {

/// The commit the build was made from: 12 hex digits, with "-dirty" when
/// tracked files differed from it, or "unknown" outside a git checkout.
/// Written at every build (cmake/build_commit.cmake). Thread-safe.
std::string_view build_commit();

/// The lines `rangereplay --version` prints before the driver's, each ending
/// in '\n':
///   rangereplay 0.1.0
///   commit: 48821a4c1b2d
///   built with: CUDA 13.0.88, CUPTI API 130001
/// (CUDA: the toolkit version CMake found; CUPTI: CUPTI_API_VERSION of the
/// cupti_version.h compiled against). Thread-safe.
std::string build_info_text();

}  // namespace rangereplay::cli
