#!/usr/bin/env bash
# Brings the Debian build dependencies to a GPU machine without a package
# registry.
#   scripts/gpu-deps.sh download   # here: .deb files into .deps/debs
#   scripts/gpu-deps.sh unpack     # there: unpack into .deps/prefix (CMake preset `gpu`)
# Only headers and sources travel (CLI11, nlohmann-json, fmt headers,
# GoogleTest sources), so nothing depends on the target's library versions.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libcli11-dev nlohmann-json3-dev libfmt-dev googletest)
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
