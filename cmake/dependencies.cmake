# Third-party dependencies, all from Debian packages (scripts/install-deps.sh).
# Header-only use everywhere the injection library could meet an application's
# own copy of a library in another version: fmt is used in header-only mode.
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 QUIET CONFIG)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE "${CLI11_INCLUDE_DIR}")
endif()
find_path(FMT_INCLUDE_DIR fmt/format-inl.h REQUIRED)
add_library(rangereplay_fmt INTERFACE)
target_include_directories(rangereplay_fmt SYSTEM INTERFACE "${FMT_INCLUDE_DIR}")
target_compile_definitions(rangereplay_fmt INTERFACE FMT_HEADER_ONLY=1)

# RE2 (libre2-dev) matches the regex: names of NVTX expressions in linear
# time. Linked as the shared libre2.so.9, the injection library included:
# Debian's libre2.a is built for executables (its thread-local
# re2::hooks::context uses the local-exec TLS model, which a shared library
# cannot hold), so RE2's symbols are not hidden inside the injection library
# (docs/limitations.md). With RANGEREPLAY_DEPS_PREFIX the unpacked copy is
# found first, and the build tree's run path names its folder.
find_path(RE2_INCLUDE_DIR re2/re2.h REQUIRED)
find_library(RE2_LIBRARY NAMES re2 REQUIRED)
find_package(Threads REQUIRED)
add_library(rangereplay_re2 INTERFACE)
target_include_directories(rangereplay_re2 SYSTEM INTERFACE "${RE2_INCLUDE_DIR}")
target_link_libraries(rangereplay_re2 INTERFACE "${RE2_LIBRARY}" Threads::Threads)

if(RANGEREPLAY_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    # Debian's `googletest` package ships the sources; build them here.
    find_path(GOOGLETEST_SRC CMakeLists.txt
      PATHS "${RANGEREPLAY_DEPS_PREFIX}/src/googletest" /usr/src/googletest NO_DEFAULT_PATH REQUIRED)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    add_subdirectory("${GOOGLETEST_SRC}" "${CMAKE_BINARY_DIR}/_googletest" EXCLUDE_FROM_ALL)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
  include(GoogleTest)
endif()
if(RANGEREPLAY_BUILD_BENCH)
  find_package(benchmark QUIET)
endif()

# CUPTI's profiler host/target libraries (NVPW), when FindCUDAToolkit lacks them.
foreach(lib cupti nvperf_host nvperf_target checkpoint)
  if(NOT TARGET CUDA::${lib})
    find_library(RANGEREPLAY_${lib}_LIBRARY ${lib}
      HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/lib64 REQUIRED)
    add_library(CUDA::${lib} SHARED IMPORTED)
    set_target_properties(CUDA::${lib} PROPERTIES IMPORTED_LOCATION "${RANGEREPLAY_${lib}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${CUDAToolkit_INCLUDE_DIRS}")
  endif()
endforeach()
