#!/usr/bin/env bash
# Brings the Debian build dependencies to a GPU machine without a package
# registry.
#   scripts/gpu-deps.sh download   # here: .deb files into .deps/debs
#   scripts/gpu-deps.sh unpack     # there: unpack into .deps/prefix (CMake preset `gpu`)
# Headers and sources travel (CLI11, nlohmann-json, fmt headers, GoogleTest
# sources), and one library: RE2 (libre2-dev's headers and link name,
# libre2-9's libre2.so.9), which the injection library and the launcher link
# as a shared library. A build with the `gpu` preset finds it in the prefix
# and names .deps/prefix/usr/lib/x86_64-linux-gnu in its run path; prebuilt
# binaries (scripts/gpu-prebuild.sh) find it there through LD_LIBRARY_PATH
# set by scripts/gpu-check.sh when the machine has no libre2.so.9 of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libcli11-dev nlohmann-json3-dev libfmt-dev googletest libre2-dev libre2-9)
case "${1:-}" in
  download)
    mkdir -p .deps/debs
    (cd .deps/debs && apt-get download -qq "${packages[@]}")
    ls .deps/debs ;;
  unpack)
    rm -rf .deps/prefix && mkdir -p .deps/prefix
    for f in .deps/debs/*.deb; do dpkg-deb -x "$f" .deps/prefix; done ;;
  *) echo "usage: scripts/gpu-deps.sh download|unpack" >&2; exit 2 ;;
esac
