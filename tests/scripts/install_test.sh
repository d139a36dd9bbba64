#!/usr/bin/env bash
# CPU test of `cmake --install`: the installed launcher, outside the build
# tree, finds its injection library and metric modules by its own location
# (help, the sets, metric names checked by the host-only module, a profile
# that gets as far as the device check), and the installed metrics probe and
# Python module run; every installed binary has only absolute run path
# entries, and a libcuda.so.1 in the working folder is not loaded. No GPU
# needed.
#   tests/scripts/install_test.sh <build-dir>
set -euo pipefail
build=${1:?build dir}
prefix=$(mktemp -d /tmp/rangereplay-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/rangereplay bin/rangereplay-metrics-probe lib/librangereplay_inject.so lib/librangereplay_cli_metrics.so \
  lib/librangereplay_cli_metrics_host.so share/rangereplay/report.schema.json \
  share/rangereplay/python/rangereplay_report.py; do
  [[ -e $prefix/$f ]] || fail "$f was not installed"
done
rr=$prefix/bin/rangereplay
"$rr" --version | grep -q "rangereplay" || fail "--version printed nothing"
"$rr" list-sets | grep -q "^full " || fail "list-sets does not list 'full'"
# The injection library is looked up before the device: an installed launcher
# that got past it on a machine without a GPU fails at the device check.
out=$("$rr" profile --quiet --nvtx-include step/ -- /bin/true 2>&1 || true)
if grep -q "librangereplay_inject.so not found" <<<"$out"; then fail "the installed launcher did not find its injection library: $out"; fi
# The host-only metric module (lib/) checks names without a GPU.
out=$("$rr" profile --quiet --metrics smsp__inst_executd.sum --nvtx-include step/ -- /bin/true 2>&1 || true)
grep -q "closest: smsp__inst_executed.sum" <<<"$out" || fail "the installed launcher did not check the metric name: $out"
"$prefix/bin/rangereplay-metrics-probe" --help >/dev/null || fail "the installed metrics probe does not run"
python3 -c "import sys; sys.path.insert(0, '$prefix/share/rangereplay/python'); import rangereplay_report" ||
  fail "the installed Python module does not import"
# No search path the user did not choose: only absolute run path entries in
# every installed binary, and a libcuda.so.1 in the working folder does not
# load into the installed launcher.
here=$(cd "$(dirname "$0")/../.." && pwd)
bash "$here/scripts/check-runpath.sh" "$prefix" >/dev/null || fail "an installed binary has an empty or relative run path entry (above)"
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
out=$(bash "$here/tests/unit/cli/planted_libcuda_test.sh" "$rr" "${cc:-cc}" "$prefix/lib/librangereplay_cli_metrics.so" \
  "$prefix/lib/librangereplay_cli_metrics_host.so") || fail "the installed launcher: $out"
echo "install_test: ok ($prefix)"
