#!/usr/bin/env bash
# Runs each libFuzzer target of the fuzz preset's build (tests/fuzz, built by
# `cmake --preset fuzz && cmake --build --preset fuzz`) for a bounded time, starting from its seed
# corpus tests/fuzz/corpus/<name>/ (read only: new inputs go to a temporary
# folder). Exit 1 at the first target that crashes, leaks, times out or
# breaks a check; the input is left as crash-*/timeout-*/leak-* in the
# temporary folder, whose path is printed.
#   scripts/fuzz.sh [seconds per target, default 20] [build folder, default build-fuzz]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20} build=${2:-build-fuzz}
root=$PWD
[[ $build == /* ]] || build=$root/$build
targets=(nvtx_expression kernel_windows range_list byte_size profile_config report_json rendezvous_line)
work=$(mktemp -d /tmp/rangereplay-fuzz.XXXXXX)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/${t}_fuzz
  [[ -x $bin ]] || { echo "fuzz: $bin is missing; build it: cmake --preset fuzz && cmake --build --preset fuzz" >&2; exit 1; }
  mkdir -p "$work/$t/new"
  start=$SECONDS
  # -max_len: the longest input tried; 4 KiB covers every option and line,
  # 16 KiB a report with a few ranges. -timeout: one input that takes longer
  # is a failure (a hang in the application's process).
  max_len=4096
  [[ $t == report_json ]] && max_len=16384
  if ! (cd "$work/$t" && "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -print_final_stats=1 new "$root/tests/fuzz/corpus/$t" >"$work/$t/log" 2>&1); then
    tail -n 40 "$work/$t/log" >&2
    echo "fuzz: $t failed; the input and the log are in $work/$t" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log")
  echo "fuzz: $t ok (${runs:-?} inputs, $((SECONDS - start)) s)"
done
rm -rf "$work"
