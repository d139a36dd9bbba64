#!/usr/bin/env bash
# Builds, on this machine (no GPU needed), everything a GPU run uses and packs
# it into .deps/prebuilt/ (build.tar.xz, commit, root), so a GPU call can skip
# its ~200 s build: carry ".deps/prebuilt" and scripts/gpu-check.sh's build
# stage unpacks it when its commit equals the checkout's HEAD and the tree is
# clean (otherwise it builds as before). Executables and shared libraries are
# stripped; the launcher's generated man page and completions (tools/cli/docs,
# which `cmake --install` copies) and the CTest files are kept (their absolute paths are rewritten there;
# the CPU unit tests are left out, and CTest lists them as *_NOT_BUILT without
# a label, so `ctest -L gpu` does not run them).
#   scripts/gpu-prebuild.sh            (uses the `release` preset and build/)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n $(git status --porcelain --untracked-files=no) ]]; then
  echo "gpu-prebuild: commit first: the pack is matched to HEAD on the GPU machine" >&2
  exit 2
fi
source scripts/gpu-targets.sh
cmake --preset release >/dev/null
cmake --build build -j "$(nproc)" --target $targets
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
(cd build && find . -path '*/CMakeFiles' -prune -o -type f \( -name CTestTestfile.cmake -o -name cmake_install.cmake -o -name '*_include.cmake' -o -name '*.so' -o -perm -u+x -o -path './tools/cli/docs/*' \) -print) |
  grep -v -e '/rangereplay_unit_tests$' -e '\.sh$' | while read -r f; do
    mkdir -p "$staging/$(dirname "$f")"
    cp -p "build/$f" "$staging/$f"
    if file -b "$staging/$f" | grep -q '^ELF'; then strip --strip-unneeded "$staging/$f"; fi
  done
mkdir -p .deps/prebuilt
tar -C "$staging" -cJf .deps/prebuilt/build.tar.xz .
git rev-parse HEAD >.deps/prebuilt/commit
pwd >.deps/prebuilt/root
echo "gpu-prebuild: .deps/prebuilt/build.tar.xz $(du -h .deps/prebuilt/build.tar.xz | cut -f1) for $(cut -c1-7 .deps/prebuilt/commit)"
