#!/usr/bin/env bash
# Runs every example workload (and every tests/apps program) twice and checks
# that both runs print the same `checksum <buffer> <hex>` lines, so a GPU
# machine shows at a glance that the examples are deterministic. Lines marked
# `checksum-nondeterministic` (float atomics) are not compared.
#
#   scripts/run-examples.sh <build-dir> [log-dir]
#
# <build-dir> holds examples/<name> and tests/apps/app_<name> (build them first,
# e.g. `cmake --build build --target stream atomics ...`). Full output of every
# run goes to [log-dir] (default: a new directory under /tmp, printed).
# RUN2_PREFIX, when set, is prepended (word-split) to the second run of each
# program, e.g. RUN2_PREFIX="build/tools/cli/rangereplay profile --nvtx-include step/ --"
# compares a run under the tool with a plain one.
# Exit status: 0 when every program ran twice with exit 0, printed
# `checksums-done` and matching checksums; 1 otherwise; 77 without a GPU.
set -uo pipefail

if [[ $# -lt 1 || $# -gt 2 || $1 == --help ]]; then
  echo "usage: $0 <build-dir> [log-dir]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd) || { echo "error: no build directory $1" >&2; exit 2; }
log_dir=${2:-$(mktemp -d /tmp/rangereplay-examples.XXXXXX)}
mkdir -p "$log_dir"
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no NVIDIA GPU (nvidia-smi -L failed)"
  exit 77
fi

# label|command line (relative to the build directory)
programs=(
  "stream|examples/stream"
  "stream-profiler-api|examples/stream --profiler-api"
  "stream-nvtx-domain|examples/stream --nvtx-domain rangereplay"
  "atomics|examples/atomics"
  "atomics-float|examples/atomics --float"
  "multistream|examples/multistream"
  "globals|examples/globals"
  "graph|examples/graph"
  "gemm|examples/gemm"
)
for app in "$build_dir"/tests/apps/app_*; do
  # The 6 GB spill app has its own test (tests/e2e/snapshot_spill.sh).
  [[ $(basename "$app") == app_big_footprint ]] && continue
  [[ -x $app && -f $app ]] && programs+=("$(basename "$app")|tests/apps/$(basename "$app")")
done

failures=0
rows=()
for entry in "${programs[@]}"; do
  label=${entry%%|*}
  read -r -a command <<<"${entry#*|}"
  if [[ ! -x $build_dir/${command[0]} ]]; then
    rows+=("$label|-|-|-|not built")
    failures=$((failures + 1))
    continue
  fi
  command[0]=$build_dir/${command[0]}
  "${command[@]}" >"$log_dir/$label.run1.log" 2>&1
  rc1=$?
  # shellcheck disable=SC2086
  ${RUN2_PREFIX:-} "${command[@]}" >"$log_dir/$label.run2.log" 2>&1
  rc2=$?
  grep '^checksum ' "$log_dir/$label.run1.log" >"$log_dir/$label.run1.sums"
  grep '^checksum ' "$log_dir/$label.run2.log" >"$log_dir/$label.run2.sums"
  count=$(wc -l <"$log_dir/$label.run1.sums")
  verdict=yes
  if [[ $rc1 -ne 0 || $rc2 -ne 0 ]]; then
    verdict="no (exit status)"
  elif ! grep -qx checksums-done "$log_dir/$label.run1.log" || ! grep -qx checksums-done "$log_dir/$label.run2.log"; then
    verdict="no (no checksums-done)"
  elif [[ $count -eq 0 ]]; then
    verdict="no (no checksums)"
  elif ! diff -q "$log_dir/$label.run1.sums" "$log_dir/$label.run2.sums" >/dev/null; then
    verdict="NO (checksums differ)"
  fi
  [[ $verdict == yes ]] || failures=$((failures + 1))
  rows+=("$label|$rc1|$rc2|$count|$verdict")
done

# graph runs stream's kernels on stream's data: their checksums must agree.
if [[ -s $log_dir/stream.run1.sums && -s $log_dir/graph.run1.sums ]]; then
  if diff -q "$log_dir/stream.run1.sums" "$log_dir/graph.run1.sums" >/dev/null; then
    rows+=("graph==stream|-|-|$(wc -l <"$log_dir/graph.run1.sums")|yes")
  else
    rows+=("graph==stream|-|-|-|NO (checksums differ)")
    failures=$((failures + 1))
  fi
fi

echo "logs: $log_dir"
printf '%-36s %5s %5s %9s  %s\n' program rc1 rc2 checksums run1==run2
for row in "${rows[@]}"; do
  IFS='|' read -r label rc1 rc2 count verdict <<<"$row"
  printf '%-36s %5s %5s %9s  %s\n' "$label" "$rc1" "$rc2" "$count" "$verdict"
done
if [[ $failures -ne 0 ]]; then
  echo "FAILED: $failures of ${#rows[@]}"
  exit 1
fi
echo "all ${#rows[@]} passed"
