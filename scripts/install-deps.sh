#!/usr/bin/env bash
# Installs the Debian packages rangereplay builds with. Idempotent: packages
# already present are not touched, so a second run does nothing.
#
# The CUDA 13 toolkit (nvcc, CUPTI, NVPW host library, NVTX3 headers) is not a
# Debian package; it must already be installed under /usr/local/cuda.
set -euo pipefail
# clang-14, clang-tidy-14 and libclang-rt-14-dev (the sanitizer and libFuzzer
# runtimes) build and check the asan preset (scripts/sanitize.sh,
# scripts/check-tidy.sh); binutils' readelf and nm check the run paths and
# the injection library's exports and strip the installed binaries (objcopy);
# dpkg-dev (dpkg-shlibdeps) and file let cpack work out the Debian package's
# Depends (scripts/check-package.sh, unit.package); gcovr reads gcov's
# counters for scripts/coverage.sh.
packages=(cmake g++ make libcli11-dev nlohmann-json3-dev libfmt-dev libre2-dev googletest libgtest-dev libbenchmark-dev
  clang-format-14 libjs-chart.js chromium xz-utils clang-14 clang-tidy-14 libclang-rt-14-dev binutils
  dpkg-dev file gcovr)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "install-deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [[ ! -x /usr/local/cuda/bin/nvcc ]] && ! command -v nvcc >/dev/null; then
  echo "install-deps: the CUDA 13 toolkit is missing: install it under /usr/local/cuda (nvcc, CUPTI)" >&2
  exit 1
fi
nvcc_bin=/usr/local/cuda/bin/nvcc
[[ -x $nvcc_bin ]] || nvcc_bin=$(command -v nvcc)
cuda_major=$("$nvcc_bin" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
if [[ -n $cuda_major && $cuda_major -lt 13 ]]; then
  echo "install-deps: $nvcc_bin is CUDA $cuda_major; rangereplay needs the CUDA 13 toolkit (CUPTI's range profiler API): install it under /usr/local/cuda" >&2
  exit 1
fi
