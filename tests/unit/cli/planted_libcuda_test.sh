#!/usr/bin/env bash
# Code from the working folder is never loaded: a libcuda.so.1 planted in the
# folder `rangereplay profile` starts in must not run, with or without a GPU.
# (`rangereplay --version`, which looks for the driver, included.)
# The plant is planted_libcuda/planted_libcuda.c (a constructor that leaves
# the file `planted_libcuda_loaded`) plus a definition of every cu* function
# the launcher's libraries import (read with nm), so the loader would accept
# it wherever it looked. The launcher loads its metric-query modules (which
# need libcuda.so.1) and probes the driver before it starts the application:
# a run path with an empty or relative entry loads the plant there.
#   tests/unit/cli/planted_libcuda_test.sh <rangereplay> <C compiler> <library>...
# The libraries are the ones whose driver imports the plant must define (the
# metric-query modules).
set -uo pipefail
launcher=${1:?rangereplay executable} cc=${2:?C compiler}
shift 2
(($#)) || { echo "FAILED: no library named"; exit 1; }
[[ -x $launcher ]] || { echo "FAILED: $launcher is not an executable"; exit 1; }
launcher=$(realpath "$launcher")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  nm -D --undefined-only "$@" | awk '$2 ~ /^cu[A-Z]/ {sub(/@.*/, "", $2); print $2}'
  printf '%s\n' cuDriverGetVersion cuInit cuDeviceGetCount  # the launcher's own probe
} | sort -u | while read -r sym; do
  printf 'int %s(void) { return 100; /* CUDA_ERROR_NO_DEVICE */ }\n' "$sym"
done >"$tmp/driver_functions.c"
[[ $(wc -l <"$tmp/driver_functions.c") -gt 3 ]] || { echo "FAILED: no driver imports found in $*"; exit 1; }
mkdir "$tmp/work"
"$cc" -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$tmp/work/libcuda.so.1" "$here/planted_libcuda/planted_libcuda.c" \
  "$tmp/driver_functions.c" || { echo "FAILED: the planted library does not compile"; exit 1; }
fail=0
for args in "--version" "profile --profiler-api -- /bin/true" "profile --nvtx-include a/ --metrics dram__bytes_read.sum -- /bin/true" \
  "list-metrics"; do
  # shellcheck disable=SC2086  # $args is several words
  (cd "$tmp/work" && timeout 60 "$launcher" $args >"$tmp/out" 2>&1)
  rc=$?
  [[ $rc == 124 ]] && { echo "FAILED ($args): the launcher did not finish within 60 s"; fail=1; }
  [[ $rc == 126 || $rc == 127 ]] && { echo "FAILED ($args): the launcher did not start (exit $rc)"; fail=1; }
  if [[ -e $tmp/work/planted_libcuda_loaded ]]; then
    echo "FAILED ($args): the launcher loaded libcuda.so.1 from its working folder (exit $rc): $(head -c 600 "$tmp/out")"
    fail=1
    rm -f "$tmp/work/planted_libcuda_loaded"
  fi
done
[[ $fail == 0 ]] && echo ok
exit $fail
