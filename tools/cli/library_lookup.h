// Where the launcher finds the libraries it hands to the application:
// the injection library (CUDA_INJECTION64_PATH) and CUPTI (NVTX_INJECTION64_PATH,
// so the application's NVTX calls reach CUPTI's NVTX callbacks), plus the
// launcher's own metric-query module.
//
// Layouts supported: an install (bin/rangereplay, lib/librangereplay_inject.so),
// everything in one folder, and the build tree (build/tools/cli/rangereplay,
// build/src/librangereplay_inject.so).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/output_path.h"  // EnvLookup
#include "core/base/environment.h"
#include "core/base/status.h"

namespace rangereplay::cli {

inline constexpr const char* kInjectLibName = "librangereplay_inject.so";
inline constexpr const char* kInjectLibEnv = environment::kInjectLib;
inline constexpr const char* kMetricsModuleName = "librangereplay_cli_metrics.so";
inline constexpr const char* kHostMetricsModuleName = "librangereplay_cli_metrics_host.so";

/// The folder holding the running executable (/proc/self/exe, links resolved).
/// Errors: internal when /proc/self/exe cannot be read.
StatusOr<std::string> executable_dir();

/// The first of `candidates` that is a regular file, as an absolute path with
/// links and '..' resolved; nullopt when none is.
std::optional<std::string> first_existing_file(const std::vector<std::string>& candidates);

/// Finds the injection library, in this order:
///   1. $RANGEREPLAY_INJECT_LIB (if set it must name a file: an error otherwise)
///   2. <exe_dir>/librangereplay_inject.so
///   3. <exe_dir>/../lib/librangereplay_inject.so
///   4. <exe_dir>/../../src/librangereplay_inject.so   (build tree)
/// Returns an absolute, canonical path. Errors (one line): invalid_argument
/// when $RANGEREPLAY_INJECT_LIB names no file (the user's input); not_found
/// listing the folders searched and the fix otherwise (a build or install
/// without the library).
StatusOr<std::string> find_injection_library(const std::string& exe_dir, const EnvLookup& env);

/// Finds the launcher's metric-query module `module_name` (kMetricsModuleName
/// or kHostMetricsModuleName): <exe_dir>/, then <exe_dir>/../lib/. Errors:
/// not_found naming the folders and the build target.
StatusOr<std::string> find_metrics_module(const std::string& exe_dir,
                                          const std::string& module_name = kMetricsModuleName);

/// Finds libcupti for NVTX_INJECTION64_PATH. `loaded` is the path of the
/// libcupti already loaded by the metric-query module (dladdr), preferred so
/// the application loads the very file the injection library links (the
/// dynamic loader then maps one copy); then each folder of
/// `ld_library_path` (colon separated), then `default_dirs`; in each folder
/// libcupti.so, then libcupti.so.13. Returns a canonical path. Errors:
/// not_found naming the folders searched.
StatusOr<std::string> find_cupti_library(const std::optional<std::string>& loaded,
                                         const std::optional<std::string>& ld_library_path,
                                         const std::vector<std::string>& default_dirs);

/// Folders searched for libcupti after LD_LIBRARY_PATH.
std::vector<std::string> default_cupti_dirs();

}  // namespace rangereplay::cli
