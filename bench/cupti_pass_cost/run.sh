#!/usr/bin/env bash
# Builds cupti_pass_cost with nvcc alone (no CMake, no Debian packages: the
# metric sets come from src/core/config/metric_sets.cpp, compiled in) and runs each
# part in a process of its own, so that no part inherits another's CUPTI
# state. One GPU; about 5 minutes, 17 at most (every step has a time limit).
#   bench/cupti_pass_cost/run.sh [log-dir]     (default: $OUT when set, else ./out)
# Env: PARTS (default "h a b c d u k e"), CUPTI_PASS_COST_BIN (a binary built
# beforehand, e.g. build/bench/cupti_pass_cost from scripts/gpu-prebuild.sh's
# pack, with build/prebuilt.env sourced: then nothing is compiled here).
# The log folder gets gpu.txt, build.txt, u.txt, k.txt, h.txt, a.txt, b.txt, c.txt, d.txt,
# e-main.txt, e-thread.txt, e-capture.txt, e-capture-relaxed.txt (the empty
# pass of the one-pass list), e-main-full.txt, e-thread-full.txt (of the full
# list), e-thread-none.txt (no empty pass);
# the console ends with each part's cost table and values table.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
logs=${1:-${OUT:-$PWD/out}}
mkdir -p "$logs"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cuda=$(dirname "$(dirname "$nvcc")")
includes=(-I"$root/src" -I"$cuda/include")
libdirs=(-L"$cuda/lib64" -L"$cuda/lib64/stubs")  # stubs: libcuda for the link only; the driver's at run time
[[ -d $cuda/extras/CUPTI/include ]] && includes+=(-I"$cuda/extras/CUPTI/include")
[[ -d $cuda/extras/CUPTI/lib64 ]] && libdirs+=(-L"$cuda/extras/CUPTI/lib64")
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bin=${TMPDIR:-/tmp}/cupti_pass_cost

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  "$nvcc" --version | tail -1
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
} >"$logs/gpu.txt" 2>&1
cat "$logs/gpu.txt"

# metric_sets.cpp and the core sources it needs (a missing one fails the link by name), and the tool's
# L2 flush kernel (part k).
sources=("$here/cupti_pass_cost.cu")
for f in config/metric_sets base/closest_names base/ascii base/status base/decline_reason; do sources+=("$root/src/core/$f.cpp"); done
for f in cache_flush_kernel launch_count; do sources+=("$root/src/cuda/kernels/$f.cu"); done
if [[ -n ${CUPTI_PASS_COST_BIN:-} ]]; then
  # A binary built beforehand (the CMake target cupti_pass_cost, in the pack
  # scripts/gpu-prebuild.sh makes): no build here.
  bin=$CUPTI_PASS_COST_BIN
  echo "prebuilt: $bin" >"$logs/build.txt"
else
  rm -f "$bin"
  timeout 240 "$nvcc" -std=c++20 -O2 -arch=sm_90 "${includes[@]}" -o "$bin" "${sources[@]}" "${libdirs[@]}" \
    -lcupti -lnvperf_host -lnvperf_target -lcuda -lpthread >"$logs/build.txt" 2>&1
fi
[[ -x $bin ]] || { echo "BUILD FAILED (or CUPTI_PASS_COST_BIN not executable)"; cat "$logs/build.txt"; exit 1; }

# Each part with its time limit (s): h host only, a Range Profiler, b older
# Profiler API, c PM sampling, d PM sampling inside a Range Profiler pass.
# e: the counter set-up on the application's thread, then on a helper thread
# beside the application's kernels, then beside its open global-mode capture
# (the helper in the default and in relaxed capture mode), each with the empty
# pass of the one-pass list; then with the empty pass of the full list on
# the application's thread and on a helper, and with none on a helper: seven
# processes.
# u: per-kernel values in automatic ranges, in user ranges pushed from the
# host around each kernel, and in the same behind a gate.
# k: the tool's work (a device-to-device cudaMemcpyAsync, the same copy by a kernel, a
# memset) before the kernels inside each pass of automatic ranges.
# PARTS (default "h a b c d u k e") picks parts.
status=()
for step in "h 45" "a 150" "b 120" "c 75" "d 45" "u 90" "k 90" "e main 60" "e thread 60" "e capture 60" "e capture-relaxed 60" \
  "e main full 60" "e thread full 60" "e thread none 60"; do
  read -r part rest <<<"$step"
  [[ " ${PARTS:-h a b c d u k e} " == *" $part "* ]] || continue
  limit=${rest##* }
  args=(--parts "$part")
  log=$part
  if [[ $part == e ]]; then
    read -r on empty _ <<<"$rest"
    args+=(--setup-on "$on")
    log="e-$on"
    if [[ $empty != "$limit" ]]; then  # a third word: the empty pass's list
      args+=(--empty-pass "$empty")
      log+="-$empty"
    fi
  fi
  timeout "$limit" "$bin" "${args[@]}" >"$logs/$log.txt" 2>&1
  rc=$?
  status+=("part $log: rc=$rc$([[ $rc == 124 ]] && echo " (over its ${limit}s limit)")")
done

echo "== host side (h.txt)"
[[ -f $logs/h.txt ]] && cut -c1-300 "$logs/h.txt"
for part in a b c d u k e-main e-thread e-capture e-capture-relaxed e-main-full e-thread-full e-thread-none; do
  [[ -f $logs/$part.txt ]] || continue
  echo "== part $part ($part.txt): notes"
  grep -h -E '^\[|^  !' "$logs/$part.txt" | grep -v 'pass wall ms by pass index' | cut -c1-240
  echo "== part $part: cost and values"
  sed -n '/^COST PER COUNTED PASS/,$p' "$logs/$part.txt"
done
printf '%s\n' "${status[@]}"
