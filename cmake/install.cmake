# `cmake --install <build> --prefix <dir>`: the layout the launcher looks for
# relative to its own location (tools/cli/library_lookup.h):
#   bin/rangereplay, bin/rangereplay-metrics-probe
#   lib/librangereplay_inject.so, lib/librangereplay_cli_metrics{,_host}.so
#   share/rangereplay/report.schema.json, share/rangereplay/python/rangereplay_report.py
#   share/man/man1/rangereplay.1.gz, share/bash-completion/completions/rangereplay,
#   share/zsh/site-functions/_rangereplay (written by the launcher from its
#   option table: tools/cli/CMakeLists.txt)
# Two components: Runtime (all of the above, binaries stripped) and Debug
# (the binaries' debug information, bin/.debug/<name>.debug and
# lib/.debug/<name>.debug, where gdb finds it through each binary's
# .gnu_debuglink: cmake/split_debug.cmake). A plain `cmake --install`
# installs both.
# Installed binaries keep the CUDA toolkit's library folders they link from in
# their run path (CMAKE_INSTALL_RPATH_USE_LINK_PATH, set before the targets).
# `cpack` in the build folder makes the Debian packages rangereplay and
# rangereplay-dbgsym of the same files (docs/install.md).
install(TARGETS rangereplay RUNTIME DESTINATION bin COMPONENT Runtime)
# A program, to rename it (its build-tree run path, which names the CUDA
# toolkit's folders, stays).
install(PROGRAMS $<TARGET_FILE:metrics-probe> DESTINATION bin RENAME rangereplay-metrics-probe COMPONENT Runtime)
install(TARGETS rangereplay_inject LIBRARY DESTINATION lib COMPONENT Runtime)
install(TARGETS rangereplay_cli_metrics rangereplay_cli_metrics_host LIBRARY DESTINATION lib COMPONENT Runtime)
install(FILES ${PROJECT_SOURCE_DIR}/share/rangereplay/report.schema.json DESTINATION share/rangereplay
        COMPONENT Runtime)
install(FILES ${PROJECT_SOURCE_DIR}/python/rangereplay_report.py DESTINATION share/rangereplay/python
        COMPONENT Runtime)
# Chart.js (Debian's libjs-chart.js), inlined into HTML reports: a copy goes
# with the install when the build machine has it.
install(FILES /usr/share/javascript/chart.js/chart.min.js DESTINATION share/rangereplay OPTIONAL COMPONENT Runtime)
install(FILES ${RANGEREPLAY_DOCS_DIR}/rangereplay.1.gz DESTINATION share/man/man1 COMPONENT Runtime)
install(FILES ${RANGEREPLAY_DOCS_DIR}/rangereplay.bash DESTINATION share/bash-completion/completions
        RENAME rangereplay COMPONENT Runtime)
install(FILES ${RANGEREPLAY_DOCS_DIR}/_rangereplay DESTINATION share/zsh/site-functions COMPONENT Runtime)

# Stripped binaries, their debug information split off (cmake/split_debug.cmake).
option(RANGEREPLAY_SPLIT_DEBUG "Strip the installed binaries; their debug information goes to the Debug component" ON)
if(RANGEREPLAY_SPLIT_DEBUG)
  set(debug_dir ${CMAKE_BINARY_DIR}/debuginfo)
  install(CODE "include(\"${PROJECT_SOURCE_DIR}/cmake/split_debug.cmake\")" COMPONENT Runtime)
  install(CODE "include(\"${PROJECT_SOURCE_DIR}/cmake/split_debug.cmake\")" COMPONENT Debug)
  # target, installed folder, installed name
  foreach(binary IN ITEMS "rangereplay;bin;rangereplay" "metrics-probe;bin;rangereplay-metrics-probe"
                          "rangereplay_inject;lib;librangereplay_inject.so"
                          "rangereplay_cli_metrics;lib;librangereplay_cli_metrics.so"
                          "rangereplay_cli_metrics_host;lib;librangereplay_cli_metrics_host.so")
    list(GET binary 0 target)
    list(GET binary 1 dir)
    list(GET binary 2 name)
    set(debug_file "${debug_dir}/${dir}/${name}.debug")
    install(CODE "rangereplay_debug_file(\"$<TARGET_FILE:${target}>\" \"${debug_file}\")
rangereplay_strip(\"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${dir}/${name}\" \"${debug_file}\")" COMPONENT Runtime)
    install(CODE "rangereplay_debug_file(\"$<TARGET_FILE:${target}>\" \"${debug_file}\")
file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${dir}/.debug\" TYPE FILE FILES \"${debug_file}\")"
            COMPONENT Debug)
  endforeach()
endif()

# --- Debian packages (`cpack` in the build folder) ---
# rangereplay_<version>_<arch>.deb (Runtime) and rangereplay-dbgsym_... (Debug).
# Depends: the Debian libraries the binaries link (dpkg-shlibdeps: libc6,
# libstdc++6, libgcc-s1, libre2-9 with their minimum versions) and CUPTI,
# which is NVIDIA's, not Debian's: libcupti.so.13 (and libnvperf_host.so,
# libcheckpoint.so) come from the CUDA toolkit, in NVIDIA's apt repositories
# the package cuda-cupti-<major>-<minor> of the toolkit built with.
# Recommends: the driver's libcuda.so.1 (libcuda1 in NVIDIA's and Debian's
# repositories; CUDA 13 needs driver 580 or newer). Recommended, not
# required: the launcher's help, --version, --list-sets and the metrics probe
# run without it, and on GPU machines the driver is often installed by
# NVIDIA's .run installer or brought into a container by the NVIDIA container
# toolkit, neither of which is a package. The package installs under
# /usr/local, beside NVIDIA's own /usr/local/cuda-<version>.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rangereplay)
set(CPACK_PACKAGE_VENDOR "rangereplay")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Range-replay profiler for NVIDIA GPUs (CUPTI)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr/local)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL Runtime)
if(RANGEREPLAY_SPLIT_DEBUG)
  list(APPEND CPACK_COMPONENTS_ALL Debug)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# zstd: the debug package (over 100 MB unpacked) compresses in a few seconds
# instead of a quarter minute with gzip; dpkg reads it from Debian 12 on.
set(CPACK_DEBIAN_COMPRESSION_TYPE zstd)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "rangereplay developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME rangereplay)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps reads the libraries the binaries need; it must find each:
# CUPTI in the toolkit, libcuda.so.1 as the toolkit's stub (a link made at
# configure time). Neither belongs to a Debian package here, so neither
# gives a dependency (cpack runs it with --ignore-missing-info); CUPTI and
# the driver are named below.
set(shlibdeps_dir ${CMAKE_BINARY_DIR}/shlibdeps)
find_file(RANGEREPLAY_CUDA_STUB libcuda.so PATHS ${CUDAToolkit_LIBRARY_DIR}/stubs NO_DEFAULT_PATH)
if(RANGEREPLAY_CUDA_STUB)
  file(MAKE_DIRECTORY ${shlibdeps_dir})
  file(CREATE_LINK ${RANGEREPLAY_CUDA_STUB} ${shlibdeps_dir}/libcuda.so.1 SYMBOLIC)
endif()
get_filename_component(cupti_dir "${RANGEREPLAY_cupti_LIBRARY}" DIRECTORY)
if(TARGET CUDA::cupti)
  get_target_property(cupti_location CUDA::cupti LOCATION)
  get_filename_component(cupti_dir "${cupti_location}" DIRECTORY)
endif()
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${cupti_dir} ${CUDAToolkit_LIBRARY_DIR} ${shlibdeps_dir})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS
    "cuda-cupti-${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "libcuda1 (>= 580)")
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "Records a range of GPU work in an unmodified application and replays it for
 every hardware-counter pass. Needs CUPTI of the CUDA ${CUDAToolkit_VERSION_MAJOR} toolkit and the NVIDIA driver.")
set(CPACK_DEBIAN_DEBUG_PACKAGE_NAME rangereplay-dbgsym)
set(CPACK_DEBIAN_DEBUG_PACKAGE_SECTION debug)
set(CPACK_DEBIAN_DEBUG_PACKAGE_DEPENDS "rangereplay (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_DEBUG_DESCRIPTION "Debug information of rangereplay's binaries
 For gdb: each stripped binary names its file (.gnu_debuglink).")
include(CPack)
