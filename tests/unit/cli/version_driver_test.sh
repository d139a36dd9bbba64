#!/usr/bin/env bash
# `rangereplay --version` names the driver it finds through the loader's
# usual search, and never fails without one: a driver answering
# cuDriverGetVersion (a small libcuda.so.1 built here, first on
# LD_LIBRARY_PATH) is named with its CUDA version and file, one answering an
# error, the toolkit's stub and no libcuda.so.1 at all are "no driver (...)",
# each with exit 0 and the build's lines first.
#   tests/unit/cli/version_driver_test.sh <rangereplay> <C compiler> <toolkit stubs folder>
set -uo pipefail
launcher=${1:?rangereplay executable} cc=${2:?C compiler} stubs=${3:?stubs folder}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# expect <case> <driver line> [LD_LIBRARY_PATH]
expect() {
  local name=$1 want=$2 out rc
  out=$(LD_LIBRARY_PATH=${3:-} timeout 30 "$launcher" --version 2>&1)
  rc=$?
  if [[ $rc != 0 ]] || ! grep -q "^rangereplay [0-9]" <<<"$out" || ! grep -q "^commit: " <<<"$out" ||
    [[ $(tail -1 <<<"$out") != "driver: $want" ]]; then
    echo "FAILED ($name): exit $rc, printed: $out (want the last line 'driver: $want')"
    fail=1
  fi
}
for version in 12080 13000; do
  mkdir -p "$tmp/$version"
  printf 'int cuDriverGetVersion(int* v) { *v = %s; return 0; }\n' "$version" >"$tmp/$version/driver.c"
  "$cc" -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$tmp/$version/libcuda.so.1" "$tmp/$version/driver.c" ||
    { echo "FAILED: the test driver does not compile"; exit 1; }
done
expect "CUDA 12.8 driver" "CUDA 12.8 ($tmp/12080/libcuda.so.1)" "$tmp/12080"
expect "CUDA 13.0 driver" "CUDA 13.0 ($tmp/13000/libcuda.so.1)" "$tmp/13000"
mkdir -p "$tmp/error"
echo 'int cuDriverGetVersion(int* v) { (void)v; return 3; /* CUDA_ERROR_NOT_INITIALIZED */ }' >"$tmp/error/driver.c"
"$cc" -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$tmp/error/libcuda.so.1" "$tmp/error/driver.c" || exit 1
expect "a failing driver" "no driver (cuDriverGetVersion: CUresult 3)" "$tmp/error"
if [[ -f $stubs/libcuda.so ]]; then
  mkdir -p "$tmp/stub" && ln -s "$stubs/libcuda.so" "$tmp/stub/libcuda.so.1"
  expect "the toolkit's stub" "no driver (libcuda.so.1 is the CUDA toolkit's stub library)" "$tmp/stub"
fi
# No driver at all: only where this machine has none.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  expect "no driver" "no driver (libcuda.so.1 cannot be loaded)"
fi
[[ $fail == 0 ]] && echo ok
exit $fail
