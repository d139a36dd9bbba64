# `cmake --install <build> --prefix <dir>`: the layout the launcher looks for
# relative to its own location (tools/cli/library_lookup.h):
#   bin/rangereplay, bin/rangereplay-metrics-probe
#   lib/librangereplay_inject.so, lib/librangereplay_cli_metrics{,_host}.so
#   share/rangereplay/report.schema.json, share/rangereplay/python/rangereplay_report.py
# Installed binaries keep the CUDA toolkit's library folders they link from in
# their run path (CMAKE_INSTALL_RPATH_USE_LINK_PATH, set before the targets).
# `cpack -G DEB` in the build folder makes a Debian package of the same files.
install(TARGETS rangereplay RUNTIME DESTINATION bin)
# A program, to rename it (its build-tree run path, which names the CUDA
# toolkit's folders, stays).
install(PROGRAMS $<TARGET_FILE:metrics-probe> DESTINATION bin RENAME rangereplay-metrics-probe)
install(TARGETS rangereplay_inject LIBRARY DESTINATION lib)
install(TARGETS rangereplay_cli_metrics rangereplay_cli_metrics_host LIBRARY DESTINATION lib)
install(FILES ${PROJECT_SOURCE_DIR}/share/rangereplay/report.schema.json DESTINATION share/rangereplay)
install(FILES ${PROJECT_SOURCE_DIR}/python/rangereplay_report.py DESTINATION share/rangereplay/python)
# Chart.js (Debian's libjs-chart.js), inlined into HTML reports: a copy goes
# with the install when the build machine has it.
install(FILES /usr/share/javascript/chart.js/chart.min.js DESTINATION share/rangereplay OPTIONAL)

set(CPACK_PACKAGE_NAME rangereplay)
set(CPACK_PACKAGE_VENDOR "rangereplay")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Range-replay profiler for NVIDIA GPUs (CUPTI)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr/local)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "rangereplay developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# RE2's shared library, which the launcher and the injection library link.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libre2-9")
# The CUDA 13 toolkit (CUPTI) is not a Debian package: it is named, not required.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Records a range of GPU work in an unmodified application and replays it for
 every hardware-counter pass. Needs the CUDA 13 toolkit (CUPTI) under /usr/local/cuda.")
include(CPack)
