#!/usr/bin/env bash
# The launcher tells the CUDA toolkit's stub libcuda.so (lib64/stubs, for
# linking only) from the NVIDIA driver before it starts the application: with
# the stub first on LD_LIBRARY_PATH, `rangereplay profile` must exit 1 with one
# line naming the stub and the fix, and the application must not have run.
# Exit 77 (skipped) when the toolkit has no stub.
#   tests/unit/cli/stub_libcuda_test.sh <rangereplay> <toolkit stubs folder>
set -uo pipefail
launcher=${1:?rangereplay executable} stubs=${2:?stubs folder}
[[ -f $stubs/libcuda.so ]] || { echo "skipped: no $stubs/libcuda.so"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$stubs/libcuda.so" "$tmp/libcuda.so.1"
fail=0
for metrics in "" "--metrics dram__bytes_read.sum"; do
  # shellcheck disable=SC2086  # $metrics is two words or none
  LD_LIBRARY_PATH=$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$launcher" profile --nvtx-include a/ $metrics -- \
    sh -c ": > '$tmp/ran'" 2>"$tmp/err"
  rc=$?
  lines=$(wc -l <"$tmp/err")
  if [[ $rc != 1 || $lines != 1 ]] || ! grep -q "is the CUDA toolkit's stub library, not the NVIDIA driver; remove the stubs folder from LD_LIBRARY_PATH" "$tmp/err"; then
    echo "FAILED (${metrics:-no --metrics}): exit $rc, $lines stderr line(s): $(cat "$tmp/err")"; fail=1
  fi
  if [[ -e $tmp/ran ]]; then echo "FAILED (${metrics:-no --metrics}): the application ran"; fail=1; rm -f "$tmp/ran"; fi
done
[[ $fail == 0 ]] && echo ok
exit $fail
