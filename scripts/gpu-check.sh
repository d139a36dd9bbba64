#!/usr/bin/env bash
# One call on a GPU machine: build everything, run the `gpu` tests, the
# examples and the benchmarks; full logs go to the directory given as the
# first argument; a short summary table is printed last.
#   scripts/gpu-check.sh <log-dir> [stage...]     stages: build test bench compare workloads examples profile reports corpus ml mlncu multigpu
# Env: GPU_SKIP_TARGETS (space list not built), USE_PREBUILT=0 (build even when
# .deps/prebuilt matches HEAD: scripts/gpu-prebuild.sh; =force: use it unchecked; the unpacked binaries' library
# path goes to build/prebuilt.env, which later calls without the build stage source, as commands run by hand must), GPU_TESTS / GPU_TESTS_EXCLUDE
# (ctest -R / -E regexes), COPY_BENCH_ARGS, DIGEST_BENCH_ARGS, WORKLOADS_ARGS, COMPARE_GROUPS (profile_vs_ncu.py's row groups),
# CORPUS_ARGS (more run_corpus.py run options, e.g. --only NAME,...), CORPUS_HANG_REPEAT (default 3),
# ML_ARGS (more tests/ml/run_ml.py options, e.g. --only NAME,... or --tool-args "--fallback app-range"),
# MLNCU_ARGS (more tests/ml/ml_vs_ncu.py options, e.g. --only NAME,... or --timeout 300),
# MULTIGPU_ARGS (more tests/multigpu/run_multigpu.py options, e.g. --only ddp --nproc 2 or --set full),
# LOGS_ARCHIVE (a .tar.xz the log folder is also packed into at the end: the device machine returns at most 8 files
# from $OUT, so give it a log folder outside $OUT and LOGS_ARCHIVE=$OUT/logs.tar.xz; Triton caches
# left out).
# Without stages, the default list runs (build test examples bench compare; workloads, profile, reports, corpus,
# ml, mlncu and multigpu only when named; reports keeps the reports of real profiles under <log-dir>/reports). Requires
# .deps/debs (scripts/gpu-deps.sh download); corpus needs .corpus (tests/corpus/README.md); ml needs JAX, PyTorch,
# Triton, CuPy and numba-cuda in python3 (tests/ml/README.md); multigpu needs 2 or more GPUs (skipped, rc=77, with
# fewer), PyTorch with NCCL and JAX (tests/multigpu/README.md) and runs with NCCL_NVLS_ENABLE=0 and
# TORCH_SYMM_MEM_DISABLE_MULTICAST=1 (no NVLink multicast).
set -uo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/gpu-check.sh <log-dir> [stage...]   (stages: build test bench compare workloads examples profile reports corpus ml mlncu multigpu)"
if [[ $# -lt 1 || $1 == -h || $1 == --help || $1 == -* ]]; then echo "$usage" >&2; exit 2; fi
logs=$1
shift
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ||
  echo "gpu-check: no NVIDIA GPU found (nvidia-smi -L failed); the GPU stages will fail or skip" >&2
mkdir -p "$logs"
stages=${*:-build test examples bench compare}
summary=()
# Each row ends with the seconds since the previous row (where the call's time went).
last_row=$SECONDS
row() { summary+=("$(printf '%-28s %s [%ds]' "$1" "$2" $((SECONDS - last_row)))"); last_row=$SECONDS; }
has() { [[ " $stages " == *" $1 "* ]]; }

{
  echo "date: $(date -u +%FT%TZ)"; echo "commit: $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  nvcc --version | tail -1; g++ --version | head -1; cmake --version | head -1; ncu --version | tail -1
  grep PRETTY /etc/os-release
} >"$logs/env.txt" 2>&1
row "gpu" "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

if has build; then
  scripts/gpu-deps.sh unpack >"$logs/build.log" 2>&1
  head=$(git rev-parse HEAD 2>/dev/null)
  # USE_PREBUILT=force skips the commit check: the device copy's .git can lag
  # behind its files (seen: HEAD read an older commit than the tree held).
  if [[ -f .deps/prebuilt/build.tar.xz && ( ${USE_PREBUILT:-1} == force ||
        ( $(cat .deps/prebuilt/commit 2>/dev/null) == "$head" &&
          -z $(git status --porcelain --untracked-files=no 2>/dev/null) && ${USE_PREBUILT:-1} == 1 ) ) ]]; then
    # Built elsewhere from this very commit (scripts/gpu-prebuild.sh): unpack,
    # and point the CTest files at this checkout.
    mkdir -p build && tar -C build -xJf .deps/prebuilt/build.tar.xz
    old_root=$(cat .deps/prebuilt/root)
    grep -rl --include='*.cmake' "$old_root" build | xargs -r -d '\n' sed -i "s#$old_root#$PWD#g"
    # The packed binaries' RUNPATH names the other machine's CUDA folders.
    for lib in libcupti.so.13 libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
      dir=$(dirname "$(find /usr/local/cuda/ /usr/local/cuda-*/ -name "$lib*" 2>/dev/null | head -1)")
      [[ $dir != . ]] && export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    done
    # Built against this machine's libre2.so.9; without one here, the
    # unpacked copy (scripts/gpu-deps.sh) serves.
    if ! ldconfig -p 2>/dev/null | grep -q 'libre2\.so\.9 '; then
      export LD_LIBRARY_PATH="$PWD/.deps/prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
    echo "prebuilt: LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >>"$logs/build.log"
    # For later calls without the build stage, and for commands run by hand
    # on the unpacked binaries: `source build/prebuilt.env`.
    printf 'export LD_LIBRARY_PATH=%q\n' "$LD_LIBRARY_PATH" >build/prebuilt.env
    row "build" "prebuilt $(cut -c1-7 .deps/prebuilt/commit) (checkout HEAD ${head:0:7})"
  else
    rm -f build/prebuilt.env
    source scripts/gpu-targets.sh
    if cmake --preset gpu >>"$logs/build.log" 2>&1 && cmake --build --preset gpu -j "$(nproc)" --target $targets >>"$logs/build.log" 2>&1; then
      row "build" "ok"
    else
      row "build" "FAILED (see build.log)"; tail -30 "$logs/build.log"
    fi
  fi
fi
build=build
# A machine still warm from a call that unpacked prebuilt binaries: their
# library path, which a call without the build stage would otherwise lack.
if ! has build && [[ -f $build/prebuilt.env ]]; then source $build/prebuilt.env; fi
if has test; then
  ctest --test-dir $build --output-on-failure -L gpu --timeout 240 ${GPU_TESTS:+-R "$GPU_TESTS"} ${GPU_TESTS_EXCLUDE:+-E "$GPU_TESTS_EXCLUDE"} \
    >"$logs/ctest-gpu.log" 2>&1
  row "gpu tests" "$(grep -E 'tests passed|tests failed' "$logs/ctest-gpu.log" | tail -1)"
  grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess)" "$logs/ctest-gpu.log" | head -10 | while read -r l; do echo "  $l"; done
fi
if has bench; then
  for b in $build/bench/*_bench; do
    [[ -x $b ]] || continue
    n=$(basename "$b")
    extra_var="${n^^}_ARGS"   # e.g. COPY_BENCH_ARGS="--max-bytes 1G"
    timeout 300 "$b" "$logs/$n.json" ${!extra_var:-} >"$logs/$n.txt" 2>&1; rc=$?
    row "$n" "rc=$rc"
  done
fi
if has compare; then
  timeout 420 python3 bench/profile_vs_ncu.py $build "$logs/profile_vs_ncu.json" ${COMPARE_GROUPS:-} >"$logs/profile_vs_ncu.txt" 2>&1
  row "profile vs ncu" "rc=$?"
fi
if has workloads; then
  timeout 540 python3 tests/workloads/run_workloads.py $build "$logs" ${WORKLOADS_ARGS:-} >"$logs/workloads.txt" 2>&1
  row "workloads (issue 8)" "rc=$?"
fi
if has examples && [[ -x scripts/run-examples.sh ]]; then
  scripts/run-examples.sh $build >"$logs/examples.log" 2>&1
  row "examples twice" "$(tail -1 "$logs/examples.log")"
fi
if has reports; then
  REPORTS_TORCH=1 timeout ${REPORTS_TIMEOUT:-540} python3 tests/e2e/reports.py $build "$logs/reports" >"$logs/reports.txt" 2>&1
  row "reports (schema, diff, ncu CSV, installed)" "rc=$?"
fi
if has corpus; then
  # Public programs (cuda-samples, Rodinia, HeCBench) plain and under the tool (tests/corpus): built here
  # by `run_corpus.py prepare` into .corpus and carried over. --budget keeps
  # the call inside its timeout (programs left are reported as skipped).
  timeout 480 python3 tests/corpus/run_corpus.py run --build $build --corpus .corpus --logs "$logs/corpus" \
    --timeout 45 --budget 420 --repeat-hang-test "${CORPUS_HANG_REPEAT:-3}" ${CORPUS_ARGS:-} >"$logs/corpus.log" 2>&1
  rc=$?
  unchanged=$(grep -c ' yes ' "$logs/corpus/corpus.txt" 2>/dev/null)
  row "corpus (cuda-samples, Rodinia, HeCBench)" "rc=$rc$([[ $rc == 124 ]] && echo ' (timed out)') (${unchanged:-0} programs unchanged)"
  [[ -f "$logs/corpus/corpus.txt" ]] || tail -3 "$logs/corpus.log"
fi
if has ml; then
  # JAX, torch.compile, Triton, CuPy and numba-cuda programs (tests/ml) plain twice, under the tool with
  # --set full and with --verify. --budget keeps the call inside its timeout (programs left are reported as skipped).
  timeout 540 python3 tests/ml/run_ml.py --build $build --logs "$logs/ml" --budget 480 ${ML_ARGS:-} >"$logs/ml.log" 2>&1
  rc=$?
  row "ml (JAX, torch.compile, Triton, CuPy, numba)" "rc=$rc$([[ $rc == 124 ]] && echo ' (timed out)') ($(tail -1 "$logs/ml/ml.txt" 2>/dev/null))"
  [[ -f "$logs/ml/ml.txt" ]] || tail -3 "$logs/ml.log"
fi
if has mlncu; then
  # The same programs' replayed `step` ranges against ncu's kernel replay, kernel by kernel (tests/ml/ml_vs_ncu.py).
  # --budget keeps the call inside its timeout (programs left are reported as skipped).
  timeout 540 python3 tests/ml/ml_vs_ncu.py --build $build --logs "$logs/mlncu" --budget 480 ${MLNCU_ARGS:-} >"$logs/mlncu.log" 2>&1
  rc=$?
  row "ml vs ncu (per kernel)" "rc=$rc$([[ $rc == 124 ]] && echo ' (timed out)') ($(tail -1 "$logs/mlncu/mlncu.txt" 2>/dev/null || sed -n 's/^skipped: //p' "$logs/mlncu.log" | head -1))"
  [[ -f "$logs/mlncu/mlncu.txt" ]] || tail -3 "$logs/mlncu.log"
fi
if has multigpu; then
  # A torchrun DDP step and a JAX step sharded over one process's GPUs (tests/multigpu) plain twice, under the tool
  # by default (collective_in_range) and, for DDP, with --collectives replay, the ranks' reports merged. No NVLink
  # multicast (NVLS, cuMulticastCreate). --budget keeps the call inside its timeout.
  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 timeout 540 python3 tests/multigpu/run_multigpu.py \
    --build $build --logs "$logs/multigpu" --budget 480 ${MULTIGPU_ARGS:-} >"$logs/multigpu.log" 2>&1
  rc=$?
  case $rc in
    77) row "multigpu (DDP, JAX sharded)" "skipped: $(sed -n 's/^skipped: //p' "$logs/multigpu.log" | head -1)" ;;
    *) row "multigpu (DDP, JAX sharded)" "rc=$rc$([[ $rc == 124 ]] && echo ' (timed out)') ($(tail -1 "$logs/multigpu/multigpu.txt" 2>/dev/null))"
       [[ -f "$logs/multigpu/multigpu.txt" ]] || tail -3 "$logs/multigpu.log" ;;
  esac
fi
if has profile; then
  timeout 300 $build/tools/cli/rangereplay profile --nvtx-include step/ --set full --output "$logs/profile-stream.json" \
    -- $build/examples/stream >"$logs/profile-stream.txt" 2>&1
  row "profile stream --set full" "rc=$? ($(grep -c 'declined' "$logs/profile-stream.txt") declined lines)"
fi

echo; echo "==== summary ===="
printf '%s\n' "${summary[@]}"
[[ -f "$logs/profile_vs_ncu.txt" ]] && { echo "--- profile_vs_ncu"; cat "$logs/profile_vs_ncu.txt"; }
[[ -f "$logs/reports.txt" ]] && { echo "--- reports"; tail -25 "$logs/reports.txt"; }
[[ -f "$logs/workloads.txt" ]] && { echo "--- workloads"; tail -15 "$logs/workloads.txt"; }
[[ -f "$logs/corpus/corpus.txt" ]] && { echo "--- corpus"; tail -45 "$logs/corpus/corpus.txt"; }
[[ -f "$logs/ml/ml.txt" ]] && { echo "--- ml"; tail -40 "$logs/ml/ml.txt"; }
[[ -f "$logs/mlncu/mlncu.txt" ]] && { echo "--- mlncu"; tail -30 "$logs/mlncu/mlncu.txt"; }
[[ -f "$logs/multigpu/multigpu.txt" ]] && { echo "--- multigpu"; tail -40 "$logs/multigpu/multigpu.txt"; }
for b in "$logs"/*_bench.txt; do [[ -f $b ]] && { echo "--- $(basename "$b")"; tail -25 "$b"; }; done
if [[ -n ${LOGS_ARCHIVE:-} ]]; then
  tar -C "$(dirname "$logs")" --exclude='*.triton-cache' -cJf "$LOGS_ARCHIVE" \
    "$(basename "$logs")" && echo "logs packed: $LOGS_ARCHIVE ($(du -h "$LOGS_ARCHIVE" | cut -f1))"
fi
