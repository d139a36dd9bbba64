#!/usr/bin/env bash
# CPU test of scripts/check-runpath.sh on small shared libraries linked with
# known run paths: absolute entries pass; an empty entry (leading, trailing,
# doubled, or the whole path), a relative entry and $ORIGIN fail, as RUNPATH
# and as RPATH; a folder is searched.
#   tests/scripts/check_runpath_test.sh <C compiler>
set -uo pipefail
cc=${1:?C compiler}
check=$(cd "$(dirname "$0")/../.." && pwd)/scripts/check-runpath.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'int f(void) { return 1; }' >"$tmp/f.c"
fail=0
n=0
# expect <exit code> <linker run path flag...>
expect() {
  local want=$1 lib
  shift
  n=$((n + 1))
  lib=$tmp/lib$n/libf.so
  mkdir -p "$tmp/lib$n"
  "$cc" -shared -fPIC -o "$lib" "$tmp/f.c" "$@" || { echo "FAILED: cannot link with $*"; fail=1; return; }
  bash "$check" "$lib" >"$tmp/out" 2>&1
  local rc=$?
  if [[ $rc != "$want" ]]; then
    echo "FAILED: $* gave exit $rc, expected $want: $(cat "$tmp/out")"
    fail=1
  fi
}
expect 0                                        # no run path at all
expect 0 -Wl,-rpath,/usr/local/cuda/lib
expect 0 -Wl,-rpath,/usr/local/cuda/lib:/opt/x
expect 0 -Wl,--disable-new-dtags,-rpath,/opt/x  # DT_RPATH
expect 1 -Wl,-rpath,/usr/local/cuda/lib:         # trailing ':'
expect 1 -Wl,-rpath,:/usr/local/cuda/lib         # leading ':'
expect 1 -Wl,-rpath,/a::/b                       # doubled ':'
expect 1 -Wl,-rpath,lib                          # relative
expect 1 '-Wl,-rpath,$ORIGIN/../lib'             # relative to the binary
expect 1 -Wl,--disable-new-dtags,-rpath,/opt/x:  # DT_RPATH, trailing ':'
# A folder: found and failed through the library inside it.
bash "$check" "$tmp" >/dev/null 2>&1 && { echo "FAILED: a folder with bad libraries passed"; fail=1; }
bash "$check" "$tmp/lib2" >/dev/null 2>&1 || { echo "FAILED: a folder with a good library failed"; fail=1; }
# Usage errors: exit 2.
bash "$check" >/dev/null 2>&1
[[ $? == 2 ]] || { echo "FAILED: no argument is not a usage error"; fail=1; }
bash "$check" "$tmp/f.c" >/dev/null 2>&1
[[ $? == 2 ]] || { echo "FAILED: a path with no ELF binary is not a usage error"; fail=1; }
[[ $fail == 0 ]] && echo ok
exit $fail
